#include <tagop/report/columns.hpp>

#include <cctype>    // std::tolower
#include <charconv>  // std::from_chars

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_table
#include <tagop/names.hpp>                   // ascii_lower, trim_space


namespace tagop::report {

namespace {

using amd_ibs::derived_event_table;

// Definitions: what each ratio divides, and by what. The DTLB rates are
// per op with a translated (valid linear) address, the ops whose DTLB bits
// mean something: F203 + F204 + F205.
constexpr RatioSpec ratios[] = {
    {.id = "dc_miss_rate", .title = "DC miss rate",
     .definition = "0xF206 / 0xF200: load/store ops that missed the data cache, per load/store op",
     .numerator = {0xF206}, .denominator = {0xF200}},
    {.id = "mispredict_rate", .title = "Mispredict rate",
     .definition = "0xF104 / 0xF103: mispredicted branches per retired branch",
     .numerator = {0xF104}, .denominator = {0xF103}},
    {.id = "itlb_miss_rate", .title = "ITLB miss rate",
     .definition = "(0xF006 + 0xF007) / 0xF002: fetches that missed the L1 ITLB, per attempted fetch",
     .numerator = {0xF006, 0xF007}, .denominator = {0xF002}},
    {.id = "dtlb_miss_rate", .title = "DTLB miss rate",
     .definition = "(0xF204 + 0xF205) / (0xF203 + 0xF204 + 0xF205): L1 DTLB misses per load/store op with a "
                   "translated address",
     .numerator = {0xF204, 0xF205}, .denominator = {0xF203, 0xF204, 0xF205}},
    {.id = "dtlb_walk_rate", .title = "DTLB walk rate",
     .definition = "0xF205 / (0xF203 + 0xF204 + 0xF205): misses of both DTLB levels (page walks) per load/store op "
                   "with a translated address",
     .numerator = {0xF205}, .denominator = {0xF203, 0xF204, 0xF205}},
    {.id = "avg_dc_miss_latency", .title = "Avg DC miss lat",
     .definition = "0xF219 total / its count: cycles per load that missed the data cache",
     .numerator = {0xF219}, .numerator_sums = true, .denominator = {0xF219}},
    {.id = "avg_tag_to_retire", .title = "Avg tag-to-ret",
     .definition = "0xF101 / 0xF100: tag-to-retire cycles per sampled op",
     .numerator = {0xF101}, .numerator_sums = true, .denominator = {0xF100}},
    {.id = "avg_fetch_latency", .title = "Avg fetch lat",
     .definition = "0xF00E / 0xF002: cycles per attempted fetch",
     .numerator = {0xF00E}, .numerator_sums = true, .denominator = {0xF002}},
};

constexpr ViewSpec views[] = {
    {"overview", "samples, and the DC and branch questions most reports start with",
     "0xF100,0xF000,0xF206,0xF219,0xF104,dc_miss_rate,avg_dc_miss_latency,mispredict_rate"},
    {"fetch", "IBS fetch: attempts, outcomes, ITLB and latency",
     "0xF000,0xF002,0xF003,0xF004,0xF008,0xF006,0xF007,0xF00E,itlb_miss_rate,avg_fetch_latency"},
    {"op", "IBS op: samples and their tag-to-retire and completion-to-retire cycles",
     "0xF100,0xF101,0xF102,avg_tag_to_retire"},
    {"branch", "retired branches, returns and their mispredictions",
     "0xF103,0xF104,0xF105,0xF106,0xF107,0xF108,mispredict_rate"},
    {"dc", "loads and stores in the data cache",
     "0xF200,0xF201,0xF202,0xF206,0xF207,0xF208,0xF20F,0xF219,dc_miss_rate,avg_dc_miss_latency"},
    {"dtlb", "data TLB hits, misses and page sizes",
     "0xF200,0xF203,0xF204,0xF205,0xF211,0xF212,0xF215,0xF216,dtlb_miss_rate,dtlb_walk_rate"},
    {"nb", "where missing loads were served (northbridge / data source)",
     "0xF240,0xF241,0xF242,0xF243,0xF244,0xF245,0xF246,0xF247,0xF24B,0xF24C"},
    {"all", "every derived event and every ratio", ""},
};

std::string trim(std::string_view s) { return std::string(trim_space(s)); }

std::optional<std::size_t> event_index(std::uint16_t select) {
  const auto table = derived_event_table();
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i].select == select) return i;
  return std::nullopt;
}

Column event_column(std::size_t i) {
  const auto& e = derived_event_table()[i];
  return Column{amd_ibs::select_string(e.select), std::string(e.abbreviation), i, nullptr,
                !e.sums.empty(), {}};
}

Column ratio_column(const RatioSpec& r) { return Column{std::string(r.id), std::string(r.title), std::nullopt, &r, false, {}}; }

