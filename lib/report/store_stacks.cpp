// A report of the store as stacks: the profile that its exports (pprof,
// folded stacks) and its HTML page's flame graph are made of, as a local
// report's (export.cpp profile_of): of IBS captures each derived event of
// the columns, samples x period; of others each event's periods and
// samples. A row by call chain is a stack of its frames; a row by function
// a stack of one.

#include <tagop/report/store_report.hpp>

#include <algorithm>  // std::min
#include <cmath>      // std::llround
#include <span>       // std::span

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_table
#include <tagop/error.hpp>                   // Error
#include <tagop/profiles/folded.hpp>         // write_folded
#include <tagop/profiles/pprof.hpp>          // write_pprof
#include <tagop/profiles/store.hpp>          // store_table_name

#include "export_units.hpp"  // event_unit, period_unit, sample_type_name
#include "store_queries.hpp"  // query_of
#include "store_text.hpp"    // number

namespace tagop::report {

namespace {

using amd_ibs::derived_event_table;
using amd_ibs::IbsUnit;
using detail::query_of;

// A unit's period as the profile scales its counts: the one its captures
// share; 0 where they differ or none is known.
double shared_period_value(const StoreReport& r, IbsUnit unit) {
  const std::optional<UnitPeriod> p = store_shared_period(r, static_cast<std::size_t>(unit));
  return p ? p->value : 0;
}

std::int64_t clamped(std::uint64_t n) { return static_cast<std::int64_t>(std::min<std::uint64_t>(n, INT64_MAX)); }

// A row's stack, leaf first: its frames (by call chain), else the row's
// function (or other key) and module as one frame.
void stack_of(const StoreRow& row, profiles::Profile& p, std::vector<profiles::LocationId>& stack) {
  stack.clear();
  const auto add = [&](const std::string& name, const std::string& module) {
    profiles::Location l;
    if (!module.empty()) l.mapping = p.add_mapping({0, 0, 0, module, ""});
    l.frames.push_back({name, "", "", 0});
    stack.push_back(p.add_location(l));
  };
  if (row.frames.empty()) return add(row.name, row.module);
  for (auto it = row.frames.rbegin(); it != row.frames.rend(); ++it) add(it->name, it->module);
}

// A row's sample: its values, its stack, its process where it has one.
void add_row(profiles::Profile& p, const StoreRow& row, std::span<const std::int64_t> values,
             std::vector<profiles::LocationId>& stack) {
  stack_of(row, p, stack);
  profiles::Labels labels;
  if (row.pid) labels = {.pid = *row.pid, .comm = row.comm};
  p.add_sample(values, stack, labels);
}

// IBS: a sample type per derived event of the columns, its samples (or its
// sum) x its unit's period, and one of --where's samples.
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
    const double period = shared_period_value(stacks, table[*c.event].unit);
    types.push_back({sample_type_name(table[*c.event].name), event_unit(table[*c.event]), period > 0 ? period : 1});
    sources.push_back({*c.event, c.total});
  }
  const std::size_t fetches = query_of(0xF000), ops = query_of(0xF100);
  if (!v.where.empty()) {
    // The predicate's samples: ops (or fetches) x that unit's period where
    // it kept one unit's samples only.
    const double period = stacks.totals[fetches].count == 0 ? shared_period_value(stacks, IbsUnit::op)
                          : stacks.totals[ops].count == 0   ? shared_period_value(stacks, IbsUnit::fetch)
                                                            : 1;
    types.push_back({"where", "count", period > 0 ? period : 1});
  }
  if (types.empty())
    throw Error("the chosen columns hold no derived event (ratios alone make no profile): add one with --events");
  profiles::Profile p(types);
  p.period_type = {"ops", "count"};
  p.period = std::llround(shared_period_value(stacks, IbsUnit::op));
  p.comments.push_back("IBS samples of the store: values are samples x period, tagop's estimates");
  if (!v.where.empty()) p.comments.push_back("where: " + v.where);
  p.comments.push_back("source: " + v.source);
  p.default_sample_type = store_sort_sample_type(stacks, v);
  std::vector<std::int64_t> values(types.size());
  std::vector<profiles::LocationId> stack;
  for (std::size_t i : store_row_order(stacks, v.sort, v.flame_top)) {
    const StoreRow& row = stacks.rows[i];
    bool any = false;
    for (std::size_t s = 0; s < sources.size(); ++s) {
      const QueryResult& q = row.results[sources[s].query];
      any |= (values[s] = q.available() ? clamped(sources[s].total ? q.total : q.count) : 0) != 0;
    }
    if (!v.where.empty()) any |= (values.back() = clamped(row.results[fetches].count + row.results[ops].count)) != 0;
    if (any) add_row(p, row, values, stack);
  }
  return p;
}

}  // namespace

