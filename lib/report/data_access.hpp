#pragma once
// What a sample's data access was, as perf c2c report counts it: a load or
// a store, whether it missed the L1, whether its snoop found the line
// Modified (HITM) and in another node. One bit set per sample, made from
// perf's DATA_SRC or from an IBS op's decoded conditions; the local data
// views (walk.cpp) and the store's rows (ingest.cpp) keep the same bits.

#include <cstdint>  // std::uint64_t

#include <tagop/conditions.hpp>  // ConditionSet

namespace tagop::report {

namespace DataAccess {
inline constexpr std::uint64_t load = 1, store = 2, l1_miss = 4, hitm = 8, remote = 16;
}

/// A perf_mem_data_src value's access, as c2c_decode_stats in perf's
/// tools/perf/util/mem-events.c counts it.
std::uint64_t data_src_access(std::uint64_t data_src);

/// An IBS op's access by its decoded conditions, in the same terms.
std::uint64_t ibs_access(const ConditionSet& conditions);

}  // namespace tagop::report
