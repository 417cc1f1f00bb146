#include "report_samples.hpp"

#include <algorithm>  // std::sort
#include <cstdio>     // stderr

#include <fmt/format.h>       // fmt::print
#include <fmt/ranges.h>       // fmt::join
#include <nlohmann/json.hpp>  // the JSON form

#include <tagop/emulate/marker.hpp>  // emulation_of
#include <tagop/error.hpp>           // Error

#include "terminal.hpp"  // csv_row

namespace tagop::cli {

bool holds_ibs_events(const perf_data::FileInfo& info) {
  const auto fetch = info.pmu_type("ibs_fetch"), op = info.pmu_type("ibs_op");
  for (const perf_data::EventAttr& a : info.attrs) {
    if ((fetch && a.attr.type == *fetch) || (op && a.attr.type == *op)) return true;
    if (!fetch && !op && a.attr.type >= PERF_TYPE_MAX && (a.attr.sample_type & PERF_SAMPLE_RAW)) return true;
  }
  return false;
}

perf_data::ReadSummary report_plain_samples(perf_data::PerfDataReader& reader, const std::string& file, RowKind by,
                          ReportFilters filters, std::size_t top, Format format) {
  const perf_data::FileInfo& info = reader.info();
  ReportBuilder builder(reader, nullptr, by, std::move(filters), false);
  const perf_data::ReadSummary summary = reader.read(builder);
  builder.finish();

  std::vector<std::string> names;
  for (const perf_data::EventAttr& a : info.attrs)
    names.push_back(a.name.empty() ? fmt::format("type {} config {:#x}", a.attr.type, a.attr.config) : a.name);
  const std::string events = fmt::format("{}", fmt::join(names, ", "));
  const auto emulation = emulate::emulation_of(info);
  const std::string emulated = emulation ? emulation->label() : "";
  std::vector<std::string> warnings = info.warnings;
  warnings.insert(warnings.end(), summary.warnings.begin(), summary.warnings.end());
  warnings.insert(warnings.end(), builder.warnings().begin(), builder.warnings().end());
  if (summary.skipped.count)
    warnings.push_back(fmt::format("skipped {} damaged record{} (the first at offset {}: {})", summary.skipped.count,
                                   summary.skipped.count == 1 ? "" : "s", summary.skipped.first_offset,
                                   summary.skipped.first_reason));
  for (const std::string& w : warnings) fmt::print(stderr, "tagop: warning: {}\n", printable(w));
  if (summary.lost) fmt::print(stderr, "tagop: warning: the kernel lost {} samples while recording\n", summary.lost);
  if (summary.samples == 0) throw tagop::Error(fmt::format("{}: no samples", file));

  const auto& counts = builder.plain_counts();
  std::uint64_t kept = 0;
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < counts.size(); ++i)
    if (counts[i]) order.push_back(i), kept += counts[i];
  const auto& rows = builder.rows();
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return counts[a] != counts[b] ? counts[a] > counts[b] : rows[a].name < rows[b].name;
  });
  const std::size_t row_count = order.size();
  if (top && order.size() > top) order.resize(top);
  auto percent = [&](std::uint32_t i) { return kept ? 100.0 * static_cast<double>(counts[i]) / static_cast<double>(kept) : 0.0; };

  switch (format) {
    case Format::json: {
      nlohmann::json j{{"file", file}, {"ibs", false}, {"events", names}, {"samples", summary.samples},
                       {"kept", kept}, {"lost", summary.lost}, {"row_count", row_count}};
      j["emulated"] = emulated.empty() ? nlohmann::json(nullptr) : nlohmann::json(emulated);
      const perf_data::Skipped& skipped = summary.skipped;
      j["skipped"] = {{"count", skipped.count},
                      {"first_offset", skipped.count ? nlohmann::json(skipped.first_offset) : nlohmann::json(nullptr)},
                      {"first_reason", skipped.count ? nlohmann::json(skipped.first_reason) : nlohmann::json(nullptr)}};
      j["truncated"] = summary.truncated;
      j["unread_bytes"] = summary.unread_bytes;
      j["resyncs"] = summary.resyncs;
      j["shrunk_to"] = summary.shrunk_to ? nlohmann::json(*summary.shrunk_to) : nlohmann::json(nullptr);
      j["damaged_features"] = info.damaged_features;
      j["rows"] = nlohmann::json::array();
      for (std::uint32_t i : order)
        j["rows"].push_back({{"name", rows[i].name}, {"module", rows[i].module}, {"samples", counts[i]}});
      print_json(j);
      break;
    }
    case Format::csv:
      fmt::print("samples,percent,name,module{}\n", emulated.empty() ? "" : ",capture");
      for (std::uint32_t i : order) {
        std::vector<std::string> cells{std::to_string(counts[i]), fmt::format("{:.2f}", percent(i)),
                                       printable(rows[i].name), printable(rows[i].module)};
        if (!emulated.empty()) cells.push_back(emulated);
        fmt::print("{}", csv_row(cells));
      }
      break;
    case Format::text:
      if (!emulated.empty()) fmt::print("capture: {}\n", emulated);
      fmt::print("{}: no IBS events, so no derived events: the {} samples of {} counted by row ({} kept, {} lost)\n\n",
                 printable(file), summary.samples, printable(events), kept, summary.lost);
      fmt::print("{:>10} {:>8}  {}\n", "samples", "percent", "name");
      for (std::uint32_t i : order) {
        const bool module_differs = !rows[i].module.empty() && rows[i].module != rows[i].name;
        fmt::print("{:>10} {:>7.2f}%  {}{}\n", counts[i], percent(i), printable(rows[i].name),
                   module_differs && by != RowKind::module ? "  (" + printable(rows[i].module) + ")" : "");
      }
      if (row_count > order.size()) fmt::print("({} more rows: --top 0 shows all)\n", row_count - order.size());
      break;
  }
  return summary;
}

}  // namespace tagop::cli