// Fetch and op samples: 0xF000 and 0xF100 count every sample of their unit.
Column ibs_samples_column() {
  return Column{"samples", "Samples", std::nullopt, nullptr, false, {*event_index(0xF000), *event_index(0xF100)}};
}

}  // namespace

std::span<const RatioSpec> ratio_table() { return ratios; }
std::span<const ViewSpec> view_table() { return views; }

Column resolve_column(std::string_view token) {
  const std::string t = ascii_lower(trim(token));
  std::string_view hex = t;
  if (hex.starts_with("0x")) hex.remove_prefix(2);
  if (hex.size() == 4 && hex[0] == 'f') {
    unsigned v = 0;
    const auto [end, ec] = std::from_chars(hex.data(), hex.data() + 4, v, 16);
    if (ec == std::errc{} && end == hex.data() + 4) {
      if (auto i = event_index(static_cast<std::uint16_t>(v))) return event_column(*i);
      throw ColumnError(fmt::format("there is no IBS derived event 0x{:04X} (see 'tagop events list --backend amd-ibs')", v));
    }
  }
  const auto table = derived_event_table();
  for (std::size_t i = 0; i < table.size(); ++i)
    if (ascii_lower(table[i].name) == t || ascii_lower(table[i].abbreviation) == t) return event_column(i);
  for (const RatioSpec& r : ratios)
    if (r.id == t) return ratio_column(r);
  if (t == "samples") return ibs_samples_column();
  std::string ratio_names;
  for (const RatioSpec& r : ratios) ratio_names += (ratio_names.empty() ? "" : ", ") + std::string(r.id);
  throw ColumnError(fmt::format("unknown column '{}': give a derived event's select value (0xF206), name or "
                          "abbreviation ('IBS DC miss'), 'samples', or a ratio: {}",
                          trim(token), ratio_names));
}

std::vector<Column> resolve_columns(std::string_view list) {
  std::vector<Column> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::string_view part = list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!trim(part).empty()) out.push_back(resolve_column(part));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (out.empty()) throw ColumnError("--events needs at least one event or ratio");
  return out;
}

std::vector<Column> view_columns(std::string_view view) {
  for (const ViewSpec& v : views) {
    if (v.name != view) continue;
    if (v.name == "all") {
      std::vector<Column> out;
      for (std::size_t i = 0; i < derived_event_table().size(); ++i) out.push_back(event_column(i));
      for (const RatioSpec& r : ratios) out.push_back(ratio_column(r));
      return out;
    }
    return resolve_columns(v.columns);
  }
  std::string names;
  for (const ViewSpec& v : views) names += (names.empty() ? "" : ", ") + std::string(v.name);
  throw ColumnError(fmt::format("unknown view '{}': expected one of {}", view, names));
}

Column resolve_event_column(std::span<const std::string> events, std::string_view token) {
  const std::string t = trim(token);
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i] == t) return Column{events[i], events[i], i, nullptr, true, {}, events.size()};
    all.push_back(i);
  }
  if (ascii_lower(t) == "samples") return Column{"samples", "Samples", std::nullopt, nullptr, false, all, events.size()};
  std::string names;
  for (const std::string& e : events) names += (names.empty() ? "" : ", ") + e;
  throw ColumnError(fmt::format("unknown column '{}': this capture has no IBS events; sort by 'samples' or by an "
                                "event: {}",
                                t, names));
}

std::vector<std::size_t> Column::queries() const {
  if (!samples_of.empty()) return samples_of;
  if (event) return {*event};
  std::vector<std::size_t> out;
  for (const auto* part : {&ratio->numerator, &ratio->denominator})
    for (std::uint16_t sel : *part)
      if (sel) out.push_back(*event_index(sel));
  return out;
}

std::optional<double> column_value(const Column& c, std::span<const QueryResult> results) {
  if (!c.samples_of.empty()) {
    double n = 0;
    for (std::size_t q : c.samples_of) n += static_cast<double>(results[q].count);
    return n;
  }
  if (c.event) {
    const QueryResult& r = results[*c.event];
    if (!r.available()) return std::nullopt;
    return static_cast<double>(c.total ? r.total : r.count);
  }
  const RatioSpec& ratio = *c.ratio;
  double num = 0, den = 0;
  for (std::uint16_t sel : ratio.numerator) {
    if (sel == 0) continue;
    const QueryResult& r = results[*event_index(sel)];
    if (!r.available()) return std::nullopt;
    num += static_cast<double>(ratio.numerator_sums ? r.total : r.count);
  }
  for (std::uint16_t sel : ratio.denominator) {
    if (sel == 0) continue;
    const QueryResult& r = results[*event_index(sel)];
    if (!r.available()) return std::nullopt;
    den += static_cast<double>(r.count);
  }
  if (den == 0) return std::nullopt;
  return num / den;
}

}  // namespace tagop::report
