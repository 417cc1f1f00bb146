#pragma once
// What a reading of user stacks (perf record --call-graph dwarf) warns of,
// in the words of a report (report.cpp) and of an ingest (ingest.cpp).

#include <cstdint>  // std::uint64_t
#include <map>      // std::map
#include <string>   // std::string
#include <vector>   // std::vector

#include <tagop/user_stack_unwind.hpp>  // UserStackUnwinder

namespace tagop::report {

/// The samples not unwound (or in part), once, by reason, the most frequent
/// first (`not_unwound`: reason -> samples; `unwound`: those unwound whole),
/// then each module `unwinder` (nullptr: none) could not read.
std::vector<std::string> unwind_warnings(const std::map<std::string, std::uint64_t>& not_unwound, std::uint64_t unwound,
                                         const UserStackUnwinder* unwinder);

}  // namespace tagop::report
