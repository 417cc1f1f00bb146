// A report of the store as one HTML page (`tagop report --source URL
// --html FILE`): the local page's table and flame graph, of the store's
// tallies.

#include <tagop/report/store_report.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/derived_events.hpp>  // IbsUnit
#include <tagop/error.hpp>                   // Error
#include <tagop/profiles/html.hpp>           // HtmlPage

#include "html_table.hpp"     // page_columns, page_cell
#include "store_queries.hpp"  // query_of

namespace tagop::report {

namespace {

using amd_ibs::IbsUnit;
using detail::query_of;

}  // namespace

void write_store_html(const StoreReport& table, const StoreReport& stacks, const StorePageView& v, std::ostream& out) {
  if (table.ibs != stacks.ibs)
    throw Error("write_store_html: the table's and the flame graph's reports are of different kinds of captures");
  if (!stacks.ibs && stacks.query_names != table.query_names)
    throw Error("write_store_html: the flame graph's report has other events than the table's");
  profiles::HtmlPage page;
  page.title = fmt::format("{} report of the store at {}", table.ibs ? "IBS" : "perf", v.source);
  if (table.ibs) {
    page.notes.push_back(fmt::format("{} capture{}", table.captures.size(), table.captures.size() == 1 ? "" : "s"));
    for (IbsUnit u : {IbsUnit::fetch, IbsUnit::op}) {
      const char* name = u == IbsUnit::fetch ? "fetch" : "op";
      if (const auto p = store_shared_period(table, static_cast<std::size_t>(u)))
        page.notes.push_back(fmt::format("{} period: {:.0f} {} ({})", name, p->value, p->unit, p->source));
      else if (table.totals[query_of(u == IbsUnit::fetch ? 0xF000 : 0xF100)].count)
        page.notes.push_back(fmt::format("{} periods differ between captures: the flame graph's {} values are samples, "
                                         "the table's estimates scale each capture's by its own",
                                         name, name));
    }
  }
  if (!v.filters.empty() || !v.where.empty()) {
    std::string f;
    for (const std::string& s : v.filters) f += (f.empty() ? "" : ", ") + s;
    if (!v.where.empty()) f += (f.empty() ? "where " : ", where ") + v.where;
    page.notes.push_back("filters: " + f);
  }
  bool children = false;
  for (const StoreRow& row : table.rows) children |= !row.children.empty();
  if (children) page.notes.push_back("values include each row's callees' (--children)");

  const detail::PageReport read{
      .ibs = table.ibs,
      .events = table.ibs ? std::vector<std::string>{} : table.query_names,
      .value = [&](const Column& c, std::span<const QueryResult> results) { return store_value(table, c, results); },
      .period = [&](IbsUnit u) {
        // A count's interval in samples is the same at every period: any known one gives it.
        for (const StoreCapturePeriods& c : table.captures)
          if (const double p = c.units[static_cast<std::size_t>(u)].value; p > 0) return p;
        return 0.0;
      }};
  const std::vector<detail::PageColumn> columns = detail::page_columns(read, v.columns);
  const std::vector<std::size_t> rows = store_row_order(table, v.sort, v.top, v.percent_limit);
  page.table.row_title = v.row_title;
  check_values("the HTML page's table", rows.size(), columns.size(), v.max_values);
  for (const detail::PageColumn& c : columns) page.table.columns.push_back(c.heading);
  auto make_row = [&](std::string name, std::string module, std::span<const QueryResult> results) {
    profiles::TableRow row{std::move(name), std::move(module), {}};
    for (const detail::PageColumn& c : columns) row.cells.push_back(detail::page_cell(read, c, results));
    return row;
  };
  for (std::size_t i : rows) {
    const StoreRow& row = table.rows[i];
    page.table.rows.push_back(make_row(row.name, row.module, children ? row.children : row.results));
  }
  page.table.total = make_row("total", "", table.totals);

  const profiles::Profile profile = store_stacks_profile(stacks, v);
  page.profile = &profile;
  page.flame_sample_type = store_sort_sample_type(stacks, v).value_or(0);
  profiles::write_html(page, out);
}

}  // namespace tagop::report
