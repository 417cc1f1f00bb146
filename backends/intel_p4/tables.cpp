#include <tagop/intel_p4/tables.hpp>
#include <tagop/names.hpp>  // edit_distance

#include <algorithm>         // std::min, std::sort
#include <initializer_list>  // counters({12, 13, 16}) in the table
#include <string>            // std::string
#include <utility>           // std::pair

#include <fmt/format.h>  // fmt::format

namespace tagop::intel_p4 {

namespace {
#include "intel_p4_events.hpp"   // p4_escr_table, p4_counter_table, p4_event_table
#include "intel_p4_metrics.hpp"  // p4_metric_table

constexpr char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

constexpr bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

template <class Row>
constexpr const Row* find_row(std::span<const Row> rows, std::string_view name) {
  for (const Row& r : rows)
    if (same_name(r.name, name)) return &r;
  return nullptr;
}

constexpr const EscrSpec* escr_row(std::string_view name) { return find_row<EscrSpec>(p4_escr_table, name); }
constexpr const EventSpec* event_row(std::string_view name) { return find_row<EventSpec>(p4_event_table, name); }

constexpr const MaskBitSpec* mask_row(const EventSpec& e, std::string_view name) {
  for (const MaskBitSpec& m : e.masks)
    if (!m.name.empty() && same_name(m.name, name)) return &m;
  return nullptr;
}

constexpr ParsedEvent parse(std::string_view text) {
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  ParsedEvent out{.event = event_row(name), .mask = 0, .bad_mask = {}};
  if (!out.event || colon == std::string_view::npos) return out;
  std::string_view rest = text.substr(colon + 1);
  for (;;) {
    const std::size_t next = rest.find(':');
    const std::string_view bit = rest.substr(0, next);
    const MaskBitSpec* m = mask_row(*out.event, bit);
    if (!m) {
      out.bad_mask = bit;
      return out;
    }
    out.mask |= 1u << m->bit;
    if (next == std::string_view::npos) return out;
    rest = rest.substr(next + 1);
  }
}

constexpr bool parses(std::string_view text) {
  const ParsedEvent p = parse(text);
  return p.event && p.bad_mask.empty() && p.mask != 0;
}

// The tables' self-check, like libpfm4's: a bad row is a compile error
// (throwing in a constant expression), not a wrong register value.
consteval bool rows_are_consistent() {
  for (std::size_t i = 0; i < std::size(p4_counter_table); ++i) {
    const CounterSpec& c = p4_counter_table[i];
    if (c.index != i || c.counter_msr != 0x300 + i || c.cccr_msr != 0x360 + i) throw "counter row out of order";
  }
  for (const EscrSpec& x : p4_escr_table)
    if (x.msr < 0x3A0 || x.msr > 0x3E1 || x.escr_select > 7 || x.counters == 0) throw "bad ESCR row";
  for (const EventSpec& e : p4_event_table) {
    if (e.event_select > 0x3F) throw "event select wider than ESCR bits 30:25";
    for (std::string_view name : e.escrs) {
      const EscrSpec* x = escr_row(name);
      if (!x) throw "event names an unknown ESCR";
      if (x->escr_select != e.escr_select) throw "event's ESCR select differs from its ESCR's";
    }
    std::uint32_t seen = 0;
    for (const MaskBitSpec& m : e.masks) {
      if (m.name.empty()) continue;
      if (m.bit > 15 || (seen >> m.bit) & 1) throw "mask bit beyond 15 or given twice";
      seen |= 1u << m.bit;
    }
    if (event_row(e.name) != &e) throw "event listed twice";
  }
  constexpr std::uint32_t replay_causes = (1u << 0) | (1u << 1) | (1u << 2) | (1u << 9) | (1u << 10) |
                                          (1u << 15) | (1u << 16) | pebs_enable_bits::uop_tag;
  for (const MetricSpec& m : p4_metric_table) {
    if (!parses(m.downstream) || !parse(m.downstream).event->at_retirement) throw "bad downstream event";
    if (!m.upstream.empty()) {
      if (!parses(m.upstream)) throw "bad upstream event";
      const EventSpec* up = parse(m.upstream).event;
      if (!m.upstream_escr.empty() && m.upstream_escr != up->escrs[0] && m.upstream_escr != up->escrs[1])
        throw "upstream ESCR the event cannot use";
    }
    const bool replay = m.tagging == Tagging::replay;
    if (replay != (m.pebs_enable != 0) || replay != (m.matrix_vert != 0) || (m.pebs_enable & ~replay_causes))
      throw "replay MSRs belong to replay metrics only";
    if ((m.tagging == Tagging::execution) != (m.tag_value != 0)) throw "tag value belongs to execution metrics";
    if (m.tagging != Tagging::replay && m.upstream.empty()) throw "front-end and execution tagging need an upstream event";
    if (find_row<MetricSpec>(p4_metric_table, m.name) != &m) throw "metric listed twice";
  }
  return true;
}
static_assert(rows_are_consistent());
static_assert(std::size(p4_metric_table) == 19, "Tables 19-31, 19-32 and 19-33 have 2 + 8 + 9 metrics");

bool contains_ignoring_case(std::string_view haystack, std::string_view needle) {
  if (needle.empty() || needle.size() > haystack.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i)
    if (same_name(haystack.substr(i, needle.size()), needle)) return true;
  return false;
}

std::string metric_code(const MetricSpec& m) {
  switch (m.tagging) {
    case Tagging::replay:
      return fmt::format("{} PEBS_ENABLE={:#x} MATRIX_VERT={:#x}", m.downstream, m.pebs_enable, m.matrix_vert);
    case Tagging::execution: return fmt::format("{} <- {} tag {}", m.downstream, m.upstream, m.tag_value);
    case Tagging::front_end: return fmt::format("{} <- {}", m.downstream, m.upstream);
  }
  return {};
}

}  // namespace

std::string_view tagging_name(Tagging t) {
  switch (t) {
    case Tagging::front_end: return "front-end";
    case Tagging::execution: return "execution";
    case Tagging::replay: return "replay";
  }
  return "?";
}

std::span<const EscrSpec> escr_table() { return p4_escr_table; }
std::span<const CounterSpec> counter_table() { return p4_counter_table; }
std::span<const EventSpec> event_table() { return p4_event_table; }
std::span<const MetricSpec> metric_table() { return p4_metric_table; }

const EscrSpec* find_escr(std::string_view name) { return escr_row(name); }
const EventSpec* find_event(std::string_view name) { return event_row(name); }
const MetricSpec* find_metric(std::string_view name) { return find_row<MetricSpec>(p4_metric_table, name); }
const CounterSpec* find_counter(unsigned index) {
  return index < std::size(p4_counter_table) ? &p4_counter_table[index] : nullptr;
}
const MaskBitSpec* find_mask_bit(const EventSpec& event, std::string_view name) { return mask_row(event, name); }
ParsedEvent parse_event(std::string_view text) { return parse(text); }

std::vector<std::string_view> closest_names(std::string_view name, std::size_t max) {
  std::vector<std::pair<std::size_t, std::string_view>> scored;
  auto score = [&](std::string_view candidate) {
    // A name that contains what was typed is as good as a one-letter typo.
    const std::size_t d = contains_ignoring_case(candidate, name) ? 1 : edit_distance(name, candidate);
    if (d <= std::max<std::size_t>(3, name.size() / 3)) scored.emplace_back(d, candidate);
  };
  for (const MetricSpec& m : p4_metric_table) score(m.name);
  for (const EventSpec& e : p4_event_table) score(e.name);
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < scored.size() && i < max; ++i) out.push_back(scored[i].second);
  return out;
}

