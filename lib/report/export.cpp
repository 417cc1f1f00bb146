// A report's rows as a profile (pprof, folded stacks), as `tagop report
// --format pprof|folded` writes them.

#include <tagop/report/export.hpp>

#include <cmath>          // std::llround
#include <cstdlib>        // std::atoll
#include <unordered_map>  // locations by row

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_table
#include <tagop/error.hpp>                   // Error
#include <tagop/profiles/folded.hpp>         // write_folded
#include <tagop/profiles/pprof.hpp>          // write_pprof

#include "export_units.hpp"  // event_unit, period_unit, sample_type_name

namespace tagop::report {

namespace {

using amd_ibs::derived_event_table;
using amd_ibs::IbsUnit;

// One sample type of the profile and how a row's results give its value.
struct Source {
  profiles::SampleType type;
  std::vector<std::size_t> queries;  // their counts (or totals) summed
  bool total = false;
};

std::vector<Source> sources_of(const Report& r, const ExportView& v) {
  std::vector<Source> out;
  if (!r.ibs()) {
    const std::vector<std::string>& events = r.query_names();
    for (std::size_t q = 0; q < events.size(); ++q) {
      out.push_back({{events[q], period_unit(events[q]), 1}, {q}, true});
      out.push_back({{events[q] + "_samples", "count", 1}, {q}, false});
    }
    return out;
  }
  const auto table = derived_event_table();
  for (const Column& c : v.columns) {
    if (!c.event) continue;
    const amd_ibs::IbsDerivedEventSpec& e = table[*c.event];
    const double period = r.period(e.unit).value;
    out.push_back({{sample_type_name(e.name), event_unit(e), period > 0 ? period : 1}, {*c.event}, c.total});
  }
  if (!v.where.empty()) {
    // The predicate's samples: a count of ops (or fetches) where it tests
    // one unit's conditions, scaled by that unit's period.
    const Counts& n = r.counts();
    const double period = n.kept_fetch == 0   ? r.period(IbsUnit::op).value
                          : n.kept_op == 0 ? r.period(IbsUnit::fetch).value
                                           : 1;
    out.push_back({{"where", "count", period > 0 ? period : 1}, resolve_column("samples").samples_of, false});
  }
  return out;
}

std::int64_t value_of(const Source& s, const std::vector<QueryResult>& results) {
  // At most INT64_MAX (pprof's values are int64), however large the periods.
  std::int64_t sum = 0;
  for (std::size_t q : s.queries)
    if (results[q].available()) {
      const std::uint64_t v = s.total ? results[q].total : results[q].count;
      sum = profiles::saturating_add(sum, static_cast<std::int64_t>(std::min<std::uint64_t>(v, INT64_MAX)));
    }
  return sum;
}

// The locations of a report's rows, each made once.
class Locations {
 public:
  Locations(const Report& r, profiles::Profile& p) : r_(r), p_(p) {}

  profiles::LocationId of(std::uint32_t row_id) {
    auto it = ids_.find(row_id);
    if (it != ids_.end()) return it->second;
    const Row row = r_.row(row_id);
    profiles::Location l;
    if (!row.module.empty()) l.mapping = p_.add_mapping({0, 0, 0, row.module, row.build_id});
    if (row.has_offset) l.address = row.offset;
    profiles::Frame f;
    f.function = row.name;
    if (r_.by() == GroupBy::line) {
      // "file:line": pprof shows both apart.
      const std::size_t colon = row.name.rfind(':');
      if (colon != std::string::npos) {
        f.file = row.name.substr(0, colon);
        f.line = std::atoll(row.name.c_str() + colon + 1);
      }
    }
    l.frames.push_back(std::move(f));
    return ids_[row_id] = p_.add_location(l);
  }

