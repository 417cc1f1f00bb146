#include "unwind_warnings.hpp"

#include <algorithm>  // std::sort
#include <utility>    // std::pair

#include <fmt/format.h>  // fmt::format

namespace tagop::report {

std::vector<std::string> unwind_warnings(const std::map<std::string, std::uint64_t>& not_unwound, std::uint64_t unwound,
                                         const UserStackUnwinder* unwinder) {
  std::vector<std::string> out;
  if (!not_unwound.empty()) {
    std::vector<std::pair<std::uint64_t, std::string>> why;
    std::uint64_t n = 0;
    for (const auto& [reason, count] : not_unwound) {
      why.emplace_back(count, reason);
      n += count;
    }
    std::sort(why.begin(), why.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string reasons;
    for (std::size_t i = 0; i < why.size() && i < 4; ++i)
      reasons += fmt::format("{}{} ({})", i ? "; " : "", why[i].second, why[i].first);
    if (why.size() > 4) reasons += fmt::format("; {} other reasons", why.size() - 4);
    out.push_back(fmt::format("{} sample{} with user stacks (perf record --call-graph dwarf) could not be unwound, or "
                              "only in part ({} were): {}",
                              n, n == 1 ? "" : "s", unwound, reasons));
  }
  if (unwinder)
    for (const std::string& problem : unwinder->module_problems())
      out.push_back(fmt::format("user stack unwinding: {}", problem));
  return out;
}

}  // namespace tagop::report