std::span<const EventEntry> event_entries() {
  static const auto entries = [] {
    // The code strings must outlive the views; keep them beside the entries.
    static std::vector<std::string> codes;
    codes.reserve(std::size(p4_metric_table) + std::size(p4_event_table));
    std::vector<EventEntry> out;
    for (const MetricSpec& m : p4_metric_table) {
      codes.push_back(metric_code(m));
      out.push_back(EventEntry{
          .backend = "p4",
          .name = m.name,
          .code = codes.back(),
          .abbreviation = {},
          .description = m.description,
          .predicate = m.predicate,
          .sums = {},
          .kind = SampleKind::op,
          .mechanism = Mechanism::at_retirement_tagging,
          // PEBS works with front_end_event, execution_event and
          // replay_event (SDM 18.15.7), so with every metric.
          .precise = true,
          // front_end_event, execution_event and replay_event count the
          // tagged uops that retire (NBOGUS).
          .unit = CountingUnit::uops,
      });
    }
    for (const EventSpec& e : p4_event_table) {
      codes.push_back(fmt::format("{:#04x}/{}", e.event_select, e.escr_select));
      out.push_back(EventEntry{
          .backend = "p4",
          .name = e.name,
          .code = codes.back(),
          .abbreviation = {},
          .description = e.description,
          .predicate = {},
          .sums = {},
          .kind = SampleKind::op,
          .mechanism = Mechanism::count_only,
          .precise = false,
      });
    }
    return out;
  }();
  return entries;
}

}  // namespace tagop::intel_p4
