// `tagop report` rows as a profile (pprof, folded stacks) and as the HTML page.

#include "report_export.hpp"

#include <cctype>         // std::isalnum
#include <cmath>          // std::llround
#include <cstdlib>        // std::atoll
#include <memory>         // std::make_shared
#include <unordered_map>  // locations by row

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_table
#include <tagop/error.hpp>                   // Error
#include <tagop/estimate.hpp>                // estimate_from_samples
#include <tagop/measures.hpp>                // find_measure
#include <tagop/profiles/folded.hpp>         // write_folded
#include <tagop/profiles/html.hpp>           // HtmlPage
#include <tagop/profiles/pprof.hpp>          // write_pprof
#include <tagop/profiles/progress.hpp>       // ProgressBar

namespace tagop::cli {

namespace {

using amd_ibs::derived_event_table;
using amd_ibs::IbsUnit;
using report::Column;
using report::Report;

// "IBS DC miss load latency" -> "ibs_dc_miss_load_latency": a name pprof's
// -sample_index and SQL engines take without quotes.
std::string snake(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

// The unit a derived event's value is in: its measure's, or a count.
std::string event_unit(const amd_ibs::IbsDerivedEventSpec& e) {
  if (e.sums.empty()) return "count";
  const std::optional<Measure> m = find_measure(e.sums);
  return m ? std::string(measure_table[m->index].unit) : "count";
}

// One sample type of the profile and how a row's results give its value.
struct Source {
  profiles::SampleType type;
  std::vector<std::size_t> queries;  // their counts (or totals) summed
  bool total = false;
};

// A capture without IBS: each event's samples and periods (perf report's
// numbers), in the period's own units.
std::string period_unit(std::string_view event) {
  return event.find("clock") != std::string_view::npos ? "nanoseconds" : "count";
}

std::vector<Source> sources_of(const Report& r, const ReportView& v) {
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
    out.push_back({{snake(e.name), event_unit(e), period > 0 ? period : 1}, {*c.event}, c.total});
  }
  if (!v.where.empty()) {
    // The predicate's samples: a count of ops (or fetches) where it tests
    // one unit's conditions, scaled by that unit's period.
    const report::Counts& n = r.counts();
    const double period = n.kept_fetch == 0   ? r.period(IbsUnit::op).value
                          : n.kept_op == 0 ? r.period(IbsUnit::fetch).value
                                           : 1;
    out.push_back({{"where", "count", period > 0 ? period : 1}, report::resolve_column("samples").samples_of, false});
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
    const report::Row row = r_.row(row_id);
    profiles::Location l;
    if (!row.module.empty()) l.mapping = p_.add_mapping({0, 0, 0, row.module, row.build_id});
    if (row.has_offset) l.address = row.offset;
    profiles::Frame f;
    f.function = row.name;
    if (r_.by() == report::GroupBy::line) {
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

profiles::Profile profile_of(const Report& r, const ReportView& v) {
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

  const std::vector<std::uint32_t> rows = r.select(v.sort, v.export_top);
  check_values("the profile", rows.size(), sources.size(), v);
  Locations locations(r, p);
  std::vector<std::int64_t> values(sources.size());
  std::vector<profiles::LocationId> stack;
  for (std::uint32_t id : rows) {
    const report::Row row = r.row(id);
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

std::optional<std::size_t> sort_sample_type(const Report& r, const ReportView& v) {
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

namespace {

// A column of the page: how it is shown, and a row's cell.
struct PageColumn {
  profiles::TableColumn heading;
  Column column;
};

std::vector<PageColumn> page_columns(const Report& r, const ReportView& v) {
  std::vector<PageColumn> out;
  if (!r.ibs()) {
    const std::vector<std::string>& events = r.query_names();
    for (const std::string& e : events) {
      out.push_back({{e, e, period_unit(e), "the periods of " + e + "'s samples, as perf report counts them",
                      profiles::ColumnKind::count},
                     report::resolve_event_column(events, e)});
    }
    return out;
  }
  const auto table = derived_event_table();
  for (const Column& c : v.columns) {
    profiles::TableColumn h{c.id, c.title, "", "", profiles::ColumnKind::count};
    if (c.event) {
      h.unit = c.total ? event_unit(table[*c.event]) : "samples";
      h.description = std::string(table[*c.event].description);
    } else if (c.ratio) {
      h.kind = c.ratio->numerator_sums ? profiles::ColumnKind::mean : profiles::ColumnKind::ratio;
      h.unit = c.ratio->numerator_sums ? "cycles" : "";
      h.description = std::string(c.ratio->definition);
    } else {
      h.unit = "samples";
      h.description = "fetch and op samples";
    }
    out.push_back({h, c});
  }
  return out;
}

std::uint64_t counts_of(std::span<const std::uint16_t> selects, const std::vector<QueryResult>& results) {
  const auto table = derived_event_table();
  std::uint64_t n = 0;
  for (std::uint16_t s : selects) {
    if (!s) continue;
    const amd_ibs::IbsDerivedEventSpec* e = amd_ibs::find_derived_event(s);
    if (e) n += results[static_cast<std::size_t>(e - table.data())].count;
  }
  return n;
}

std::optional<profiles::Interval> cell(const Report& r, const PageColumn& pc, const std::vector<QueryResult>& results) {
  const std::optional<double> value = r.value(pc.column, results);
  if (!value) return std::nullopt;
  profiles::Interval out{*value};
  const Column& c = pc.column;
  if (r.ibs() && c.event && !c.total) {
    // Samples, with the interval of the ops they stand for, in samples.
    const double period = r.period(derived_event_table()[*c.event].unit).value;
    if (period > 0) {
      const Estimate e = estimate_from_samples(results[*c.event].count, period);
      out.low = e.low / period;
      out.high = e.high / period;
    }
  } else if (c.ratio && !c.ratio->numerator_sums) {
    const profiles::Interval p =
        profiles::proportion_interval(counts_of(c.ratio->numerator, results), counts_of(c.ratio->denominator, results));
    out.low = p.low;
    out.high = p.high;
  }
  return out;
}

std::string row_title(report::GroupBy by) {
  return by == report::GroupBy::line ? "source line" : by == report::GroupBy::callchain ? "call chain"
                                                                                          : std::string(report::name_of(by));
}

}  // namespace

void write_report_html(const Report& table, const Report& stacks, const ReportView& v, std::ostream& out) {
  profiles::HtmlPage page;
  page.title = fmt::format("{} report of {}", table.ibs() ? "IBS" : "perf", v.file);
  if (table.ibs())
    page.notes.push_back(fmt::format("processor: AMD family {:#x} model {:#x} ({})", table.cpu().family,
                                     table.cpu().model, v.cpu_source));
  for (IbsUnit u : {IbsUnit::fetch, IbsUnit::op})
    if (table.ibs())
      if (const report::UnitPeriod p = table.period(u); p.value > 0)
        page.notes.push_back(fmt::format("{} period: {:.0f} {} ({})", u == IbsUnit::fetch ? "fetch" : "op", p.value,
                                         p.unit, p.source));
  if (!v.filters.empty() || !v.where.empty()) {
    std::string f;
    for (const std::string& s : v.filters) f += (f.empty() ? "" : ", ") + s;
    if (!v.where.empty()) f += (f.empty() ? "where " : ", where ") + v.where;
    page.notes.push_back("filters: " + f);
  }
  if (!v.emulated.empty()) page.notes.push_back(v.emulated);
  if (v.children) page.notes.push_back("values include each row's callees' (--children)");

  const std::vector<PageColumn> columns = page_columns(table, v);
  page.table.row_title = row_title(table.by());
  check_values("the HTML page's table", v.rows.size(), columns.size(), v);
  for (const PageColumn& c : columns) page.table.columns.push_back(c.heading);
  auto make_row = [&](std::string name, std::string module, const std::vector<QueryResult>& results) {
    profiles::TableRow row{std::move(name), std::move(module), {}};
    for (const PageColumn& c : columns) row.cells.push_back(cell(table, c, results));
    return row;
  };
  for (std::uint32_t id : v.rows) {
    const report::Row row = table.row(id);
    page.table.rows.push_back(make_row(row.name, row.module, v.children ? row.children : row.results));
  }
  page.table.total = make_row("total", "", table.totals());

  const profiles::Profile profile = profile_of(stacks, v);
  page.profile = &profile;
  page.flame_sample_type = sort_sample_type(stacks, v).value_or(0);
  profiles::write_html(page, out);
}

report::GroupBy stacks_by(const perf_data::FileInfo& info) {
  for (const perf_data::EventAttr& a : info.attrs)
    if (a.attr.sample_type & PERF_SAMPLE_CALLCHAIN) return report::GroupBy::callchain;
  return report::GroupBy::function;
}

void write_profile_export(ExportFormat format, const Report& stacks, const ReportView& v, const std::string& path) {
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

std::function<void(std::uint64_t, std::uint64_t)> progress_of(const perf_data::PerfDataReader& reader,
                                                               const std::string& label) {
  auto bar = std::make_shared<profiles::ProgressBar>(label, reader.info().header.data.size, "bytes");
  if (!bar->active()) return {};
  return [bar](std::uint64_t done, std::uint64_t total) {
    if (done >= total) bar->finish();
    else bar->update(done);
  };
}

}  // namespace tagop::cli
