// Every IBS register field, by family and model.
//
// Sources: the AMD BKDGs for Families 10h, 12h, 15h and 16h and the PPRs
// for Families 17h and 19h, as carried in the Linux kernel
// (arch/x86/include/asm/amd-ibs.h) and in the AMD Research IBS Toolkit's
// per-family register notes; shared/reference/amd-ibs.md summarises them.

#include <tagop/amd_ibs/layout.hpp>

namespace tagop::amd_ibs {

namespace {

using R = IbsRegister;

// Processor spans that fields come and go with. Family 14h has no IBS;
// the small cores of Family 16h follow Family 15h models 30h+ ("Kaveri").
constexpr CpuRange family_10h{0x10, 0x00, 0x10, 0xFF};
constexpr CpuRange to_bulldozer{0x10, 0x00, 0x15, 0x0F};  // 10h, 12h Llano, 15h 00h-0Fh
constexpr CpuRange to_trinity{0x10, 0x00, 0x15, 0x2F};    // ... 15h 10h-1Fh
constexpr CpuRange pre_zen{0x10, 0x00, 0x16, 0xFF};
constexpr CpuRange pre_zen_big_cores{0x10, 0x00, 0x15, 0xFF};  // 16h lacks NB node/state
constexpr CpuRange from_llano{0x12, 0x00, 0xFF, 0xFF};
constexpr CpuRange from_kaveri{0x15, 0x30, 0xFF, 0xFF};
constexpr CpuRange from_carrizo{0x15, 0x60, 0xFF, 0xFF};
constexpr CpuRange carrizo_stoney{0x15, 0x60, 0x15, 0x7F};
constexpr CpuRange zen{0x17, 0x00, 0xFF, 0xFF};
constexpr CpuRange from_family_19h{0x19, 0x00, 0xFF, 0xFF};

constexpr std::array<CpuRange, 2> only(CpuRange r) { return {r, CpuRange{}}; }

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
    {.name = "IbsIcMiss", .reg = R::IbsFetchCtl, .lsb = 51, .flag = condition("ic.miss"),
     .description = "instruction cache miss"},
    {.name = "IbsPhyAddrValid", .reg = R::IbsFetchCtl, .lsb = 52, .flag = condition("itlb.translated"),
     .description = "the fetch physical address is valid"},
    {.name = "IbsL1TlbPgSz", .reg = R::IbsFetchCtl, .lsb = 53, .width = 2,
     .values = {{{0, condition("itlb.page_4k"), "4 KiB"},
                 {1, condition("itlb.page_2m"), "2 MiB"},
                 {2, condition("itlb.page_1g"), "1 GiB"},
                 {3, std::nullopt, "reserved"}}},
     .only_if = condition("itlb.translated"), .description = "L1 ITLB page size (with IbsPhyAddrValid)"},
    {.name = "IbsL1TlbMiss", .reg = R::IbsFetchCtl, .lsb = 55, .flag = condition("itlb.l1_miss"),
     .description = "L1 ITLB miss"},
    {.name = "IbsL2TlbMiss", .reg = R::IbsFetchCtl, .lsb = 56, .flag = condition("itlb.l2_miss"),
     .description = "L2 ITLB miss"},
    {.name = "IbsRandEn", .reg = R::IbsFetchCtl, .lsb = 57, .description = "randomised fetch tagging enabled"},
    {.name = "IbsFetchL2Miss", .reg = R::IbsFetchCtl, .lsb = 58, .cpus = only(from_family_19h),
     .flag = condition("fetch.l2_miss"), .description = "the completed fetch missed in the L2 cache"},
    // IbsFetchLinAd, IbsFetchPhysAd, IbsFetchCtlExtd
    {.name = "IbsFetchLinAd", .reg = R::IbsFetchLinAd, .lsb = 0, .width = 64, .address = AddressSlot::ip,
     .description = "fetch linear address"},
    {.name = "IbsFetchPhysAd", .reg = R::IbsFetchPhysAd, .lsb = 0, .width = 48,
     .address = AddressSlot::ip_physical, .only_if = condition("itlb.translated"),
     .description = "fetch physical address"},
    {.name = "IbsItlbRefillLat", .reg = R::IbsFetchCtlExtd, .lsb = 0, .width = 16, .cpus = only(from_carrizo),
     .measure = measure("fetch.itlb_refill_latency"), .description = "cycles to refill the ITLB"},