 private:
  const Report& r_;
  profiles::Profile& p_;
  std::unordered_map<std::uint32_t, profiles::LocationId> ids_;
};

}  // namespace

ExportFormat parse_export_format(std::string_view name) {
  if (name == "pprof") return ExportFormat::pprof;
  if (name == "folded") return ExportFormat::folded;
  if (name == "jsonl") return ExportFormat::jsonl;
  return ExportFormat::none;
}

std::vector<std::string> export_format_names() { return {"pprof", "folded", "jsonl"}; }

void check_values(std::string_view what, std::uint64_t rows, std::uint64_t columns, std::uint64_t max_values) {
  if (max_values == 0 || columns == 0 || rows <= max_values / columns) return;
  throw Error(ErrorCode::resource,
              fmt::format("{}: {} rows x {} columns would be {} values, more than --max-values {}, a bound that keeps "
                          "an output in proportion to its capture: give --top N for the first N rows by the sort "
                          "column (--top {} fits), or a larger --max-values (0: no bound)",
                          what, rows, columns, rows > UINT64_MAX / columns ? UINT64_MAX : rows * columns, max_values,
                          max_values / columns));
}

profiles::Profile profile_of(const Report& r, const ExportView& v) {
  const std::vector<Source> sources = sources_of(r, v);
  if (sources.empty())
    throw Error("the chosen columns hold no derived event (ratios alone make no profile): add one with --events");
  std::vector<profiles::SampleType> types;
  for (const Source& s : sources) types.push_back(s.type);
  profiles::Profile p(types);
  if (r.ibs()) {
    p.period_type = {"ops", "count"};
    p.period = std::llround(r.period(IbsUnit::op).value);
    p.comments.push_back(fmt::format("IBS on AMD family {:#x} model {:#x}: values are samples x period, tagop's "
                                     "estimates",
                                     r.cpu().family, r.cpu().model));
  } else {
    const QueryResult& first = r.totals().front();
    p.period_type = {r.query_names().front(), period_unit(r.query_names().front())};
    p.period = first.count ? static_cast<std::int64_t>(first.total / first.count) : 0;
  }
  if (!v.where.empty()) p.comments.push_back("where: " + v.where);
  if (!v.emulated.empty()) p.comments.push_back(v.emulated);
  p.comments.push_back("capture: " + v.file);
  p.default_sample_type = sort_sample_type(r, v);

  const std::vector<std::uint32_t> rows = r.select(v.sort, v.top);
  check_values("the profile", rows.size(), sources.size(), v.max_values);
  Locations locations(r, p);
  std::vector<std::int64_t> values(sources.size());
  std::vector<profiles::LocationId> stack;
  for (std::uint32_t id : rows) {
    const Row row = r.row(id);
    bool any = false;
    for (std::size_t i = 0; i < sources.size(); ++i) any |= (values[i] = value_of(sources[i], row.results)) != 0;
    if (!any) continue;
    stack.clear();
    const std::vector<std::uint32_t> frames = r.frames(id);
    for (auto it = frames.rbegin(); it != frames.rend(); ++it) stack.push_back(locations.of(*it));  // leaf first
    // Rows split by process carry its pid and comm; a row sums its samples
    // over the process's threads and CPUs (tid and cpu labels would need
    // a pass over every sample, as --format jsonl makes).
    profiles::Labels labels;
    if (r.by_process()) labels = {.pid = row.pid, .comm = row.comm};
    p.add_sample(values, stack, labels);
  }
  return p;
}

std::optional<std::size_t> sort_sample_type(const Report& r, const ExportView& v) {
  if (!r.ibs()) {
    // The sort column is an event's periods (or every event's samples).
    const std::vector<std::string>& events = r.query_names();
    for (std::size_t q = 0; q < events.size(); ++q)
      if (v.sort.event == q) return 2 * q;
    return 1;
  }
  if (!v.sort.event) return std::nullopt;
  std::size_t index = 0;
  for (const Column& c : v.columns) {
    if (!c.event) continue;
    if (*c.event == *v.sort.event && c.total == v.sort.total) return index;
    ++index;
  }
  return std::nullopt;
}

GroupBy stacks_by(const perf_data::FileInfo& info) {
  for (const perf_data::EventAttr& a : info.attrs)
    if (a.attr.sample_type & PERF_SAMPLE_CALLCHAIN) return GroupBy::callchain;
  return GroupBy::function;
}

void write_profile_export(ExportFormat format, const Report& stacks, const ExportView& v, const std::string& path) {
  if (format != ExportFormat::pprof && format != ExportFormat::folded)
    throw Error("write_profile_export: a profile is written as pprof or folded stacks (JSON lines: write_sample_lines)");
  const profiles::Profile profile = profile_of(stacks, v);
  ExportTarget target(path);
  if (format == ExportFormat::pprof) {
    profiles::write_pprof(profile, target.stream());
  } else {
    const std::optional<std::size_t> type = sort_sample_type(stacks, v);
    if (!type)
      throw Error(fmt::format("--format folded: the stacks' values are one event's, and --sort {} is not an event "
                              "(a ratio, or every unit's samples): sort by an event (--sort 0xF206)",
                              v.sort.id));
    profiles::write_folded(profile, target.stream(), {.sample_type = *type});
  }
  target.commit();
}

}  // namespace tagop::report
