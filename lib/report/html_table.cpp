// The HTML page's table: its columns and cells, for a local report's page
// and the store's.

#include "html_table.hpp"

#include <cstdint>  // std::uint16_t, std::uint64_t

#include <tagop/estimate.hpp>  // estimate_from_samples

#include "export_units.hpp"  // event_unit, period_unit

namespace tagop::report::detail {

namespace {

using amd_ibs::derived_event_table;

std::uint64_t counts_of(std::span<const std::uint16_t> selects, std::span<const QueryResult> results) {
  const auto table = derived_event_table();
  std::uint64_t n = 0;
  for (std::uint16_t s : selects) {
    if (!s) continue;
    const amd_ibs::IbsDerivedEventSpec* e = amd_ibs::find_derived_event(s);
    if (e) n += results[static_cast<std::size_t>(e - table.data())].count;
  }
  return n;
}

}  // namespace

std::vector<PageColumn> page_columns(const PageReport& r, const std::vector<Column>& ibs_columns) {
  std::vector<PageColumn> out;
  if (!r.ibs) {
    for (const std::string& e : r.events) {
      out.push_back({{e, e, period_unit(e), "the periods of " + e + "'s samples, as perf report counts them",
                      profiles::ColumnKind::count},
                     resolve_event_column(r.events, e)});
    }
    return out;
  }
  const auto table = derived_event_table();
  for (const Column& c : ibs_columns) {
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

std::optional<profiles::Interval> page_cell(const PageReport& r, const PageColumn& pc, std::span<const QueryResult> results) {
  const std::optional<double> value = r.value(pc.column, results);
  if (!value) return std::nullopt;
  profiles::Interval out{*value};
  const Column& c = pc.column;
  if (r.ibs && c.event && !c.total) {
    // Samples, with the interval of the ops they stand for, in samples.
    const double period = r.period(derived_event_table()[*c.event].unit);
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

std::string page_row_title(GroupBy by) {
  return by == GroupBy::line        ? "source line"
         : by == GroupBy::callchain ? "call chain"
                                    : std::string(name_of(by));
}

}  // namespace tagop::report::detail
