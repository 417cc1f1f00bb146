// A report as one self-contained HTML page (`tagop report --html`): the
// table of its rows, with intervals, and the flame graph of its stacks.

#include <tagop/report/export.hpp>

#include <cstdint>  // std::uint16_t, std::uint64_t
#include <span>     // std::span

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_table
#include <tagop/estimate.hpp>                // estimate_from_samples
#include <tagop/profiles/html.hpp>           // HtmlPage

#include "export_units.hpp"  // event_unit, period_unit

namespace tagop::report {

using amd_ibs::derived_event_table;
using amd_ibs::IbsUnit;

namespace {

// A column of the page: how it is shown, and a row's cell.
struct PageColumn {
  profiles::TableColumn heading;
  Column column;
};

std::vector<PageColumn> page_columns(const Report& r, const ExportView& v) {
  std::vector<PageColumn> out;
  if (!r.ibs()) {
    const std::vector<std::string>& events = r.query_names();
    for (const std::string& e : events) {
      out.push_back({{e, e, period_unit(e), "the periods of " + e + "'s samples, as perf report counts them",
                      profiles::ColumnKind::count},
                     resolve_event_column(events, e)});
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

std::string row_title(GroupBy by) {
  return by == GroupBy::line        ? "source line"
         : by == GroupBy::callchain ? "call chain"
                                    : std::string(name_of(by));
}

}  // namespace

void write_report_html(const Report& table, const Report& stacks, const ExportView& v, std::ostream& out) {
  profiles::HtmlPage page;
  page.title = fmt::format("{} report of {}", table.ibs() ? "IBS" : "perf", v.file);
  if (table.ibs())
    page.notes.push_back(fmt::format("processor: AMD family {:#x} model {:#x} ({})", table.cpu().family,
                                     table.cpu().model, v.cpu_source));
  for (IbsUnit u : {IbsUnit::fetch, IbsUnit::op})
    if (table.ibs())
      if (const UnitPeriod p = table.period(u); p.value > 0)
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
  check_values("the HTML page's table", v.rows.size(), columns.size(), v.max_values);
  for (const PageColumn& c : columns) page.table.columns.push_back(c.heading);
  auto make_row = [&](std::string name, std::string module, const std::vector<QueryResult>& results) {
    profiles::TableRow row{std::move(name), std::move(module), {}};
    for (const PageColumn& c : columns) row.cells.push_back(cell(table, c, results));
    return row;
  };
  for (std::uint32_t id : v.rows) {
    const Row row = table.row(id);
    page.table.rows.push_back(make_row(row.name, row.module, v.children ? row.children : row.results));
  }
  page.table.total = make_row("total", "", table.totals());

  const profiles::Profile profile = profile_of(stacks, v);
  page.profile = &profile;
  page.flame_sample_type = sort_sample_type(stacks, v).value_or(0);
  profiles::write_html(page, out);
}

}  // namespace tagop::report
