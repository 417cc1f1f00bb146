// A report of the store as one HTML page (`tagop report --source URL
// --html FILE`): the local page's table and flame graph, of the store's
// tallies.

#include <tagop/report/store_report.hpp>

#include <algorithm>  // std::min
#include <cmath>      // std::llround

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_table
#include <tagop/error.hpp>                   // Error
#include <tagop/profiles/html.hpp>           // HtmlPage

#include "export_units.hpp"  // event_unit, sample_type_name
#include "html_table.hpp"    // page_columns, page_cell

namespace tagop::report {

namespace {

using amd_ibs::derived_event_table;
using amd_ibs::IbsUnit;

// A unit's period as the page scales its counts: the one its captures
// share; 0 where they differ or none is known.
double page_period(const StoreReport& r, IbsUnit unit) {
  const std::optional<UnitPeriod> p = store_shared_period(r, static_cast<std::size_t>(unit));
  return p ? p->value : 0;
}

std::size_t query_of(std::uint16_t select) {
  return static_cast<std::size_t>(amd_ibs::find_derived_event(select) - derived_event_table().data());
}

// IBS: the flame graph of a report by function, as a local IBS capture's
// (export.cpp profile_of): a sample type per derived event of the columns,
// its samples (or its sum) x its unit's period, and one of --where's
// samples; each row a stack of one frame.
profiles::Profile ibs_profile(const StoreReport& stacks, const StorePageView& v) {
  struct Source {
    std::size_t query;
    bool total;
  };
  std::vector<profiles::SampleType> types;
  std::vector<Source> sources;
  const auto table = derived_event_table();
  for (const Column& c : v.columns) {
    if (!c.event) continue;
    const double period = page_period(stacks, table[*c.event].unit);
    types.push_back({sample_type_name(table[*c.event].name), event_unit(table[*c.event]), period > 0 ? period : 1});
    sources.push_back({*c.event, c.total});
  }
  const std::size_t fetches = query_of(0xF000), ops = query_of(0xF100);
  if (!v.where.empty()) {
    // The predicate's samples: ops (or fetches) x that unit's period where
    // it kept one unit's samples only.
    const double period = stacks.totals[fetches].count == 0 ? page_period(stacks, IbsUnit::op)
                          : stacks.totals[ops].count == 0   ? page_period(stacks, IbsUnit::fetch)
                                                            : 1;
    types.push_back({"where", "count", period > 0 ? period : 1});
  }
  if (types.empty())
    throw Error("the chosen columns hold no derived event (ratios alone make no profile): add one with --events");
  profiles::Profile p(types);
  p.period_type = {"ops", "count"};
  p.period = std::llround(page_period(stacks, IbsUnit::op));
  p.comments.push_back("IBS samples of the store: values are samples x period, tagop's estimates");
  if (!v.where.empty()) p.comments.push_back("where: " + v.where);
  p.comments.push_back("source: " + v.source);
  std::vector<std::int64_t> values(types.size());
  const auto clamp = [](std::uint64_t n) { return static_cast<std::int64_t>(std::min<std::uint64_t>(n, INT64_MAX)); };
  for (std::size_t i : store_row_order(stacks, v.sort, v.flame_top)) {
    const StoreRow& row = stacks.rows[i];
    bool any = false;
    for (std::size_t s = 0; s < sources.size(); ++s) {
      const QueryResult& q = row.results[sources[s].query];
      any |= (values[s] = q.available() ? clamp(sources[s].total ? q.total : q.count) : 0) != 0;
    }
    if (!v.where.empty())
      any |= (values.back() = clamp(row.results[fetches].count + row.results[ops].count)) != 0;
    if (!any) continue;
    profiles::Location l;
    if (!row.module.empty()) l.mapping = p.add_mapping({0, 0, 0, row.module, ""});
    l.frames.push_back({row.name, "", "", 0});
    const profiles::LocationId leaf = p.add_location(l);
    p.add_sample(values, {&leaf, 1});
  }
  return p;
}

// Of other captures: the chains' rows (the first `flame_top` by the sort event).
profiles::Profile chains_profile(const StoreReport& stacks, const StorePageView& v) {
  if (!v.flame_top) return store_profile(stacks, v.source);
  StoreReport first = stacks;
  first.rows.clear();
  for (std::size_t i : store_row_order(stacks, v.sort, v.flame_top)) first.rows.push_back(stacks.rows[i]);
  return store_profile(first, v.source);
}

// The flame graph's first sample type, as a local page's (sort_sample_type):
// the sort event's periods (others), the sort column among the events (IBS).
std::size_t flame_type(const StoreReport& r, const StorePageView& v) {
  if (!r.ibs) return v.sort.event ? 2 * *v.sort.event : 1;
  std::size_t index = 0;
  for (const Column& c : v.columns) {
    if (!c.event) continue;
    if (v.sort.event && *c.event == *v.sort.event && c.total == v.sort.total) return index;
    ++index;
  }
  return 0;
}

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
  const std::vector<std::size_t> rows = store_row_order(table, v.sort, v.top);
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

  for (const StoreRow& row : stacks.rows)
    if (row.frames.empty() != stacks.ibs)
      throw Error(stacks.ibs ? "write_store_html: an IBS page's stacks are a report by function"
                             : "write_store_html: the stacks of captures without IBS are a report by call chain");
  const profiles::Profile profile = table.ibs ? ibs_profile(stacks, v) : chains_profile(stacks, v);
  page.profile = &profile;
  page.flame_sample_type = flame_type(table, v);
  profiles::write_html(page, out);
}

}  // namespace tagop::report
