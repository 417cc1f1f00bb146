// `tagop report` as text, CSV and JSON.

#include "report_output.hpp"

#include <algorithm>  // std::find
#include <array>   // std::array
#include <cmath>   // std::llround, std::fabs
#include <cstdio>  // std::fwrite

#include <fmt/format.h>       // fmt::print
#include <fmt/ranges.h>       // fmt::join
#include <nlohmann/json.hpp>  // JSON output

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_table
#include <tagop/estimate.hpp>                // estimate_from_samples

#include "output.hpp"
#include "report_records.hpp"  // IbsReport, EventsReport

namespace tagop::cli {

namespace {

using record::json;
using amd_ibs::derived_event_table;
using amd_ibs::IbsUnit;
using report::Column;
using report::Report;

}  // namespace

const char* const report_estimate_note =
    "Estimates are IBS sample counts times the sampling period, with a 95% Poisson score interval; they count "
    "sampled ops (or fetches), and are never to be added to, subtracted from or compared with event counts "
    "(CodeAnalyst: arithmetic between IBS derived events and event-based samples is not meaningful).";

namespace {

// With --children, a row's values with its callees'. The engine leaves
// Row::children empty where there is nothing to add, by process or by call
// chain (a process's callees are its own, as perf's Children = Self there).
const std::vector<QueryResult>& shown(const report::Row& row, const ReportView& v) {
  return v.children && !row.children.empty() ? row.children : row.results;
}

// The periods of the two units, made once per printing.
struct Periods {
  explicit Periods(const Report& r) : units{r.period(IbsUnit::fetch), r.period(IbsUnit::op)} {}
  std::array<report::UnitPeriod, 2> units;
  /// A derived event's.
  const report::UnitPeriod& of(std::size_t event) const {
    return units[static_cast<std::size_t>(derived_event_table()[event].unit)];
  }
};

bool is_rate(const Column& c) { return c.ratio && !c.ratio->numerator_sums; }

std::string text_value(const Column& c, const std::optional<double>& v) {
  if (!v) return "n/a";
  if (is_rate(c)) return fmt::format("{:.2f}%", *v * 100);
  if (c.ratio) return fmt::format("{:.1f}", *v);
  return fmt::format("{}", static_cast<std::uint64_t>(std::llround(*v)));
}

std::string csv_value(const Column& c, const std::optional<double>& v) {
  if (!v) return "";
  if (c.ratio) return fmt::format("{:.6g}", *v);
  return fmt::format("{}", static_cast<std::uint64_t>(std::llround(*v)));
}

std::optional<record::Number> column_number(const Column& c, const std::optional<double>& v) {
  if (!v) return std::nullopt;
  if (c.ratio) return record::Number{*v};
  return record::Number{static_cast<std::uint64_t>(std::llround(*v))};
}

std::string percent(double p) { return fmt::format("{:.2f}%", p); }

// 1234567 -> "1.23M"
std::string human(double v) {
  const char* suffix[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 5) v /= 1000, ++i;
  return i == 0 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}{}", v, suffix[i]);
}

std::string by_title(report::GroupBy by) {
  return by == report::GroupBy::line ? "source line" : by == report::GroupBy::callchain ? "call chain"
                                                                                          : std::string(report::name_of(by));
}

// The rows' keys, as a title: "process, module, function".
std::string keys_title(const Report& r) {
  std::vector<std::string> titles;
  for (report::GroupBy k : r.keys()) titles.push_back(by_title(k));
  return fmt::format("{}", fmt::join(titles, ", "));
}

bool has_key(const Report& r, report::GroupBy key) {
  return std::find(r.keys().begin(), r.keys().end(), key) != r.keys().end();
}

std::optional<UnitPeriodRecord> period_record(const report::UnitPeriod& p) {
  if (p.value == 0) return std::nullopt;
  return UnitPeriodRecord{p.value, p.unit, p.source};
}

std::optional<SamplingFilterRecord> filter_record(const amd_ibs::SamplingFilter& f) {
  if (!f.any()) return std::nullopt;
  return SamplingFilterRecord{f.l3_miss_only, f.load_latency ? std::optional(f.load_latency) : std::nullopt,
                              f.population.to_string(), f.text};
}

std::optional<EstimateRecord> estimate_record(const QueryResult& q, const report::UnitPeriod& p, bool biased) {
  if (!q.available() || p.value == 0 || biased) return std::nullopt;
  const Estimate e = estimate_from_samples(q.count, p.value);
  return EstimateRecord{q.count, e.value, e.low, e.high, p.unit};
}

// `name` cut to `width` columns with "..." at the end, never inside an
// escape printable() wrote (\xNN) or a UTF-8 sequence.
std::string shortened(const std::string& name, std::size_t width) {
  if (name.size() <= width) return name;
  std::size_t cut = width - 3;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  for (std::size_t i = cut >= 3 ? cut - 3 : 0; i < cut; ++i)
    if (name.compare(i, 2, "\\x") == 0) {
      cut = i;
      break;
    }
  return name.substr(0, cut) + "...";
}

// A call chain's name cut in the middle to about `width` columns: its
// start, "...", and its end, which keeps the leaf (the last frame, after
// the last ';') whole however long it is.
std::string shortened_chain(const std::string& name, std::size_t width) {
  if (name.size() <= width) return name;
  const std::size_t semicolon = name.rfind(';');
  const std::size_t leaf = semicolon == std::string::npos ? name.size() : name.size() - semicolon - 1;
  const std::size_t head = width / 3, tail = std::max(width > head + 3 ? width - head - 3 : 0, leaf);
  if (head + 3 + tail >= name.size()) return name;
  std::size_t from = name.size() - tail;  // the tail's start, moved on past a sequence or an escape
  while (from < name.size() && (static_cast<unsigned char>(name[from]) & 0xC0) == 0x80) ++from;
  for (std::size_t i = from >= 3 ? from - 3 : 0; i < from; ++i)
    if (name.compare(i, 2, "\\x") == 0) {
      from = i + 4;
      break;
    }
  return shortened(name, head + 3) + name.substr(std::min(from, name.size()));
}

// A table: the first column left-aligned, cut to `name_width` (0: whole;
// a call chain's in the middle, `chains`), the others right-aligned; the
// last line (the total) under a rule. The rows are made twice (once for
// the widths) rather than all kept.
template <typename Line>
void print_table(const std::vector<std::string>& header, std::size_t rows, Line line, const std::vector<std::string>& total,
                 std::size_t name_width, bool chains) {
  auto name_of = [&](const std::vector<std::string>& cells) {
    const std::string name = printable(cells[0]);
    if (name_width == 0) return name;
    return chains ? shortened_chain(name, name_width) : shortened(name, std::max<std::size_t>(name_width, 4));
  };
  std::vector<std::size_t> width(header.size());
  auto widen = [&](const std::vector<std::string>& cells) {
    width[0] = std::max(width[0], name_of(cells).size());
    for (std::size_t i = 1; i < cells.size(); ++i)
      width[i] = std::max(width[i], printable(cells[i]).size());
  };
  widen(header);
  for (std::size_t i = 0; i < rows; ++i) widen(line(i));
  widen(total);
  auto print_line = [&](const std::vector<std::string>& cells) {
    fmt::print("{:<{}}", name_of(cells), width[0]);
    for (std::size_t i = 1; i < cells.size(); ++i) fmt::print("  {:>{}}", printable(cells[i]), width[i]);
    fmt::print("\n");
  };
  print_line(header);
  for (std::size_t i = 0; i < rows; ++i) print_line(line(i));
  std::size_t all = width[0];
  for (std::size_t w = 1; w < width.size(); ++w) all += 2 + width[w];
  fmt::print("{}\n", std::string(all, '-'));
  print_line(total);
}

// A report record's JSON, its "rows" (last, and left empty in `report`)
// made one at a time as printed, each on a line of its own: `row(i)` is
// the record of the i-th.
template <typename Record, typename RowRecord>
void print_json_rows(const Record& report, std::size_t rows, RowRecord row) {
  json head = record::to_json(report);
  head.erase("rows");
  std::string text = head.dump(2, ' ', false, json::error_handler_t::replace);
  text.resize(text.size() - 2);  // "\n}"
  fmt::print("{},\n  \"rows\": [", text);
  for (std::size_t i = 0; i < rows; ++i) {
    std::string line = i ? ",\n    " : "\n    ";
    line += record::to_json(row(i)).dump(-1, ' ', false, json::error_handler_t::replace);
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
  fmt::print("{}]\n}}\n", rows ? "\n  " : "");
}

// What IBS and other captures' reports share (report_records.hpp).
ReportCommon common_record(const Report& r, const ReportView& v) {
  const report::Counts& n = r.counts();
  const perf_data::Skipped& skipped = r.skipped();
  const perf_data::ReadSummary& read = r.read_summary();
  ReportCommon c{};
  c.file = v.file;
  c.filters = v.filters;
  if (!v.where.empty()) c.where = v.where;
  c.sample_counts = r.ibs() ? ReadAndKept{n.read_fetch + n.read_op, n.kept_fetch + n.kept_op} : ReadAndKept{n.read, n.kept};
  if (!v.emulated.empty()) c.emulated = v.emulated;
  c.by = {report::name_of(r.by())};
  if (r.keys().size() > 1) {
    std::vector<std::string>& keys = c.keys.emplace();
    for (report::GroupBy k : r.keys()) keys.emplace_back(report::name_of(k));
  }
  c.sort = v.sort.id;
  c.row_count = r.row_count();
  c.children = v.children;
  c.callchains = r.content().callchains;
  c.skipped = {skipped.count, skipped.count ? std::optional(skipped.first_offset) : std::nullopt,
               skipped.count ? std::optional(skipped.first_reason) : std::nullopt};
  c.truncated = r.truncated();
  c.unread_bytes = read.unread_bytes;
  c.resyncs = read.resyncs;
  c.shrunk_to = read.shrunk_to;
  c.damaged_features = v.damaged_features;
  c.lost = r.lost();
  c.warnings = r.warnings();
  return c;
}

ReportRowName row_name(const report::Row& row, const Report& r) {
  ReportRowName name{row.name, {}, {}, {}, {}, {}, {}, {}, {}};
  using report::GroupBy;
  const bool several = r.keys().size() > 1;
  // One key as before: a process's pid, else a module; with several (or
  // by thread) the pid and comm of a process or thread key too.
  const bool process = has_key(r, GroupBy::process) || has_key(r, GroupBy::thread);
  if (r.by() == GroupBy::process || process) name.pid.emplace(row.pid);
  if (process && (several || r.by() == GroupBy::thread)) name.comm.emplace(row.comm);
  if (r.by() != GroupBy::process && r.by() != GroupBy::callchain && r.by() != GroupBy::thread &&
      r.by() != GroupBy::cpu)
    name.module.emplace(row.module);
  if (row.has_offset) name.offset.emplace(record::Hex{row.offset});
  if (row.tid) name.tid.emplace(*row.tid);
  if (row.cpu) name.cpu.emplace(*row.cpu);
  if (several) name.parts.emplace(row.parts);
  if (const std::optional<report::LineDetail> line = r.line(row.id)) name.cache_line.emplace(cache_line_record(*line));
  return name;
}

// IBS captures.

// The derived events the columns read (a ratio's parts too), each once.
std::vector<std::size_t> events_read(const std::vector<Column>& columns) {
  std::vector<std::size_t> out;
  for (const Column& c : columns) {
    if (!c.samples_of.empty()) continue;
    for (std::size_t q : c.queries())
      if (std::find(out.begin(), out.end(), q) == out.end()) out.push_back(q);
  }
  return out;
}

}  // namespace

// Per sample, not per capture: an event that some samples could not decide
// is counted over the others, and says so; each reason once, numbered.
void print_undecided(const std::vector<Column>& columns, std::span<const QueryResult> totals,
                     const std::function<std::vector<std::string>(std::size_t)>& why) {
  std::vector<std::string> reasons;
  bool first = true;
  for (std::size_t q : events_read(columns)) {
    const QueryResult& t = totals[q];
    if (t.undecided == 0) continue;
    if (first)
      fmt::print("\nUndecided samples, not in the counts above (each count is of the samples that decided its "
                 "event):\n");
    first = false;
    const auto& e = derived_event_table()[q];
    std::vector<std::size_t> refs;
    for (const std::string& reason : why(q)) {
      const auto at = std::find(reasons.begin(), reasons.end(), reason);
      refs.push_back(static_cast<std::size_t>(at - reasons.begin()) + 1);
      if (at == reasons.end()) reasons.push_back(reason);
    }
    fmt::print("  {} {}: {}{} {} sample{}{}\n", amd_ibs::select_string(e.select), e.abbreviation,
               t.available() ? "" : "n/a, none counted of ", t.undecided, e.unit == IbsUnit::fetch ? "fetch" : "op",
               t.undecided == 1 ? "" : "s", refs.empty() ? "" : fmt::format(" [{}]", fmt::join(refs, ", ")));
  }
  for (std::size_t i = 0; i < reasons.size(); ++i) fmt::print("  [{}] {}\n", i + 1, reasons[i]);
}

namespace {

void ibs_text(const Report& r, const ReportView& v) {
  const report::Counts& n = r.counts();
  const Periods periods(r);
  fmt::print("IBS report of {}\n", printable(v.file));
  if (!v.emulated.empty()) fmt::print("capture: {}\n", printable(v.emulated));
  fmt::print("processor: {} (from {})\n", r.cpu().to_string(), v.cpu_source);
  fmt::print("IBS samples: {} fetch, {} op", n.kept_fetch, n.kept_op);
  if (n.kept_fetch != n.read_fetch || n.kept_op != n.read_op)
    fmt::print(" (of {} fetch, {} op read; filtered by {}{}{})", n.read_fetch, n.read_op, fmt::join(v.filters, ", "),
               v.filters.empty() || v.where.empty() ? "" : ", ", v.where.empty() ? "" : "where " + v.where);
  fmt::print("\n");
  for (IbsUnit unit : {IbsUnit::fetch, IbsUnit::op}) {
    const report::UnitPeriod& p = periods.units[static_cast<std::size_t>(unit)];
    const char* name = unit == IbsUnit::fetch ? "fetch" : "op";
    if (p.value != 0) fmt::print("{} period: {:.0f} {} ({})\n", name, p.value, p.unit, p.source);
    if (const amd_ibs::SamplingFilter& f = r.filter(unit); f.any())
      fmt::print("{} filter: {}: every {} sample meets {}\n", name, f.text, name, f.population.to_string());
  }
  fmt::print("\n{} rows by {}{}, sorted by {} ({}){}\n\n", r.row_count(), keys_title(r),
             v.rows.size() < r.row_count() ? fmt::format(", the first {}", v.rows.size()) : "", printable(v.sort.id),
             v.sort.title, v.children ? ", each with its callees' samples (--children)" : "");

  std::vector<std::string> header{keys_title(r), v.children ? "Children" : "Overhead"};
  if (v.children) header.push_back("Self");
  for (const Column& c : v.columns) header.push_back(c.title);
  std::vector<report::Row> rows;
  auto cells = [&](const std::string& name, const std::vector<QueryResult>& values, const std::vector<QueryResult>& self) {
    std::vector<std::string> line{name, percent(r.overhead(values))};
    if (v.children) line.push_back(percent(r.overhead(self)));
    for (const Column& c : v.columns) line.push_back(text_value(c, r.value(c, values)));
    return line;
  };
  print_table(header, v.rows.size(), [&](std::size_t i) {
    const report::Row row = r.row(v.rows[i]);
    return cells(row.name, shown(row, v), row.results);
  }, cells("[total]", r.totals(), r.totals()), v.name_width, r.by() == report::GroupBy::callchain);

  // Estimates of the count columns, over the whole report and per row.
  fmt::print("\nEstimated ops (samples x period, 95% interval):\n");
  for (const Column& c : v.columns) {
    if (!c.event || c.sums()) continue;
    const QueryResult& q = r.totals()[*c.event];
    const report::UnitPeriod& p = periods.of(*c.event);
    if (!r.estimate_bias(*c.event).empty()) {
      const char* unit = derived_event_table()[*c.event].unit == IbsUnit::fetch ? "fetch" : "op";
      fmt::print("  {} {}: n/a, the {} filter sampled only some of its {}s\n", c.id, c.title, unit, unit);
      continue;
    }
    if (!q.available() || p.value == 0) {
      fmt::print("  {} {}: n/a\n", c.id, c.title);
      continue;
    }
    const Estimate e = estimate_from_samples(q.count, p.value);
    fmt::print("  {} {}: {} samples -> {} {} [{}, {}]{}\n", c.id, c.title, q.count, human(e.value), p.unit,
               human(e.low), human(e.high),
               q.undecided ? fmt::format(", and {} undecided samples (below)", q.undecided) : "");
    if (!v.estimates) continue;
    for (std::uint32_t id : v.rows) {
      const report::Row row = r.row(id);
      const QueryResult& rq = shown(row, v)[*c.event];
      if (!rq.available() || rq.count == 0) continue;
      const Estimate re = estimate_from_samples(rq.count, p.value);
      fmt::print("      {}: {} [{}, {}]\n", printable(row.name), human(re.value), human(re.low), human(re.high));
    }
  }
  fmt::print("{}\n", report_estimate_note);
  for (const Column& c : v.columns)
    if (c.ratio)
      fmt::print("{}: {}{}\n", c.ratio->id, c.ratio->definition,
                 r.value(c, r.totals()) || !column_value(c, r.totals()) ? ""
                                                                        : " (n/a: the filter sampled only some of its ops)");
  print_undecided(v.columns, r.totals(), [&](std::size_t q) { return r.why_undecided(q); });
}

// By module the row's name is the file's, and this column its path.
bool has_module_column(const Report& r) {
  using report::GroupBy;
  return r.by() != GroupBy::process && r.by() != GroupBy::callchain && r.by() != GroupBy::thread &&
         r.by() != GroupBy::cpu && !(r.keys().size() > 1 && has_key(r, GroupBy::module));
}

// A report's CSV: the row's name (and module), `columns` headings and
// `values(results)` cells, then the capture's label on every row; the rows
// shown, then the total.
template <typename Values>
void print_csv_table(const Report& r, const ReportView& v, const std::vector<std::string>& columns, Values values) {
  // With several keys, a column each.
  std::vector<std::string> header;
  for (report::GroupBy k : r.keys()) header.emplace_back(report::name_of(k));
  if (has_module_column(r)) header.emplace_back(r.by() == report::GroupBy::module ? "path" : "module");
  header.insert(header.end(), columns.begin(), columns.end());
  if (!v.emulated.empty()) header.emplace_back("capture");
  fmt::print("{}\n", fmt::join(header, ","));
  auto line = [&](const report::Row* row, const std::string& module, const std::vector<QueryResult>& results) {
    std::vector<std::string> cells;
    if (row && !row->parts.empty())
      for (const std::string& part : row->parts) cells.push_back(csv_field(part));
    else
      cells.push_back(csv_field(row ? row->name : "[total]"));
    while (cells.size() < r.keys().size()) cells.emplace_back();
    if (has_module_column(r)) cells.push_back(csv_field(module));
    values(results, cells);
    if (!v.emulated.empty()) cells.push_back(csv_field(v.emulated));
    fmt::print("{}\n", fmt::join(cells, ","));
  };
  for (std::uint32_t id : v.rows) {
    const report::Row row = r.row(id);
    line(&row, row.module, shown(row, v));
  }
  line(nullptr, "", r.totals());
}

void ibs_csv(const Report& r, const ReportView& v) {
  std::vector<std::string> columns;
  for (const Column& c : v.columns) columns.push_back(c.id);
  columns.emplace_back(v.children ? "children" : "overhead");
  print_csv_table(r, v, columns, [&](const std::vector<QueryResult>& results, std::vector<std::string>& cells) {
    for (const Column& c : v.columns) cells.push_back(csv_value(c, r.value(c, results)));
    cells.push_back(fmt::format("{:.4f}", r.overhead(results)));
  });
}

void ibs_json(const Report& r, const ReportView& v) {
  const report::Counts& n = r.counts();
  const Periods periods(r);
  IbsReport j{};
  j.cpu = {r.cpu().vendor, r.cpu().family, r.cpu().model, r.cpu().stepping, v.cpu_source};
  j.samples = {n.kept_fetch, n.kept_op};
  j.samples_read = {n.read_fetch, n.read_op, n.other_samples};
  j.inexact_ip = n.inexact_ip;
  j.period = {period_record(periods.units[0]), period_record(periods.units[1])};
  j.sampling_filters = {filter_record(r.filter(IbsUnit::fetch)), filter_record(r.filter(IbsUnit::op))};
  if (!v.where.empty()) j.where_undecided.emplace(n.where_undecided);

  const auto table = derived_event_table();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const std::string id = amd_ibs::select_string(table[i].select);
    const QueryResult& q = r.totals()[i];
    const bool sums = !table[i].sums.empty();
    j.events.emplace_back(id, q.available() ? std::optional(sums ? q.total : q.count) : std::nullopt);
    j.event_samples.emplace_back(id, q.available() ? std::optional(q.count) : std::nullopt);
    if (q.undecided) j.undecided.emplace_back(id, UndecidedRecord{q.undecided, r.why_undecided(i)});
    const std::string bias = r.estimate_bias(i);
    if (!sums) j.estimates.emplace_back(id, estimate_record(q, periods.of(i), !bias.empty()));
    if (!sums && !bias.empty()) j.estimates_biased.emplace_back(id, bias);
  }
  for (const report::RatioSpec& ratio : report::ratio_table()) {
    const Column c{std::string(ratio.id), std::string(ratio.title), std::nullopt, &ratio, false, {}};
    j.ratios.emplace_back(c.id, r.value(c, r.totals()));
  }
  j.estimate_note = report_estimate_note;
  for (const Column& c : v.columns) j.columns.push_back({c.id, c.title});
  j.common = {common_record(r, v)};
  print_json_rows(j, v.rows.size(), [&](std::size_t i) {
    const report::Row row = r.row(v.rows[i]);
    IbsReportRow jr{};
    jr.row = {row_name(row, r)};
    jr.overhead = r.overhead(row.results);
    if (v.children) jr.children.emplace(r.overhead(shown(row, v)));
    for (const Column& c : v.columns) {
      jr.values.emplace_back(c.id, column_number(c, r.value(c, shown(row, v))));
      if (c.event && !c.sums())
        jr.estimates.emplace_back(c.id, estimate_record(shown(row, v)[*c.event], periods.of(*c.event),
                                                        !r.estimate_bias(*c.event).empty()));
    }
    return jr;
  });
}

// Other captures: each event's samples, weighted by their periods.

// perf mem: the average load latency of event `e`'s loads in `row` (all
// rows without one), where its samples carry one and some load does.
std::optional<double> average_latency(const Report& r, std::size_t e, std::optional<std::uint32_t> row) {
  const std::optional<report::MeasureSum> m = r.load_latency(e, row);
  if (!m || !m->samples) return std::nullopt;
  return static_cast<double>(m->sum) / static_cast<double>(m->samples);
}

// The events a table shows: those with samples, as perf report shows
// them (its --skip-empty, the default: perf record -a's dummy:HG event
// has none); all of them when none has.
std::vector<std::size_t> events_shown(const Report& r) {
  std::vector<std::size_t> shown;
  for (std::size_t e = 0; e < r.query_names().size(); ++e)
    if (r.totals()[e].count) shown.push_back(e);
  if (shown.empty())
    for (std::size_t e = 0; e < r.query_names().size(); ++e) shown.push_back(e);
  return shown;
}

void events_text(const Report& r, const ReportView& v) {
  const report::Counts& n = r.counts();
  const auto& events = r.query_names();
  const std::vector<std::size_t> shown_events = events_shown(r);
  std::vector<std::string> each;
  std::uint64_t counted = 0;
  for (std::size_t e = 0; e < events.size(); ++e) {
    const bool hidden = shown_events.size() < events.size() && r.totals()[e].count == 0;
    each.push_back(fmt::format("{} {}{}", printable(events[e]), r.totals()[e].count,
                               hidden ? " (not shown: no samples, as perf report)" : ""));
    counted += r.totals()[e].count;
  }
  fmt::print("{}: no IBS events, so no derived events: {} samples of {} ({} kept, {} lost), each event in its own "
             "columns, weighted by period as perf report does{}\n",
             printable(v.file), n.read, fmt::join(each, ", "), n.kept, r.lost(),
             counted > n.read ? "; samples that read a group's counters count once for each counter that moved, "
                                "as perf counts them"
                              : "");
  if (!v.emulated.empty()) fmt::print("capture: {}\n", printable(v.emulated));
  // perf mem: the samples' data sources decide --where, or leave it open.
  if (!v.where.empty())
    fmt::print("where {}: {} samples meet it, {} are undecided (their data sources do not tell)\n", v.where, n.kept,
               n.where_undecided);
  fmt::print("\n{} rows by {}{}, sorted by {}{}\n\n", r.row_count(), keys_title(r),
             v.rows.size() < r.row_count() ? fmt::format(", the first {}", v.rows.size()) : "", printable(v.sort.id),
             v.children ? ", each with its callees' periods (--children)" : "");
  std::vector<std::string> header{keys_title(r)};
  // perf mem: the average load latency of the loads that carry one (their
  // own samples, with --children too).
  std::vector<bool> latency(events.size());
  for (std::size_t e : shown_events) {
    header.push_back(fmt::format("{} {}", events[e], v.children ? "children" : "overhead"));
    if (v.children) header.push_back("self");
    header.push_back("samples");
    latency[e] = r.load_latency(e).has_value();
    if (latency[e]) header.push_back("avg load latency");
  }
  auto cells = [&](const std::string& name, const std::vector<QueryResult>& values, const std::vector<QueryResult>& self,
                   std::optional<std::uint32_t> row) {
    std::vector<std::string> line{name};
    for (std::size_t e : shown_events) {
      line.push_back(percent(period_share(values[e], r.totals()[e])));
      if (v.children) line.push_back(percent(period_share(self[e], r.totals()[e])));
      line.push_back(fmt::format("{}", values[e].count));
      if (!latency[e]) continue;
      const std::optional<double> average = average_latency(r, e, row);
      line.push_back(average ? fmt::format("{:.1f}", *average) : "-");
    }
    return line;
  };
  print_table(header, v.rows.size(), [&](std::size_t i) {
    const report::Row row = r.row(v.rows[i]);
    std::vector<std::string> line = cells(row.name, shown(row, v), row.results, v.rows[i]);
    const bool module_differs = !row.module.empty() && row.module != row.name && r.by() != report::GroupBy::module &&
                                !(r.keys().size() > 1 && has_key(r, report::GroupBy::module));
    if (module_differs) line[0] += "  (" + row.module + ")";
    return line;
  }, cells("[total]", r.totals(), r.totals(), std::nullopt), v.name_width, r.by() == report::GroupBy::callchain);
}

void events_csv(const Report& r, const ReportView& v) {
  const auto& events = r.query_names();
  const std::vector<std::size_t> shown_events = events_shown(r);
  std::vector<std::string> columns;
  for (std::size_t e : shown_events)
    for (const char* what : {"percent", "samples", "period"}) columns.push_back(csv_field(events[e] + " " + what));
  print_csv_table(r, v, columns, [&](const std::vector<QueryResult>& results, std::vector<std::string>& cells) {
    for (std::size_t e : shown_events) {
      cells.push_back(fmt::format("{:.4f}", period_share(results[e], r.totals()[e])));
      cells.push_back(fmt::format("{}", results[e].count));
      cells.push_back(fmt::format("{}", results[e].total));
    }
  });
}

// `latency`: with each event's average load latency (perf mem), of row
// `row` (all rows without one).
record::Entries<EventShare> event_values(const Report& r, const std::vector<QueryResult>& results, bool latency = false,
                                         std::optional<std::uint32_t> row = std::nullopt) {
  record::Entries<EventShare> out;
  const auto& events = r.query_names();
  for (std::size_t e = 0; e < events.size(); ++e) {
    EventShare share_of{results[e].count, results[e].total, period_share(results[e], r.totals()[e]), {}};
    if (latency) share_of.load_latency = average_latency(r, e, row);
    out.emplace_back(events[e], share_of);
  }
  return out;
}

void events_json(const Report& r, const ReportView& v) {
  const report::Counts& n = r.counts();
  EventsReport j{};
  j.events = r.query_names();
  j.samples = n.read;
  j.kept = n.kept;
  if (!v.where.empty()) j.where_undecided.emplace(n.where_undecided);
  if (r.content().data_src) {
    std::vector<std::string>& decides = j.data_src_decides.emplace();
    for (Condition c : r.content().data_src_decides.members()) decides.emplace_back(c.name());
  }
  j.event_totals = event_values(r, r.totals(), true);
  j.common = {common_record(r, v)};
  print_json_rows(j, v.rows.size(), [&](std::size_t i) {
    const report::Row row = r.row(v.rows[i]);
    EventsReportRow jr{};
    jr.row = {row_name(row, r)};
    for (const QueryResult& q : row.results) jr.samples += q.count;
    jr.events = event_values(r, row.results, true, v.rows[i]);
    if (v.children) jr.children.emplace(event_values(r, shown(row, v)));
    return jr;
  });
}

}  // namespace

