#pragma once
// PERF_SAMPLE_DATA_SRC (union perf_mem_data_src, include/uapi/linux/
// perf_event.h) read as model conditions, in the vocabulary the IBS decoder
// uses: what a `perf mem record` capture on AMD carries instead of raw IBS
// registers. The reading follows what Linux writes for an IBS op sample
// (perf_ibs_get_data_src() in arch/x86/events/amd/ibs.c, Linux 6.1), so that
// a field it leaves PERF_MEM_*_NA is read as that code means it: a lock
// field of NA is "not locked", a DTLB field of NA "not known".
//
//   const auto r = tagop::read_data_src(record.data_src);
//   sample.conditions |= r.conditions;  sample.observed |= r.observed;
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstdint>  // std::uint64_t

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/conditions.hpp>  // ConditionSet

namespace tagop TAGOP_API {

struct DataSrcReading {
  /// The conditions that hold (a subset of `observed`).
  ConditionSet conditions;
  /// The conditions the value decides, true or false.
  ConditionSet observed;
};

/// The conditions a perf_mem_data_src value decides. Levels: L1 hit
/// (!dc.miss), L2 hit (dc.miss & !l2.miss), L3 (src.l3), Linux's "L3 or
/// remote cache 1 hop" of Zen 1-3 (src.l3 and src.cache undecided), a
/// peer cache of this node (src.cache) or of another (src.cache &
/// src.remote), DRAM (src.dram), PMEM (src.pmem), CXL (src.cxl), I/O
/// (src.io), uncached (mem.uncacheable); snoop HITM a Modified line
/// (src.cache_modified, !src.cache_owned), another snoop result a line
/// that was not (!src.cache_modified); the DTLB level and the lock.
DataSrcReading read_data_src(std::uint64_t data_src);

}  // namespace tagop
