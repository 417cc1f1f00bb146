#include <tagop/arm_spe/report.hpp>

#include <algorithm>      // std::sort
#include <unordered_map>  // std::unordered_map

#include <tagop/arm_spe/derived_events.hpp>  // derived_event_queries

namespace tagop::arm_spe {

SpeReport report_spe_capture(const std::string& path, const SpeReportOptions& options) {
  const SpeCaptureDecode d = decode_spe_capture(path, options.encoding);
  SpeReport out;
  out.records = d.records.size();
  out.pmu_type = d.pmu_type;
  out.midr = d.midr;
  out.encoding = d.encoding;
  out.problems = d.problems;
  Aggregator aggregator;
  std::unordered_map<std::uint64_t, std::uint32_t> row_of;  // ip -> row
  std::vector<std::uint64_t> ips, counts;
  for (const Sample& s : d.samples) {
    if (decide(options.where, s.conditions, s.observed) != Decision::yes) continue;
    ++out.selected;
    const auto [it, added] = row_of.try_emplace(s.ip, static_cast<std::uint32_t>(ips.size()));
    if (added) ips.push_back(s.ip), counts.push_back(0);
    ++counts[it->second];
    aggregator.add(s, it->second);
  }
  const auto queries = derived_event_queries();
  out.totals = aggregator.evaluate(queries);
  if (options.max_rows == 0 || ips.empty()) return out;
  const auto by_row = aggregator.evaluate_by_row(queries);
  std::vector<std::uint32_t> order(ips.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return counts[a] != counts[b] ? counts[a] > counts[b] : ips[a] < ips[b];
  });
  if (order.size() > options.max_rows) order.resize(options.max_rows);
  for (std::uint32_t i : order) out.rows.push_back({ips[i], counts[i], by_row[i]});
  return out;
}

}  // namespace tagop::arm_spe