    // IbsOpCtl
    {.name = "IbsOpMaxCnt", .reg = R::IbsOpCtl, .lsb = 0, .width = 16, .description = "op sampling period / 16, low bits"},
    {.name = "IbsOpEn", .reg = R::IbsOpCtl, .lsb = 17, .description = "op sampling enabled"},
    {.name = "IbsOpVal", .reg = R::IbsOpCtl, .lsb = 18, .description = "the op sample is valid"},
    {.name = "IbsOpCntCtl", .reg = R::IbsOpCtl, .lsb = 19, .description = "1: count dispatched ops, 0: count cycles"},
    {.name = "IbsOpMaxCntExt", .reg = R::IbsOpCtl, .lsb = 20, .width = 7, .cpus = only(from_llano),
     .description = "op sampling period / 16, bits 22:16"},
    {.name = "IbsOpCurCnt", .reg = R::IbsOpCtl, .lsb = 32, .width = 20, .cpus = only(family_10h),
     .description = "op counter when the sample was taken"},
    {.name = "IbsOpCurCnt", .reg = R::IbsOpCtl, .lsb = 32, .width = 27, .cpus = only(from_llano),
     .description = "op counter when the sample was taken"},
    // IbsOpRip
    {.name = "IbsOpRip", .reg = R::IbsOpRip, .lsb = 0, .width = 64, .address = AddressSlot::ip,
     .description = "linear address of the instruction the op came from"},
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
    {.name = "NbIbsReqSrc", .reg = R::IbsOpData2, .lsb = 0, .width = 3, .cpus = only(pre_zen),
     .values = {{{0, std::nullopt, "no valid status"},
                 {1, condition("src.l3"), "L3 cache"},
                 {2, condition("src.cache"), "another core's cache"},
                 {3, condition("src.dram"), "DRAM"},
                 {7, condition("src.io"), "MMIO, configuration, PCI or APIC"}}},
     .nonzero = condition("nb.valid"), .description = "where the data of a northbridge request came from"},
    {.name = "NbIbsReqDstProc", .reg = R::IbsOpData2, .lsb = 4, .cpus = only(pre_zen_big_cores),
     .flag = condition("src.remote"), .description = "1: the request was served by another node"},
    {.name = "NbIbsReqCacheHitSt", .reg = R::IbsOpData2, .lsb = 5, .cpus = only(pre_zen_big_cores),
     .flag = condition("src.cache_owned"), .description = "state of the supplying cache line: 0 Modified, 1 Owned"},
    // ... and its data-source form since Zen. Only DRAM and I/O mean the
    // same in every Zen encoding (source 1 mixes the L3 with the caches of
    // other cores), so src.l3 and src.cache are not observed there.
    {.name = "DataSrc", .reg = R::IbsOpData2, .lsb = 0, .width = 3, .cpus = only(zen),
     .values = {{{0, std::nullopt, "no valid status"},
                 {1, std::nullopt, "local L3 or another core's cache in the CCX"},
                 {2, std::nullopt, "another CCX's cache in the same node"},
                 {3, condition("src.dram"), "DRAM"},
                 {5, std::nullopt, "another CCX's cache in another node"},
                 {7, condition("src.io"), "MMIO, configuration, PCI or APIC"}}},
     .nonzero = condition("nb.valid"), .description = "where the data of the miss came from"},
    {.name = "RmtNode", .reg = R::IbsOpData2, .lsb = 4, .cpus = only(zen), .flag = condition("src.remote"),
     .description = "1: the data came from another node"},
    {.name = "CacheHitSt", .reg = R::IbsOpData2, .lsb = 5, .cpus = only(zen), .flag = condition("src.cache_owned"),
     .description = "state of the supplying cache line: 0 Modified, 1 Owned"},
    // IbsOpData3
    {.name = "IbsLdOp", .reg = R::IbsOpData3, .lsb = 0, .flag = condition("load"), .description = "load op"},
    {.name = "IbsStOp", .reg = R::IbsOpData3, .lsb = 1, .flag = condition("store"), .description = "store op"},
    {.name = "IbsDcL1tlbMiss", .reg = R::IbsOpData3, .lsb = 2, .flag = condition("dtlb.l1_miss"),
     .description = "L1 DTLB miss"},
    {.name = "IbsDcL2tlbMiss", .reg = R::IbsOpData3, .lsb = 3, .flag = condition("dtlb.l2_miss"),
     .description = "L2 DTLB miss"},
    {.name = "IbsDcL1tlbHit2M", .reg = R::IbsOpData3, .lsb = 4, .flag = condition("dtlb.l1_page_2m"),
     .description = "L1 DTLB translation of a 2 MiB page"},
    {.name = "IbsDcL1tlbHit1G", .reg = R::IbsOpData3, .lsb = 5, .flag = condition("dtlb.l1_page_1g"),
     .description = "L1 DTLB translation of a 1 GiB page"},
    {.name = "IbsDcL2tlbHit2M", .reg = R::IbsOpData3, .lsb = 6, .flag = condition("dtlb.l2_page_2m"),
     .description = "L2 DTLB hit in a 2 MiB page"},
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
    {.name = "IbsDcL2tlbHit1G", .reg = R::IbsOpData3, .lsb = 19, .flag = condition("dtlb.l2_page_1g"),
     .description = "L2 DTLB hit in a 1 GiB page"},
    {.name = "IbsL2Miss", .reg = R::IbsOpData3, .lsb = 20, .cpus = only(from_kaveri), .flag = condition("l2.miss"),
     .description = "L2 cache miss"},
    {.name = "IbsSwPf", .reg = R::IbsOpData3, .lsb = 21, .cpus = only(from_kaveri), .flag = condition("mem.sw_prefetch"),
     .description = "software prefetch"},
    {.name = "IbsOpMemWidth", .reg = R::IbsOpData3, .lsb = 22, .width = 4, .cpus = only(from_kaveri),
     .description = "encoded size of the load or store"},
    {.name = "IbsOpDcMissOpenMemReqs", .reg = R::IbsOpData3, .lsb = 26, .width = 6, .cpus = only(from_kaveri),
     .measure = measure("mem.open_requests"), .description = "memory requests outstanding when the miss's fill arrived"},
    {.name = "IbsDcMissLat", .reg = R::IbsOpData3, .lsb = 32, .width = 16, .measure = measure("dc.miss_latency"),
     .description = "cycles from the data cache miss to the data's arrival"},
    {.name = "IbsTlbRefillLat", .reg = R::IbsOpData3, .lsb = 48, .width = 16, .cpus = only(from_kaveri),
     .measure = measure("dtlb.refill_latency"), .description = "cycles to refill the L1 DTLB"},
    // Addresses
    {.name = "IbsDcLinAd", .reg = R::IbsDcLinAd, .lsb = 0, .width = 64, .address = AddressSlot::data_linear,
     .only_if = condition("dc.lin_addr_valid"), .description = "data linear address"},
    {.name = "IbsDcPhysAd", .reg = R::IbsDcPhysAd, .lsb = 0, .width = 48, .address = AddressSlot::data_physical,
     .only_if = condition("dc.phys_addr_valid"), .description = "data physical address"},
    {.name = "IbsBrTarget", .reg = R::IbsBrTarget, .lsb = 0, .width = 64, .cpus = only(from_llano),
     .address = AddressSlot::branch_target, .description = "target of the branch"},
    {.name = "IbsOpLdResync", .reg = R::IbsOpData4, .lsb = 0, .cpus = only(carrizo_stoney),
     .description = "the load caused a resync"},
};

constexpr DerivedCondition derived[] = {
    // Killed: abandoned before it reached the ITLB or the instruction
    // cache, so no outcome bit is set.
    {IbsUnit::fetch, condition("fetch.killed"),
     Term{.require = {},
          .forbid = {condition("fetch.completed"), condition("ic.miss"), condition("itlb.translated"),
                     condition("itlb.l1_miss"), condition("itlb.l2_miss")}}},
};

}  // namespace

std::span<const FieldSpec> field_table() { return fields; }
std::span<const DerivedCondition> derived_condition_table() { return derived; }

}  // namespace tagop::amd_ibs