profiles::Profile store_profile(const StoreReport& stacks, std::string_view source) {
  if (stacks.ibs) throw Error("store_profile: an IBS report's profile is store_stacks_profile()'s (its columns)");
  std::vector<profiles::SampleType> types;
  for (const std::string& event : stacks.query_names) {
    types.push_back({event, period_unit(event), 1});
    types.push_back({event + "_samples", "count", 1});
  }
  if (types.empty()) throw Error("the store's selection has no samples: no profile to write");
  profiles::Profile p(types);
  const QueryResult& first = stacks.totals.front();
  p.period_type = {stacks.query_names.front(), period_unit(stacks.query_names.front())};
  p.period = first.count ? static_cast<std::int64_t>(first.total / first.count) : 0;
  p.comments.push_back(fmt::format("source: {}", source));
  p.default_sample_type = 0;
  std::vector<std::int64_t> values(types.size());
  std::vector<profiles::LocationId> stack;
  for (const StoreRow& row : stacks.rows) {
    bool any = false;
    for (std::size_t e = 0; e < row.results.size(); ++e) {
      any |= (values[2 * e] = clamped(row.results[e].total)) != 0;
      any |= (values[2 * e + 1] = clamped(row.results[e].count)) != 0;
    }
    if (any) add_row(p, row, values, stack);
  }
  return p;
}

std::optional<std::size_t> store_sort_sample_type(const StoreReport& stacks, const StorePageView& view) {
  if (!stacks.ibs) return view.sort.event ? 2 * *view.sort.event : 1;
  std::size_t index = 0;
  for (const Column& c : view.columns) {
    if (!c.event) continue;
    if (view.sort.event && *c.event == *view.sort.event && c.total == view.sort.total) return index;
    ++index;
  }
  return std::nullopt;
}

profiles::Profile store_stacks_profile(const StoreReport& stacks, const StorePageView& view) {
  if (stacks.ibs) return ibs_profile(stacks, view);
  if (!view.flame_top) return store_profile(stacks, view.source);
  StoreReport first = stacks;
  first.rows.clear();
  for (std::size_t i : store_row_order(stacks, view.sort, view.flame_top)) first.rows.push_back(stacks.rows[i]);
  return store_profile(first, view.source);
}

void write_store_export(ExportFormat format, const StoreReport& stacks, const StorePageView& view,
                        const std::string& path) {
  if (format != ExportFormat::pprof && format != ExportFormat::folded)
    throw Error("write_store_export: a profile is written as pprof or folded stacks");
  profiles::Profile profile = store_stacks_profile(stacks, view);
  const std::optional<std::size_t> type = store_sort_sample_type(stacks, view);
  if (type) profile.default_sample_type = *type;
  if (format == ExportFormat::folded && !type)
    throw Error(fmt::format("--format folded: the stacks' values are one event's, and --sort {} is not an event (a "
                            "ratio, or every unit's samples): sort by an event (--sort 0xF206)",
                            view.sort.id));
  ExportTarget target(path);
  if (format == ExportFormat::pprof) profiles::write_pprof(profile, target.stream());
  else profiles::write_folded(profile, target.stream(), {.sample_type = *type});
  target.commit();
}

bool store_has_call_chains(const profiles::ClickHouseServer& server, const StoreReportOptions& options) {
  const std::string samples = options.tables.table.empty() ? profiles::store_table_name() : options.tables.table;
  const std::string captures =
      options.tables.captures_table.empty() ? profiles::store_captures_table_name() : options.tables.captures_table;
  const std::string where = store_report_where_sql(options);
  // A count, as the reports' other aggregates: ClickHouse 18.16 refuses a
  // LIMIT (or a subquery in FROM) over its Distributed tables with IN.
  const std::string answer = server.query(
      fmt::format("SELECT countIf(notEmpty(chain)) FROM {} WHERE capture IN (SELECT capture FROM {}){} FORMAT "
                  "TabSeparated",
                  samples, captures, where.empty() ? "" : " AND (" + where + ")"));
  return store_text::number(server, answer) != 0;
}

}  // namespace tagop::report
