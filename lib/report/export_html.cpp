// A report as one self-contained HTML page (`tagop report --html`): the
// table of its rows, with intervals, and the flame graph of its stacks.

#include <tagop/report/export.hpp>

#include <cstdint>  // std::uint16_t, std::uint64_t
#include <span>     // std::span

#include <fmt/format.h>  // fmt::format

#include <tagop/profiles/html.hpp>  // HtmlPage

#include "html_table.hpp"  // page_columns, page_cell

namespace tagop::report {

using amd_ibs::IbsUnit;
using detail::PageColumn;

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

  const detail::PageReport read{
      .ibs = table.ibs(),
      .events = table.ibs() ? std::vector<std::string>{} : table.query_names(),
      .value = [&](const Column& c, std::span<const QueryResult> results) { return table.value(c, results); },
      .period = [&](IbsUnit u) { return table.period(u).value; }};
  const std::vector<PageColumn> columns = detail::page_columns(read, v.columns);
  page.table.row_title = detail::page_row_title(table.by());
  check_values("the HTML page's table", v.rows.size(), columns.size(), v.max_values);
  for (const PageColumn& c : columns) page.table.columns.push_back(c.heading);
  auto make_row = [&](std::string name, std::string module, const std::vector<QueryResult>& results) {
    profiles::TableRow row{std::move(name), std::move(module), {}};
    for (const PageColumn& c : columns) row.cells.push_back(detail::page_cell(read, c, results));
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