namespace {

// The values a table of the report holds per row: its columns, or three
// per event (share, samples, period) in a capture without IBS.
std::uint64_t table_columns(const Report& r, const ReportView& v) {
  return r.ibs() ? v.columns.size() : 3 * r.query_names().size();
}

// Byte offsets as ranges: "0-7,16,40-47".
std::string offset_ranges(const std::vector<std::uint8_t>& offsets) {
  std::string out;
  for (std::size_t i = 0; i < offsets.size();) {
    std::size_t j = i;
    while (j + 1 < offsets.size() && offsets[j + 1] == offsets[j] + 1) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ",", offsets[i]);
    if (j > i) out += fmt::format("-{}", offsets[j]);
    i = j + 1;
  }
  return out;
}

// A line's functions in a text cell: the one with the most samples, and
// how many others.
std::string functions_cell(const std::vector<std::string>& functions) {
  if (functions.size() <= 1) return functions.empty() ? std::string() : functions.front();
  return fmt::format("{} +{}", functions.front(), functions.size() - 1);
}

// --by cacheline: the shown lines again, with perf c2c report's counts of
// their samples (Report::line()), after the table of the columns.
void cache_line_text(const Report& r, const ReportView& v) {
  if (r.by() != report::GroupBy::cacheline) return;
  print_line_details(keys_title(r), v.rows.size(), [&](std::size_t i) {
    return std::pair{r.row(v.rows[i]).name, r.line(v.rows[i])};
  }, v.name_width);
}

}  // namespace

