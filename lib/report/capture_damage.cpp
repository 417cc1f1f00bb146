#include <tagop/report/capture_damage.hpp>

#include <vector>  // std::vector

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

namespace tagop::report {

std::string capture_damage(const perf_data::FileInfo& info, const perf_data::ReadSummary& summary,
                           std::uint64_t skipped) {
  std::vector<std::string> parts;
  if (skipped) parts.push_back(fmt::format("{} record{} skipped", skipped, skipped == 1 ? "" : "s"));
  if (summary.unread_bytes) parts.push_back(fmt::format("{} bytes of data not read", summary.unread_bytes));
  if (summary.truncated) parts.push_back("the file truncated");
  if (summary.shrunk_to) parts.push_back("the file shrank while it was read");
  if (!info.damaged_features.empty())
    parts.push_back(fmt::format("feature section{} {} damaged", info.damaged_features.size() == 1 ? "" : "s",
                                fmt::join(info.damaged_features, ", ")));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace tagop::report
