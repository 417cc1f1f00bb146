// Every IBS register field, by family, model and capabilities.
//
// Sources: the AMD BKDGs for Families 10h, 12h, 15h and 16h and the PPRs
// for Families 17h, 19h and 1Ah, as carried in the Linux kernel
// (arch/x86/include/asm/amd/ibs.h, formerly asm/amd-ibs.h, and
// arch/x86/events/amd/ibs.c) and in perf (tools/perf/util/amd-sample-raw.c),
// and the AMD Research IBS Toolkit's per-family notes; shared/reference/
// amd-ibs.md summarises them. Where Linux reads a bit only under a
// condition, the field says so in only_if (the kernel treats the bits as
// absent) or valid_if (the bits cannot be trusted either way), with the
// kernel or perf version the rule appeared in.

#include <tagop/amd_ibs/layout.hpp>

#include <initializer_list>  // measures({...})

namespace tagop::amd_ibs {

namespace {

using R = IbsRegister;

// Processor spans that fields come and go with. Family 14h has no IBS;
// the small cores of Family 16h follow Family 15h models 30h+ ("Kaveri").
constexpr CpuRange family_10h{0x10, 0x00, 0x10, 0xFF};
constexpr CpuRange to_bulldozer{0x10, 0x00, 0x15, 0x0F};  // 10h, 12h Llano, 15h 00h-0Fh
constexpr CpuRange to_trinity{0x10, 0x00, 0x15, 0x2F};    // ... 15h 10h-1Fh
constexpr CpuRange families_10h_to_16h{0x10, 0x00, 0x16, 0xFF};
constexpr CpuRange pre_zen_big_cores{0x10, 0x00, 0x15, 0xFF};  // 16h lacks NB node/state
constexpr CpuRange from_llano{0x12, 0x00, 0xFF, 0xFF};
constexpr CpuRange from_kaveri{0x15, 0x30, 0xFF, 0xFF};
constexpr CpuRange from_carrizo{0x15, 0x60, 0xFF, 0xFF};
constexpr CpuRange carrizo_stoney{0x15, 0x60, 0x15, 0x7F};
constexpr CpuRange zen{0x17, 0x00, 0xFF, 0xFF};
// Family 19h models 00h-0Fh (Milan and its kin, the first Zen 3 parts)
// carry the IBS errata #1238, #1293 and #1347 of their revision guide;
// Linux and perf test exactly `family == 0x19 && model < 0x10`.
constexpr CpuRange zen3_early{0x19, 0x00, 0x19, 0x0F};
constexpr CpuRange before_zen3_early{0x10, 0x00, 0x18, 0xFF};
constexpr CpuRange after_zen3_early{0x19, 0x10, 0xFF, 0xFF};
constexpr CpuRange kaveri_to_hygon{0x15, 0x30, 0x18, 0xFF};
constexpr CpuRange zen_to_hygon{0x17, 0x00, 0x18, 0xFF};
// Where IbsOpData2's CacheHitSt is valid: not on Zen 3 (Family 19h models
// 00h-0Fh and 20h-5Fh), as Linux's perf_ibs_cache_hit_st_valid() (6.1) has it.
constexpr CpuRange zen4_first{0x19, 0x10, 0x19, 0x1F};
constexpr CpuRange zen4_model_60h_on{0x19, 0x60, 0xFF, 0xFF};
// Zen 6: Family 1Ah models 50h-5Fh, 80h-AFh and C0h-CFh (Linux's
// X86_FEATURE_ZEN6 in arch/x86/kernel/cpu/amd.c, "x86/CPU/AMD: Add
// X86_FEATURE_ZEN6", 6.16, and "x86/CPU/AMD: Extend Zen6 model range", 2025).
constexpr auto zen6_models = std::array<CpuRange, 3>{CpuRange{0x1A, 0x50, 0x1A, 0x5F}, CpuRange{0x1A, 0x80, 0x1A, 0xAF},
                                              CpuRange{0x1A, 0xC0, 0x1A, 0xCF}};

constexpr std::array<CpuRange, 3> only(CpuRange r) { return {r, CpuRange{}, CpuRange{}}; }
constexpr std::array<CpuRange, 3> either(CpuRange a, CpuRange b) { return {a, b, CpuRange{}}; }
constexpr std::array<CpuRange, 3> any_of(CpuRange a, CpuRange b, CpuRange c) { return {a, b, c}; }

constexpr auto unerrated = either(before_zen3_early, after_zen3_early);
constexpr auto zen_unerrated = either(zen_to_hygon, after_zen3_early);

// Gates, as Linux's perf_ibs_get_mem_lvl() (arch/x86/events/amd/ibs.c,
// Linux 6.1) reads IbsOpData2: a data source only for a load that missed
// the DC and the L2 (an L2 hit returns before DataSrc is looked at), ...
constexpr Term missed_l2_load{.require = {condition("load"), condition("dc.miss"), condition("l2.miss")}};
// ... and on Family 19h models 00h-0Fh not at all when DcMissNoMabAlloc or
// SwPf is set (erratum #1293: perf_ibs_get_op_data2() zeroes IbsOpData2).
constexpr Term missed_l2_load_1293{.require = {condition("load"), condition("dc.miss"), condition("l2.miss")},
                                   .forbid = {condition("dc.miss_no_mab"), condition("mem.sw_prefetch")}};
constexpr Term erratum_1293{.forbid = {condition("dc.miss_no_mab"), condition("mem.sw_prefetch")}};
// An uncacheable access's DataSrc is valid only when it names I/O ("DcMiss,
// L2Miss, DataSrc, DcMissLat etc. are all invalid for Uncached memory
// accesses": perf_ibs_get_mem_lvl checks DcUcMemAcc first).
constexpr Term cacheable{.forbid = {condition("mem.uncacheable")}};

constexpr ConditionSet remote{condition("src.remote")};
// The supplying line's state (CacheHitSt), which the hardware reports for
// some data sources only: the others decide it false, as Linux's
// perf_ibs_get_mem_snoop() reports no HITM for them.
constexpr ConditionSet line_state{condition("src.cache_modified"), condition("src.cache_owned")};
constexpr ConditionSet remote_or_line_state = remote | line_state;

constexpr ValueMeaning line_states[] = {
    {.value = 0, .conditions = {condition("src.cache_modified")}, .text = "Modified"},
    {.value = 1, .conditions = {condition("src.cache_owned")}, .text = "Owned"},
};

constexpr ValueMeaning fetch_page_sizes[] = {
    {.value = 0, .conditions = {condition("itlb.page_4k")}, .text = "4 KiB"},
    {.value = 1, .conditions = {condition("itlb.page_2m")}, .text = "2 MiB"},
    {.value = 2, .conditions = {condition("itlb.page_1g")}, .text = "1 GiB"},
    {.value = 3, .text = "reserved"},
};
// Erratum #1347 (Family 19h models 00h-0Fh): the erratum's own table.
// A 16 KiB entry (four coalesced 4 KiB pages) is neither 4 KiB nor 2 MiB.
constexpr ValueMeaning fetch_page_sizes_1347[] = {
    {.value = 0, .conditions = {condition("itlb.page_4k")}, .text = "4 KiB"},
    {.value = 1, .text = "16 KiB (erratum #1347 encoding)"},
    {.value = 2, .conditions = {condition("itlb.page_2m")}, .text = "2 MiB"},
    {.value = 3, .conditions = {condition("itlb.page_1g")}, .text = "1 GiB"},
};

constexpr ValueMeaning northbridge_sources[] = {
    {.value = 0, .text = "no valid status"},
    {.value = 1, .conditions = {condition("src.l3")}, .text = "L3 cache"},
    {.value = 2, .conditions = {condition("src.cache")}, .text = "another core's cache"},
    {.value = 3, .conditions = {condition("src.dram")}, .text = "DRAM"},
    {.value = 7, .conditions = {condition("src.io")}, .text = "MMIO, configuration, PCI or APIC"},
};

// Zen 1 to Zen 3 (perf's pr_ibs_op_data2_default, Linux's IBS_DATA_SRC_*).
// Source 2 is the L3 or another core's cache of this node, which the
// kernel reports as PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1: it does not
// say which, so src.l3 and src.cache stay undecided. The supplying line's
// state is reported for source 2 only (Linux's perf_ibs_get_mem_snoop()
// gives HITM for it alone, perf prints CacheHitSt for it alone). RmtNode
// counts for DRAM only (Linux's RMT_NODE_APPLICABLE(), 6.1: the I/O source
// is never remote, the caches' sources say where they are).
constexpr ValueMeaning zen_sources[] = {
    {.value = 0, .text = "no valid status"},
    {.value = 1, .text = "reserved"},
    {.value = 2,
     .conditions = {condition("nb.valid")},
     .unknown = {condition("src.l3"), condition("src.cache")},
     .excludes = remote,
     .only_if = cacheable,
     .text = "local node cache: the L3 or another core's cache, not said which"},
    {.value = 3, .conditions = {condition("nb.valid"), condition("src.dram")}, .excludes = line_state,
     .only_if = cacheable, .text = "DRAM"},
    {.value = 4,
     .conditions = {condition("nb.valid"), condition("src.cache"), condition("src.remote")},
     .excludes = line_state,
     .only_if = cacheable,
     .text = "remote node cache"},
    {.value = 5, .text = "reserved"},
    {.value = 6, .text = "reserved"},
    {.value = 7, .conditions = {condition("nb.valid"), condition("src.io")}, .excludes = remote_or_line_state,
     .text = "other: MMIO, configuration, PCI or APIC"},
};

// Zen 4 and later, with IBS capability bit 11 (perf's
// pr_ibs_op_data2_extended, Linux's IBS_DATA_SRC_EXT_*): five bits.
// Source 1 is what Linux reports as an L3 hit (g_zen4_data_src: the CCX's
// L3 answers for its cores' caches through its shadow tags), but the PPR's
// words are "local L3 or other L1/L2 in CCX": whether another core's cache
// supplied the line stays undecided. The line's state is reported for
// sources 1, 2 and 5 (perf_ibs_get_mem_snoop(): HITM for those three);
// RmtNode counts for DRAM, long-latency and extension memory only
// (ZEN4_RMT_NODE_BITS, Linux 6.1); source 12 Linux names no level.
constexpr ValueMeaning zen4_sources[] = {
    {.value = 0, .text = "no valid status"},
    {.value = 1,
     .conditions = {condition("nb.valid"), condition("src.l3")},
     .unknown = {condition("src.cache")},
     .excludes = remote,
     .only_if = cacheable,
     .text = "local L3 or another core's L1/L2 in the CCX"},
    {.value = 2,
     .conditions = {condition("nb.valid"), condition("src.cache")},
     .excludes = remote,
     .only_if = cacheable,
     .text = "another CCX's cache in the same node"},
    {.value = 3, .conditions = {condition("nb.valid"), condition("src.dram")}, .excludes = line_state,
     .only_if = cacheable, .text = "DRAM"},
    {.value = 4, .text = "reserved"},
    {.value = 5,
     .conditions = {condition("nb.valid"), condition("src.cache"), condition("src.remote")},
     .only_if = cacheable,
     .text = "another CCX's cache in another node"},
    {.value = 6,
     .conditions = {condition("nb.valid"), condition("src.pmem")},
     .excludes = line_state,
     .only_if = cacheable,
     .text = "long-latency DIMM (persistent memory)"},
    {.value = 7, .conditions = {condition("nb.valid"), condition("src.io")}, .excludes = remote_or_line_state,
     .text = "MMIO, configuration, PCI or APIC"},
    {.value = 8, .conditions = {condition("nb.valid"), condition("src.cxl")}, .excludes = line_state,
     .only_if = cacheable, .text = "extension memory (CXL)"},
    {.value = 12, .conditions = {condition("nb.valid")}, .excludes = remote_or_line_state, .only_if = cacheable,
     .text = "coherent memory of another processor type"},
};

// Zen 5 (IBS capability bit 19, Linux 6.15 "perf/amd/ibs: Update
// DTLB/PageSize decode logic"): one page size for the translation, the
// L1's on an L1 hit and the L2's on an L2 hit, so both levels' conditions.
constexpr ValueMeaning zen5_dtlb_page_sizes[] = {
    {.value = 0, .text = "4 KiB"},
    {.value = 1, .conditions = {condition("dtlb.l1_page_2m"), condition("dtlb.l2_page_2m")}, .text = "2 MiB"},
    {.value = 2, .conditions = {condition("dtlb.l1_page_1g"), condition("dtlb.l2_page_1g")}, .text = "1 GiB"},
    {.value = 3,
     .unknown = {condition("dtlb.l1_page_2m"), condition("dtlb.l2_page_2m"), condition("dtlb.l1_page_1g"),
                 condition("dtlb.l2_page_1g")},
     .text = "reserved"},
};
constexpr Term has_physical_address{.require = {condition("dc.phys_addr_valid")}};

constexpr FieldSpec fields[] = {
    // IbsFetchCtl
    {.name = "IbsFetchMaxCnt", .reg = R::IbsFetchCtl, .lsb = 0, .width = 16,
     .description = "fetch sampling period / 16"},
    {.name = "IbsFetchCnt", .reg = R::IbsFetchCtl, .lsb = 16, .width = 16,
     .description = "fetch counter when the sample was taken / 16"},
    {.name = "IbsFetchLat", .reg = R::IbsFetchCtl, .lsb = 32, .width = 16,
     .measure = measure("fetch.latency"), .description = "cycles from the fetch's start to its completion or abort"},
    {.name = "IbsFetchEn", .reg = R::IbsFetchCtl, .lsb = 48, .description = "fetch sampling enabled"},
    {.name = "IbsFetchVal", .reg = R::IbsFetchCtl, .lsb = 49, .description = "the fetch sample is valid"},
    {.name = "IbsFetchComp", .reg = R::IbsFetchCtl, .lsb = 50, .flag = condition("fetch.completed"),
     .description = "the fetch completed"},
    {.name = "IbsIcMiss", .reg = R::IbsFetchCtl, .lsb = 51, .cpus = unerrated, .flag = condition("ic.miss"),
     .description = "instruction cache miss"},
    {.name = "IbsIcMiss", .reg = R::IbsFetchCtl, .lsb = 51, .cpus = only(zen3_early),
     .why = "erratum #1238: IbsIcMiss is not usable (perf ignores it since Linux 5.15)",
     .description = "instruction cache miss (not usable)"},
    {.name = "IbsPhyAddrValid", .reg = R::IbsFetchCtl, .lsb = 52, .flag = condition("itlb.translated"),
     .description = "the fetch physical address is valid"},
    {.name = "IbsL1TlbPgSz", .reg = R::IbsFetchCtl, .lsb = 53, .width = 2, .cpus = unerrated,
     .values = fetch_page_sizes, .only_if = {.require = {condition("itlb.translated")}},
     .description = "L1 ITLB page size (with IbsPhyAddrValid)"},
    {.name = "IbsL1TlbPgSz", .reg = R::IbsFetchCtl, .lsb = 53, .width = 2, .cpus = only(zen3_early),
     .values = fetch_page_sizes_1347, .only_if = {.require = {condition("itlb.translated")}},
     .why = "erratum #1347: 0 = 4K, 1 = 16K, 2 = 2M, 3 = 1G (perf since Linux 5.15)",
     .description = "L1 ITLB page size (with IbsPhyAddrValid)"},
    {.name = "IbsL1TlbMiss", .reg = R::IbsFetchCtl, .lsb = 55, .flag = condition("itlb.l1_miss"),
     .description = "L1 ITLB miss"},
    {.name = "IbsL2TlbMiss", .reg = R::IbsFetchCtl, .lsb = 56, .flag = condition("itlb.l2_miss"),
     .description = "L2 ITLB miss"},
    {.name = "IbsRandEn", .reg = R::IbsFetchCtl, .lsb = 57, .description = "randomised fetch tagging enabled"},
    {.name = "IbsFetchL2Miss", .reg = R::IbsFetchCtl, .lsb = 58, .cpus = only(zen), .flag = condition("fetch.l2_miss"),
     .only_if = {.require = {condition("fetch.completed")}},
     .description = "the completed fetch missed in the L2 cache (with IbsFetchComp)"},
    {.name = "L3MissOnly", .reg = R::IbsFetchCtl, .lsb = 59, .needs_caps = caps::Zen4Ext,
     .description = "only fetches that miss the L3 are sampled"},
    {.name = "FetchOcMiss", .reg = R::IbsFetchCtl, .lsb = 60, .needs_caps = caps::Zen4Ext,
     .flag = condition("fetch.oc_miss"), .description = "the fetch missed in the op cache"},
    {.name = "FetchL3Miss", .reg = R::IbsFetchCtl, .lsb = 61, .needs_caps = caps::Zen4Ext,
     .flag = condition("fetch.l3_miss"), .description = "the fetch missed in the L3 cache"},
    // IbsFetchLinAd, IbsFetchPhysAd, IbsFetchCtlExtd
    {.name = "IbsFetchLinAd", .reg = R::IbsFetchLinAd, .lsb = 0, .width = 64, .address = AddressSlot::ip,
     .description = "fetch linear address"},
    {.name = "IbsFetchPhysAd", .reg = R::IbsFetchPhysAd, .lsb = 0, .width = 48,
     .address = AddressSlot::ip_physical, .only_if = {.require = {condition("itlb.translated")}},
     .description = "fetch physical address"},
    {.name = "IbsItlbRefillLat", .reg = R::IbsFetchCtlExtd, .lsb = 0, .width = 16, .cpus = only(from_carrizo),
     .measure = measure("fetch.itlb_refill_latency"), .description = "cycles to refill the ITLB"},

    // IbsOpCtl
    {.name = "IbsOpMaxCnt", .reg = R::IbsOpCtl, .lsb = 0, .width = 16, .description = "op sampling period / 16, low bits"},
    {.name = "L3MissOnly", .reg = R::IbsOpCtl, .lsb = 16, .needs_caps = caps::Zen4Ext,
     .description = "only ops that miss the L3 are sampled"},
    {.name = "IbsOpEn", .reg = R::IbsOpCtl, .lsb = 17, .description = "op sampling enabled"},
    {.name = "IbsOpVal", .reg = R::IbsOpCtl, .lsb = 18, .description = "the op sample is valid"},
    {.name = "IbsOpCntCtl", .reg = R::IbsOpCtl, .lsb = 19, .description = "1: count dispatched ops, 0: count cycles"},
    {.name = "IbsOpMaxCntExt", .reg = R::IbsOpCtl, .lsb = 20, .width = 7, .cpus = only(from_llano),
     .description = "op sampling period / 16, bits 22:16"},
    {.name = "IbsOpCurCnt", .reg = R::IbsOpCtl, .lsb = 32, .width = 20, .cpus = only(family_10h),
     .description = "op counter when the sample was taken"},
    {.name = "IbsOpCurCnt", .reg = R::IbsOpCtl, .lsb = 32, .width = 27, .cpus = only(from_llano),
     .description = "op counter when the sample was taken"},
    {.name = "LdLatThrsh", .reg = R::IbsOpCtl, .lsb = 59, .width = 4, .needs_caps = caps::OpLdLat,
     .description = "load-latency filter threshold (Linux 6.15)"},
    {.name = "LdLatEn", .reg = R::IbsOpCtl, .lsb = 63, .needs_caps = caps::OpLdLat,
     .description = "load-latency filter enabled (Linux 6.15)"},
    // IbsOpRip: not valid when IbsRipInvalid says so; Linux then gives the
    // sample the interrupted address and clears PERF_RECORD_MISC_EXACT_IP.
    {.name = "IbsOpRip", .reg = R::IbsOpRip, .lsb = 0, .width = 64, .address = AddressSlot::ip,
     .only_if = {.forbid = {condition("op.rip_invalid")}},
     .description = "linear address of the instruction the op came from (unless IbsRipInvalid)"},
    // IbsOpData
    {.name = "IbsCompToRetCtr", .reg = R::IbsOpData, .lsb = 0, .width = 16, .measure = measure("op.comp_to_retire"),
     .description = "cycles from the op's completion to its retirement"},
    {.name = "IbsTagToRetCtr", .reg = R::IbsOpData, .lsb = 16, .width = 16, .measure = measure("op.tag_to_retire"),
     .description = "cycles from the op's tagging to its retirement"},
    {.name = "IbsOpBrnResync", .reg = R::IbsOpData, .lsb = 32, .cpus = only(to_bulldozer), .flag = condition("resync"),
     .description = "resync op"},
    {.name = "IbsOpMispReturn", .reg = R::IbsOpData, .lsb = 33, .cpus = only(to_bulldozer),
     .flag = condition("return.mispredicted"), .description = "mispredicted return op"},
    {.name = "IbsOpReturn", .reg = R::IbsOpData, .lsb = 34, .flag = condition("return"), .description = "return op"},
    {.name = "IbsOpBrnTaken", .reg = R::IbsOpData, .lsb = 35, .flag = condition("branch.taken"),
     .description = "taken branch op"},
    {.name = "IbsOpBrnMisp", .reg = R::IbsOpData, .lsb = 36, .flag = condition("branch.mispredicted"),
     .description = "mispredicted branch op"},
    {.name = "IbsOpBrnRet", .reg = R::IbsOpData, .lsb = 37, .flag = condition("branch"),
     .description = "retired branch op"},
    {.name = "IbsRipInvalid", .reg = R::IbsOpData, .lsb = 38, .cpus = only(from_llano),
     .flag = condition("op.rip_invalid"), .description = "IbsOpRip is not valid"},
    {.name = "IbsOpBrnFuse", .reg = R::IbsOpData, .lsb = 39, .cpus = only(from_kaveri), .flag = condition("branch.fused"),
     .description = "fused branch op"},
    {.name = "IbsOpMicrocode", .reg = R::IbsOpData, .lsb = 40, .cpus = only(from_kaveri),
     .flag = condition("op.microcoded"), .description = "the op came from microcode"},
    // IbsOpData2: the northbridge's report before Zen ...
    {.name = "NbIbsReqSrc", .reg = R::IbsOpData2, .lsb = 0, .width = 3, .cpus = only(families_10h_to_16h),
     .values = northbridge_sources, .nonzero = condition("nb.valid"),
     .description = "where the data of a northbridge request came from"},
    {.name = "NbIbsReqDstProc", .reg = R::IbsOpData2, .lsb = 4, .cpus = only(pre_zen_big_cores),
     .flag = condition("src.remote"), .description = "1: the request was served by another node"},
    {.name = "NbIbsReqCacheHitSt", .reg = R::IbsOpData2, .lsb = 5, .cpus = only(pre_zen_big_cores),
     .values = line_states, .only_if = {.require = {condition("src.cache")}},
     .description = "state of the supplying cache line, for a line from another core's cache: 0 Modified, 1 Owned"},
    // ... its data-source form on Zen 1 to Zen 3 ...
    {.name = "DataSrc", .reg = R::IbsOpData2, .lsb = 0, .width = 3, .cpus = zen_unerrated, .unless_caps = caps::Zen4Ext,
     .values = zen_sources, .only_if = missed_l2_load,
     .description = "where the data of a load that missed the L2 came from"},
    {.name = "DataSrc", .reg = R::IbsOpData2, .lsb = 0, .width = 3, .cpus = only(zen3_early),
     .unless_caps = caps::Zen4Ext, .values = zen_sources, .only_if = missed_l2_load_1293,
     .why = "erratum #1293: IbsOpData2 is not valid with DcMissNoMabAlloc or SwPf (Linux 6.1)",
     .description = "where the data of a load that missed the L2 came from"},
    // ... and Zen 4's, five bits wide, with IBS capability bit 11.
    {.name = "DataSrc", .reg = R::IbsOpData2, .lsb = 0, .width = 3, .high_lsb = 6, .high_width = 2, .cpus = only(zen),
     .needs_caps = caps::Zen4Ext, .values = zen4_sources, .only_if = missed_l2_load,
     .description = "where the data of a load that missed the L2 came from (DataSrcHi 7:6 above DataSrc 2:0)"},
    {.name = "RmtNode", .reg = R::IbsOpData2, .lsb = 4, .cpus = zen_unerrated, .flag = condition("src.remote"),
     .only_if = missed_l2_load, .description = "1: the data came from another node"},
    {.name = "RmtNode", .reg = R::IbsOpData2, .lsb = 4, .cpus = only(zen3_early), .flag = condition("src.remote"),
     .only_if = missed_l2_load_1293, .why = "erratum #1293",
     .description = "1: the data came from another node"},
    // The line's state where a data source was reported; the sources that
    // report none (DRAM, I/O, ...) decide it false (their .excludes).
    {.name = "CacheHitSt", .reg = R::IbsOpData2, .lsb = 5, .cpus = any_of(zen_to_hygon, zen4_first, zen4_model_60h_on),
     .values = line_states, .only_if = {.require = {condition("nb.valid")}},
     .description = "state of the supplying cache line (DataSrc 2 before Zen 4; 1, 2 and 5 on Zen 4): 0 Modified, "
                    "1 Owned"},
    {.name = "StrmSt", .reg = R::IbsOpData2, .lsb = 8, .needs_caps = caps::StrmStRmtSocket,
     .description = "streaming store"},
    {.name = "RmtSocket", .reg = R::IbsOpData2, .lsb = 9, .needs_caps = caps::StrmStRmtSocket,
     .description = "the data came from another socket"},
    // IbsOpData3
    {.name = "IbsLdOp", .reg = R::IbsOpData3, .lsb = 0, .flag = condition("load"), .description = "load op"},
    {.name = "IbsStOp", .reg = R::IbsOpData3, .lsb = 1, .flag = condition("store"), .description = "store op"},
    {.name = "IbsDcL1tlbMiss", .reg = R::IbsOpData3, .lsb = 2, .unless_caps = caps::OpDtlbPgSize,
     .flag = condition("dtlb.l1_miss"), .description = "L1 DTLB miss"},
    {.name = "IbsDcL1tlbMiss", .reg = R::IbsOpData3, .lsb = 2, .needs_caps = caps::OpDtlbPgSize,
     .flag = condition("dtlb.l1_miss"), .valid_if = has_physical_address,
     .why = "Zen 5 reports the DTLB outcome only with IbsDcPhyAddrValid (Linux 6.15)",
     .description = "L1 DTLB miss (with IbsDcPhyAddrValid)"},
    {.name = "IbsDcL2tlbMiss", .reg = R::IbsOpData3, .lsb = 3, .unless_caps = caps::OpDtlbPgSize,
     .flag = condition("dtlb.l2_miss"), .description = "L2 DTLB miss"},
    {.name = "IbsDcL2tlbMiss", .reg = R::IbsOpData3, .lsb = 3, .needs_caps = caps::OpDtlbPgSize,
     .flag = condition("dtlb.l2_miss"), .valid_if = has_physical_address,
     .why = "Zen 5 reports the DTLB outcome only with IbsDcPhyAddrValid (Linux 6.15)",
     .description = "L2 DTLB miss (with IbsDcPhyAddrValid)"},
    {.name = "IbsDcL1tlbHit2M", .reg = R::IbsOpData3, .lsb = 4, .unless_caps = caps::OpDtlbPgSize,
     .flag = condition("dtlb.l1_page_2m"), .description = "L1 DTLB translation of a 2 MiB page"},
    {.name = "IbsDcL1tlbHit1G", .reg = R::IbsOpData3, .lsb = 5, .unless_caps = caps::OpDtlbPgSize,
     .flag = condition("dtlb.l1_page_1g"), .description = "L1 DTLB translation of a 1 GiB page"},
    {.name = "DcPageSize", .reg = R::IbsOpData3, .lsb = 4, .width = 2, .needs_caps = caps::OpDtlbPgSize,
     .values = zen5_dtlb_page_sizes, .valid_if = has_physical_address,
     .why = "Zen 5 reports the DTLB outcome only with IbsDcPhyAddrValid (Linux 6.15)",
     .description = "page size of the translation (with IbsDcPhyAddrValid)"},
    {.name = "IbsDcL2tlbHit2M", .reg = R::IbsOpData3, .lsb = 6, .unless_caps = caps::OpDtlbPgSize,
     .flag = condition("dtlb.l2_page_2m"), .description = "L2 DTLB hit in a 2 MiB page"},
    {.name = "IbsDcMiss", .reg = R::IbsOpData3, .lsb = 7, .flag = condition("dc.miss"), .description = "data cache miss"},
    {.name = "IbsDcMisAcc", .reg = R::IbsOpData3, .lsb = 8, .flag = condition("mem.misaligned"),
     .description = "misaligned access"},
    {.name = "IbsDcLdBnkCon", .reg = R::IbsOpData3, .lsb = 9, .cpus = only(family_10h),
     .flag = condition("dc.bank_conflict_load"), .description = "bank conflict on a load"},
    {.name = "IbsDcStBnkCon", .reg = R::IbsOpData3, .lsb = 10, .cpus = only(family_10h),
     .flag = condition("dc.bank_conflict_store"), .description = "bank conflict on a store"},
    // Bit 11 too is reserved after Family 10h: the PPR-derived kernel
    // header marks bits 9-12 reserved on Zen, and the IBS Toolkit marks all
    // four "Family 10h only".
    {.name = "IbsDcStToLdFwd", .reg = R::IbsOpData3, .lsb = 11, .cpus = only(family_10h),
     .flag = condition("stlf.forwarded"), .description = "data forwarded from a store to this load"},
    {.name = "IbsDcStToLdCan", .reg = R::IbsOpData3, .lsb = 12, .cpus = only(family_10h),
     .flag = condition("stlf.cancelled"), .description = "store-to-load forwarding cancelled"},
    // 13 = WC and 14 = UC, as every AMD translator since 2010 (OProfile,
    // CodeXL, the IBS Toolkit) and Linux read them; code from 2007-2009
    // (libpfm3, OProfile 0.9.5) had them the other way round.
    {.name = "IbsDcWcMemAcc", .reg = R::IbsOpData3, .lsb = 13, .flag = condition("mem.write_combining"),
     .description = "write-combining memory access"},
    {.name = "IbsDcUcMemAcc", .reg = R::IbsOpData3, .lsb = 14, .flag = condition("mem.uncacheable"),
     .description = "uncacheable memory access"},
    {.name = "IbsDcLockedOp", .reg = R::IbsOpData3, .lsb = 15, .flag = condition("mem.locked"),
     .description = "locked operation"},
    {.name = "IbsDcMabHit", .reg = R::IbsOpData3, .lsb = 16, .cpus = only(to_trinity), .flag = condition("dc.mab_hit"),
     .description = "the miss hit an allocated miss address buffer"},
    {.name = "DcMissNoMabAlloc", .reg = R::IbsOpData3, .lsb = 16, .cpus = only(from_kaveri),
     .flag = condition("dc.miss_no_mab"), .description = "the miss could not allocate a miss address buffer"},
    {.name = "IbsDcLinAddrValid", .reg = R::IbsOpData3, .lsb = 17, .flag = condition("dc.lin_addr_valid"),
     .description = "IbsDcLinAd is valid"},
    {.name = "IbsDcPhyAddrValid", .reg = R::IbsOpData3, .lsb = 18, .flag = condition("dc.phys_addr_valid"),
     .description = "IbsDcPhysAd is valid"},
    {.name = "IbsDcL2tlbHit1G", .reg = R::IbsOpData3, .lsb = 19, .unless_caps = caps::OpDtlbPgSize,
     .flag = condition("dtlb.l2_page_1g"), .description = "L2 DTLB hit in a 1 GiB page"},
    {.name = "IbsL2Miss", .reg = R::IbsOpData3, .lsb = 20, .cpus = either(kaveri_to_hygon, after_zen3_early),
     .flag = condition("l2.miss"), .description = "L2 cache miss"},
    {.name = "IbsL2Miss", .reg = R::IbsOpData3, .lsb = 20, .cpus = only(zen3_early), .flag = condition("l2.miss"),
     .valid_if = erratum_1293,
     .why = "erratum #1293: not valid with DcMissNoMabAlloc or SwPf (perf since Linux 5.15, the kernel since 6.1)",
     .description = "L2 cache miss"},
    {.name = "IbsSwPf", .reg = R::IbsOpData3, .lsb = 21, .cpus = only(from_kaveri), .flag = condition("mem.sw_prefetch"),
     .description = "software prefetch"},
    {.name = "IbsOpMemWidth", .reg = R::IbsOpData3, .lsb = 22, .width = 4, .cpus = only(from_kaveri),
     .description = "size of the load or store: 0 none, n 2^(n-1) bytes"},
    {.name = "IbsOpDcMissOpenMemReqs", .reg = R::IbsOpData3, .lsb = 26, .width = 6,
     .cpus = either(kaveri_to_hygon, after_zen3_early), .measure = measure("mem.open_requests"),
     .description = "memory requests outstanding when the miss's fill arrived"},
    {.name = "IbsOpDcMissOpenMemReqs", .reg = R::IbsOpData3, .lsb = 26, .width = 6, .cpus = only(zen3_early),
     .measure = measure("mem.open_requests"), .valid_if = erratum_1293,
     .why = "erratum #1293: not valid with DcMissNoMabAlloc or SwPf (perf since Linux 5.15)",
     .description = "memory requests outstanding when the miss's fill arrived"},
    {.name = "IbsDcMissLat", .reg = R::IbsOpData3, .lsb = 32, .width = 16, .measure = measure("dc.miss_latency"),
     .description = "cycles from the data cache miss to the data's arrival"},
    {.name = "IbsTlbRefillLat", .reg = R::IbsOpData3, .lsb = 48, .width = 16, .cpus = only(from_kaveri),
     .unless_caps = caps::Zen4Ext, .measure = measure("dtlb.refill_latency"),
     .description = "cycles to refill the L1 DTLB"},
    {.name = "IbsTlbRefillLat", .reg = R::IbsOpData3, .lsb = 48, .width = 16, .cpus = only(zen),
     .needs_caps = caps::Zen4Ext, .measure = measure("dtlb.refill_latency"), .valid_if = has_physical_address,
     .why = "Zen 4 and later report the refill latency only with IbsDcPhyAddrValid (perf, \"perf amd ibs: Suppress "
            "bogus TlbRefillLat and DCPhysAd on Zen4+\", 2026)",
     .description = "cycles to refill the L1 DTLB (with IbsDcPhyAddrValid)"},
    // Addresses
    {.name = "IbsDcLinAd", .reg = R::IbsDcLinAd, .lsb = 0, .width = 64, .address = AddressSlot::data_linear,
     .only_if = {.require = {condition("dc.lin_addr_valid")}}, .description = "data linear address"},
    {.name = "IbsDcPhysAd", .reg = R::IbsDcPhysAd, .lsb = 0, .width = 48, .unless_caps = caps::Zen4Ext,
     .address = AddressSlot::data_physical, .only_if = {.require = {condition("dc.phys_addr_valid")}},
     .description = "data physical address"},
    {.name = "IbsDcPhysAd", .reg = R::IbsDcPhysAd, .lsb = 0, .width = 48, .needs_caps = caps::Zen4Ext,
     .address = AddressSlot::data_physical,
     .only_if = {.require = {condition("dc.phys_addr_valid"), condition("dc.lin_addr_valid")}},
     .why = "Zen 4 and later: with IbsDcLinAddrValid too (perf, \"perf amd ibs: Suppress bogus TlbRefillLat and "
            "DCPhysAd on Zen4+\", 2026)",
     .description = "data physical address (with IbsDcPhyAddrValid and IbsDcLinAddrValid)"},
    {.name = "IbsBrTarget", .reg = R::IbsBrTarget, .lsb = 0, .width = 64, .cpus = only(from_llano),
     .address = AddressSlot::branch_target, .description = "target of the branch"},
    {.name = "IbsOpLdResync", .reg = R::IbsOpData4, .lsb = 0, .cpus = only(carrizo_stoney),
     .description = "the load caused a resync"},
};

constexpr DerivedCondition derived[] = {
    // Killed: abandoned before it reached the ITLB or the instruction
    // cache, so no outcome bit is set.
    {.unit = IbsUnit::fetch,
     .condition = condition("fetch.killed"),
     .when = Term{.require = {},
                  .forbid = {condition("fetch.completed"), condition("ic.miss"), condition("itlb.translated"),
                             condition("itlb.l1_miss"), condition("itlb.l2_miss")}},
     .except = zen3_early},
    // The same without IbsIcMiss, which erratum #1238 makes unusable.
    {.unit = IbsUnit::fetch,
     .condition = condition("fetch.killed"),
     .when = Term{.require = {},
                  .forbid = {condition("fetch.completed"), condition("itlb.translated"), condition("itlb.l1_miss"),
                             condition("itlb.l2_miss")}},
     .cpus = zen3_early,
     .why = "erratum #1238: killed is read without IbsIcMiss"},
};

constexpr std::uint32_t measures(std::initializer_list<Measure> ms) {
  std::uint32_t out = 0;
  for (Measure m : ms) out |= 1u << m.index;
  return out;
}

constexpr UndecidedRule undecided_rules[] = {
    // "DcMiss, L2Miss, DataSrc, DcMissLat etc. are all invalid for Uncached
    // memory accesses": Linux's perf_ibs_get_mem_lvl() (6.1) reads none of
    // them for one whose data source is not I/O. Written for the I/O
    // source as decided (a load that missed the L2 with DataSrc 7; an
    // uncacheable access has no other source, so !nb.valid says the same
    // to event_availability()): Linux
    // compares the raw DataSrc, also where it is not valid, so an
    // uncacheable access with a raw 7 that hit the DC or the L2 is an L1 or
    // L2 hit to Linux and undecided here.
    {.unit = IbsUnit::op,
     .when = Term{.require = {condition("mem.uncacheable")}, .forbid = {condition("nb.valid"), condition("src.io")}},
     .unknown = {condition("dc.miss"), condition("l2.miss"), condition("dc.miss_no_mab")},
     .unmeasured = measures({measure("dc.miss_latency"), measure("mem.open_requests")}),
     .cpus = only(zen),
     .why = "Linux reads no cache outcome of an uncacheable access unless its data source is I/O "
            "(perf_ibs_get_mem_lvl(), 6.1)"},
    // Zen 6's fetch status: perf's "perf amd ibs: Make Fetch status bits
    // dependent on PhyAddrValid for newer platforms" (2026) prints only
    // IbsFetchComp of them without IbsPhyAddrValid (the page size, which
    // needs it anyway, is the field's own gate).
    {.unit = IbsUnit::fetch,
     .when = Term{.forbid = {condition("itlb.translated")}},
     .unknown = {condition("ic.miss"), condition("itlb.l1_miss"), condition("itlb.l2_miss"), condition("fetch.l2_miss"),
                 condition("fetch.l3_miss"), condition("fetch.oc_miss")},
     .unmeasured = measures({measure("fetch.latency"), measure("fetch.itlb_refill_latency")}),
     .cpus = zen6_models,
     .why = "Zen 6 reports the fetch's outcome only with IbsPhyAddrValid (perf 2026, for Family 1Ah models 50h-5Fh, "
            "80h-AFh and C0h-CFh)"},
};

constexpr std::uint32_t compute_layout_caps_mask() {
  std::uint32_t m = 0;
  for (const FieldSpec& f : fields) m |= f.needs_caps | f.unless_caps;
  return m;
}

}  // namespace

std::span<const FieldSpec> field_table() { return fields; }
std::span<const DerivedCondition> derived_condition_table() { return derived; }
std::span<const UndecidedRule> undecided_rule_table() { return undecided_rules; }
std::uint32_t layout_caps_mask() { return compute_layout_caps_mask(); }

}  // namespace tagop::amd_ibs