std::string report_text_value(const Column& c, const std::optional<double>& v) { return text_value(c, v); }
std::string report_human(double v) { return human(v); }
double period_share(const QueryResult& part, const QueryResult& whole) {
  return whole.total ? 100.0 * static_cast<double>(part.total) / static_cast<double>(whole.total) : 0.0;
}
void print_report_table(const std::vector<std::string>& header, std::size_t rows,
                        const std::function<std::vector<std::string>(std::size_t)>& line,
                        const std::vector<std::string>& total, std::size_t name_width) {
  print_table(header, rows, line, total, name_width, false);
}

void print_line_details(const std::string& title, std::size_t rows,
                        const std::function<std::pair<std::string, std::optional<report::LineDetail>>(std::size_t)>& line,
                        std::size_t name_width) {
  fmt::print("\nThe lines' samples, as perf c2c report counts them (L1 miss: loads served past the L1, stores that "
             "missed it; offsets: the bytes touched; functions: the one with the most samples, +N others (all in --json)):\n\n");
  const std::vector<std::string> header{title, "records", "loads", "stores", "L1 miss", "lcl HITM", "rmt HITM",
                                        "offsets", "functions"};
  auto cells = [](const std::string& name, const report::LineDetail& d) {
    return std::vector<std::string>{name,
                                    fmt::format("{}", d.samples),
                                    fmt::format("{}", d.loads),
                                    fmt::format("{}", d.stores),
                                    fmt::format("{}", d.l1_misses),
                                    fmt::format("{}", d.local_hitm),
                                    fmt::format("{}", d.remote_hitm),
                                    offset_ranges(d.offsets),
                                    functions_cell(d.functions)};
  };
  report::LineDetail shown;  // the shown lines' sums
  for (std::size_t i = 0; i < rows; ++i)
    if (const auto d = line(i).second) {
      shown.samples += d->samples;
      shown.loads += d->loads;
      shown.stores += d->stores;
      shown.l1_misses += d->l1_misses;
      shown.local_hitm += d->local_hitm;
      shown.remote_hitm += d->remote_hitm;
    }
  print_table(header, rows, [&](std::size_t i) {
    const auto [name, d] = line(i);
    return cells(name, d.value_or(report::LineDetail{}));
  }, cells("[shown]", shown), name_width, false);
}

CacheLineRecord cache_line_record(const report::LineDetail& line) {
  CacheLineRecord c{record::Hex{line.address}, line.samples, line.loads, line.stores, line.l1_misses, line.local_hitm,
                    line.remote_hitm, {line.offsets.begin(), line.offsets.end()}, {}, line.functions};
  for (std::uint64_t a : line.code_addresses) c.code_addresses.push_back(record::Hex{a});
  return c;
}

void print_text(const Report& r, const ReportView& v) {
  report::check_values("the table", v.rows.size(), table_columns(r, v), v.max_values);
  r.ibs() ? ibs_text(r, v) : events_text(r, v);
  cache_line_text(r, v);
}
void print_csv(const Report& r, const ReportView& v) {
  report::check_values("the CSV", v.rows.size(), table_columns(r, v), v.max_values);
  r.ibs() ? ibs_csv(r, v) : events_csv(r, v);
}
void print_json(const Report& r, const ReportView& v) {
  report::check_values("the JSON", v.rows.size(), table_columns(r, v), v.max_values);
  r.ibs() ? ibs_json(r, v) : events_json(r, v);
}

}  // namespace tagop::cli
