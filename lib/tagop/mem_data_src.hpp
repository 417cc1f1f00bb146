#pragma once
// PERF_SAMPLE_DATA_SRC (union perf_mem_data_src, include/uapi/linux/
// perf_event.h) read as model conditions, in the vocabulary the IBS decoder
// uses: what a `perf mem record` capture carries instead of raw registers,
// on AMD (IBS), Intel (PEBS load latency and precise stores) and Arm (SPE,
// once perf has made samples of its trace). One reading for all vendors:
// where a value means different things by who wrote it, it decides only
// what they agree on. The vendors' tables it follows: AMD's
// perf_ibs_get_data_src() (arch/x86/events/amd/ibs.c, Linux 6.1 and the
// mem_lvl_num form of 6.4), Intel's pebs_data_source[] with its Nehalem
// and Skylake patches, load_latency_data() and precise_store_data()
// (arch/x86/events/intel/ds.c), Arm's arm_spe__synth_data_source()
// (tools/perf/util/arm-spe.c, Neoverse and generic).
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

/// What read_data_src() reads in a value: the conditions it decides, and
/// which of them hold.
struct DataSrcReading {
  /// The conditions that hold (a subset of `observed`).
  ConditionSet conditions;
  /// The conditions the value decides, true or false.
  ConditionSet observed;
};

/// The conditions a perf_mem_data_src value decides. Levels, by mem_lvl
/// where it names one, else by mem_lvl_num: L1 hit (!dc.miss), L1 miss
/// (dc.miss alone: Intel's stores, Arm's generic SPE), a fill buffer
/// (dc.miss & dc.miss_no_mab), L2 hit (dc.miss & !l2.miss), L3 (src.l3),
/// L3 miss (l3.miss & !src.l3: Intel's "unknown L3 miss"), Zen 1-3's "L3
/// or remote cache 1 hop" (src.l3 and src.cache undecided), a peer cache
/// (src.cache, & src.remote of another node), any cache of another node
/// (src.cache & src.remote), L4 or a memory-side cache (l2.miss & !src.l3),
/// DRAM (src.dram), PMEM (src.pmem), CXL (src.cxl), I/O (src.io),
/// uncached (mem.uncacheable). Remote: the remote bit, but for HOPS_0
/// ("remote core, same node"). Snoop HITM: a Modified line
/// (src.cache_modified, !src.cache_owned); another snoop result or a
/// forward: a line that was not (!src.cache_modified). The DTLB level
/// (dtlb.l1_miss, dtlb.l2_miss) and the lock (mem.locked).
///
/// What such captures cannot tell: no fetch or branch conditions, no op
/// type beyond load and store (no op.* conditions), no measures (the
/// latency is in PERF_SAMPLE_WEIGHT); no level at all where mem_lvl is NA
/// (AMD's miss without a data source, Haswell's precise loads); no L2 hit
/// or miss on a store that missed the L1 (Intel); whether the L1 DTLB
/// missed where the L2 DTLB hit (Intel writes L2|HIT for "no STLB miss" on
/// stores, AMD for an L1 DTLB miss: only !dtlb.l2_miss is read); the lock
/// from Arm's SPE (never set there); the line's state after an Arm
/// transfer from a peer.
DataSrcReading read_data_src(std::uint64_t data_src);

/// Every condition read_data_src() decides for some value: what a
/// --where on a `perf mem` capture may test.
ConditionSet data_src_conditions();

}  // namespace tagop
