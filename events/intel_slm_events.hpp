// Intel Silvermont core events, as data: SDM Vol. 3B Table 19-25 (every
// non-architectural event), then the architectural events of Table 19-1 and
// the fixed counters.
//
// Sources, compared row by row: the SDM tables (seed 002 holds the start of
// Table 19-25; the precise events are SDM Table 18-12 "PEBS Performance
// Events for the Silvermont Microarchitecture"), Intel's perfmon event data
// for SILVERMONT (Linux tools/perf/pmu-events/arch/x86/silvermont/*.json)
// and libpfm4's `slm` PMU. Where they disagree the row says which one it
// follows and why. tests/backends/intel_core/libpfm_test.cpp checks every
// row libpfm4 knows against libpfm4's own encoding at run time.
//
// Counters: Silvermont has two general-purpose counters (IA32_PMC0-1) and
// three fixed counters; every row may use both general counters (perfmon
// "Counter": "0,1"; SDM Table 18-14 for OFFCORE_RESPONSE).
//
// Precise: PEBS-capable per SDM Table 18-12 (PEBS on IA32_PMC0 only).
// Predicates: which op the event counts, over lib/tagop/conditions.hpp.
// Rows that count cycles, stalls, front-end or whole-machine events have
// none: they are count-only. Rows that count retired ops without PEBS keep
// their predicate (it says what they count) but give no precise sample.
//
// Included once, by backends/intel_core/events.cpp.

inline constexpr EventSpec intel_slm_event_table[] = {
    // Loads and stores re-issued from the RehabQ (the memory reissue queue).
    {.event = 0x03, .umask = 0x01, .name = "REHABQ.LD_BLOCK_ST_FORWARD", .counters = pmc0_1, .precise = true,
     .predicate = "load & stlf.blocked",
     .description = "Retired loads that could not take forwarded data from an earlier store because of an address mismatch."},
    {.event = 0x03, .umask = 0x02, .name = "REHABQ.LD_BLOCK_STD_NOTREADY", .counters = pmc0_1,
     .predicate = "load & stlf.data_not_ready",
     .description = "Loads that could have been forwarded from a store, but the store's data was not available in time."},
    {.event = 0x03, .umask = 0x04, .name = "REHABQ.ST_SPLITS", .counters = pmc0_1,
     .predicate = "store & mem.split_line",
     .description = "Retired stores that were split across a cache line boundary."},
    {.event = 0x03, .umask = 0x08, .name = "REHABQ.LD_SPLITS", .counters = pmc0_1, .precise = true,
     .predicate = "load & mem.split_line",
     .description = "Retired loads that were split across a cache line boundary."},
    {.event = 0x03, .umask = 0x10, .name = "REHABQ.LOCK", .counters = pmc0_1,
     .predicate = "mem.locked",
     .description = "Retired memory operations with lock semantics: implicitly locked instructions such as XCHG, or a LOCK prefix (F0H)."},
    {.event = 0x03, .umask = 0x20, .name = "REHABQ.STA_FULL", .counters = pmc0_1,
     .predicate = "store & store.sab_full",
     .description = "Retired stores that were delayed because no store address buffer entry was available."},
    // Count-only: one op can be reissued several times, so these count
    // reissues, not ops.
    {.event = 0x03, .umask = 0x40, .name = "REHABQ.ANY_LD", .counters = pmc0_1,
     .description = "Load uops reissued from the RehabQ (count-only: counts reissues, not ops)."},
    {.event = 0x03, .umask = 0x80, .name = "REHABQ.ANY_ST", .counters = pmc0_1,
     .description = "Store uops reissued from the RehabQ (count-only: counts reissues, not ops)."},

    // Retired memory uops. libpfm4 calls this event MEM_UOP_RETIRED with
    // its own umask names (LD_DCU_MISS, LD_L2_HIT, ...); the SDM and perfmon
    // names are kept.
    {.event = 0x04, .umask = 0x01, .name = "MEM_UOPS_RETIRED.L1_MISS_LOADS", .counters = pmc0_1,
     .predicate = "load & dc.miss",
     .description = "Retired loads that missed the L1 data cache (prefetch misses are not counted). Not PEBS-capable: SDM Table 18-12 and perfmon agree."},
    {.event = 0x04, .umask = 0x02, .name = "MEM_UOPS_RETIRED.L2_HIT_LOADS", .counters = pmc0_1, .precise = true,
     .predicate = "load & dc.miss & !l2.miss",
     .description = "Retired loads that hit the L2 cache."},
    {.event = 0x04, .umask = 0x04, .name = "MEM_UOPS_RETIRED.L2_MISS_LOADS", .counters = pmc0_1, .precise = true,
     .predicate = "load & dc.miss & l2.miss",
     .description = "Retired loads that missed the L2 cache."},
    // Silvermont translates through a micro-TLB (uTLB) and then the DTLB; a
    // DTLB miss means a page walk.
    {.event = 0x04, .umask = 0x08, .name = "MEM_UOPS_RETIRED.DTLB_MISS_LOADS", .counters = pmc0_1, .precise = true,
     .predicate = "load & dtlb.l2_miss",
     .description = "Retired loads that missed the DTLB (a page walk)."},
    {.event = 0x04, .umask = 0x10, .name = "MEM_UOPS_RETIRED.UTLB_MISS", .counters = pmc0_1,
     .predicate = "load & dtlb.l1_miss",
     .description = "Retired loads that missed the micro-TLB (uTLB)."},
    // HITM: the line was Modified in another core's or module's cache.
    {.event = 0x04, .umask = 0x20, .name = "MEM_UOPS_RETIRED.HITM", .counters = pmc0_1, .precise = true,
     .predicate = "load & dc.miss & src.cache & src.cache_modified",
     .description = "Retired loads that got their data from another core or module whose copy of the line was modified (HITM)."},
    {.event = 0x04, .umask = 0x40, .name = "MEM_UOPS_RETIRED.ALL_LOADS", .counters = pmc0_1,
     .predicate = "load",
     .description = "Retired load uops."},
    {.event = 0x04, .umask = 0x80, .name = "MEM_UOPS_RETIRED.ALL_STORES", .counters = pmc0_1,
     .predicate = "store",
     .description = "Retired store uops."},

    // Page walks: the same umask counts cycles, or walks with edge detect.
    {.event = 0x05, .umask = 0x01, .name = "PAGE_WALKS.D_SIDE_CYCLES", .counters = pmc0_1,
     .description = "Cycles a data-side page walk is in progress (count-only)."},
    {.event = 0x05, .umask = 0x01, .name = "PAGE_WALKS.D_SIDE_WALKS", .edge = true, .counters = pmc0_1,
     .description = "Data-side page walks (edge detect on the cycle count; count-only)."},
    {.event = 0x05, .umask = 0x02, .name = "PAGE_WALKS.I_SIDE_CYCLES", .counters = pmc0_1,
     .description = "Cycles an instruction-side page walk is in progress (count-only)."},
    {.event = 0x05, .umask = 0x02, .name = "PAGE_WALKS.I_SIDE_WALKS", .edge = true, .counters = pmc0_1,
     .description = "Instruction-side page walks (edge detect on the cycle count; count-only)."},
    {.event = 0x05, .umask = 0x03, .name = "PAGE_WALKS.CYCLES", .counters = pmc0_1,
     .description = "Cycles any page walk (data or instruction side) is in progress (count-only)."},
    {.event = 0x05, .umask = 0x03, .name = "PAGE_WALKS.WALKS", .edge = true, .counters = pmc0_1,
     .description = "Page walks, data and instruction side (edge detect on the cycle count; count-only)."},

    // The L2 is Silvermont's last-level cache. Requests, not retired ops:
    // count-only.
    {.event = 0x2E, .umask = 0x41, .name = "LONGEST_LAT_CACHE.MISS", .counters = pmc0_1,
     .description = "L2 cache requests from this core that missed (count-only)."},
    {.event = 0x2E, .umask = 0x4F, .name = "LONGEST_LAT_CACHE.REFERENCE", .counters = pmc0_1,
     .description = "L2 cache requests from this core (count-only)."},
    {.event = 0x30, .umask = 0x00, .name = "L2_REJECT_XQ.ALL", .counters = pmc0_1,
     .description = "Demand and prefetch requests the L2's XQ rejected because it was full or nearly full (count-only)."},
    {.event = 0x31, .umask = 0x00, .name = "CORE_REJECT_L2Q.ALL", .counters = pmc0_1,
     .description = "Demand and L1-prefetcher requests the L2Q rejected because it was full or nearly full (count-only)."},
    {.event = 0x3C, .umask = 0x00, .name = "CPU_CLK_UNHALTED.CORE_P", .counters = pmc0_1,
     .description = "Core cycles while the core is not halted, on a general-purpose counter (count-only)."},
    {.event = 0x3C, .umask = 0x01, .name = "CPU_CLK_UNHALTED.REF", .counters = pmc0_1,
     .description = "Reference cycles while the core is not halted, on a general-purpose counter (count-only)."},

    // Front end: fetches, not ops.
    {.event = 0x80, .umask = 0x01, .name = "ICACHE.HIT", .counters = pmc0_1,
     .description = "Instruction fetches that hit the instruction cache (count-only)."},
    {.event = 0x80, .umask = 0x02, .name = "ICACHE.MISSES", .counters = pmc0_1,
     .description = "Instruction fetches that missed the instruction cache or made a memory request, uncacheable fetches included; each miss counts once (count-only)."},
    {.event = 0x80, .umask = 0x03, .name = "ICACHE.ACCESSES", .counters = pmc0_1,
     .description = "Instruction fetches, most uncacheable fetches excluded (count-only)."},
    // libpfm4 4.13 has only ICACHE_FILL_PENDING_CYCLES; perfmon lists all
    // three umasks.
    {.event = 0x86, .umask = 0x02, .name = "FETCH_STALL.ITLB_FILL_PENDING_CYCLES", .counters = pmc0_1,
     .description = "Cycles code fetch was stalled by an outstanding ITLB miss (count-only)."},
    {.event = 0x86, .umask = 0x04, .name = "FETCH_STALL.ICACHE_FILL_PENDING_CYCLES", .counters = pmc0_1,
     .description = "Cycles code fetch was stalled by an outstanding instruction cache miss (count-only)."},
    {.event = 0x86, .umask = 0x3F, .name = "FETCH_STALL.ALL", .counters = pmc0_1,
     .description = "Cycles code fetch was stalled for any reason (count-only)."},

    // Offcore response: the request/response selection is in the MSR
    // (SDM 18.6.2, Table 18-14; each MSR_OFFCORE_RSPx is shared by the two
    // cores of a module). perfmon calls both rows OFFCORE_RESPONSE.
    {.event = 0xB7, .umask = 0x01, .name = "OFFCORE_RESPONSE_0", .counters = pmc0_1, .offcore_msr = 0x1A6,
     .description = "Offcore requests and responses selected by MSR_OFFCORE_RSP_0 (0x1A6) (count-only)."},
    {.event = 0xB7, .umask = 0x02, .name = "OFFCORE_RESPONSE_1", .counters = pmc0_1, .offcore_msr = 0x1A7,
     .description = "Offcore requests and responses selected by MSR_OFFCORE_RSP_1 (0x1A7) (count-only)."},

    // Retirement. libpfm4 marks INST_RETIRED precise; SDM Table 18-12 and
    // perfmon do not list it for Silvermont, so it is not.
    {.event = 0xC0, .umask = 0x00, .name = "INST_RETIRED.ANY_P", .counters = pmc0_1,
     .predicate = "op",
     .description = "Retired instructions, on a general-purpose counter; a multi-uop instruction counts once, at its last uop."},
    {.event = 0xC2, .umask = 0x01, .name = "UOPS_RETIRED.MS", .counters = pmc0_1,
     .predicate = "op.microcoded",
     .description = "Retired uops supplied by the microcode sequencer ROM (MSROM)."},
    {.event = 0xC2, .umask = 0x10, .name = "UOPS_RETIRED.ALL", .counters = pmc0_1,
     .predicate = "op",
     .description = "Retired uops."},
    {.event = 0xC3, .umask = 0x01, .name = "MACHINE_CLEARS.SMC", .counters = pmc0_1,
     .description = "Machine clears for self-modifying code (count-only)."},
    {.event = 0xC3, .umask = 0x02, .name = "MACHINE_CLEARS.MEMORY_ORDERING", .counters = pmc0_1,
     .description = "Machine clears for memory ordering (count-only)."},
    {.event = 0xC3, .umask = 0x04, .name = "MACHINE_CLEARS.FP_ASSIST", .counters = pmc0_1,
     .description = "Machine clears for floating-point assists (count-only)."},
    {.event = 0xC3, .umask = 0x08, .name = "MACHINE_CLEARS.ALL", .counters = pmc0_1,
     .description = "Machine clears for any reason (count-only)."},

    // Retired branches. The umasks are masks of branch kinds; "near" rows
    // exclude far transfers.
    {.event = 0xC4, .umask = 0x00, .name = "BR_INST_RETIRED.ALL_BRANCHES", .counters = pmc0_1, .precise = true,
     .predicate = "branch",
     .description = "Retired branch instructions of every kind."},
    {.event = 0xC4, .umask = 0x7E, .name = "BR_INST_RETIRED.JCC", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.conditional",
     .description = "Retired conditional branches (Jcc), taken or not."},
    {.event = 0xC4, .umask = 0xFE, .name = "BR_INST_RETIRED.TAKEN_JCC", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.conditional & branch.taken",
     .description = "Retired conditional branches (Jcc) that were taken."},
    {.event = 0xC4, .umask = 0xF9, .name = "BR_INST_RETIRED.CALL", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.call & !branch.far",
     .description = "Retired near calls."},
    {.event = 0xC4, .umask = 0xFD, .name = "BR_INST_RETIRED.REL_CALL", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.call & !branch.indirect & !branch.far",
     .description = "Retired near relative calls."},
    {.event = 0xC4, .umask = 0xFB, .name = "BR_INST_RETIRED.IND_CALL", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.call & branch.indirect & !branch.far",
     .description = "Retired near indirect calls."},
    {.event = 0xC4, .umask = 0xF7, .name = "BR_INST_RETIRED.RETURN", .counters = pmc0_1, .precise = true,
     .predicate = "branch & return & !branch.far",
     .description = "Retired near returns."},
    {.event = 0xC4, .umask = 0xEB, .name = "BR_INST_RETIRED.NON_RETURN_IND", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.indirect & !return & !branch.far",
     .description = "Retired near indirect jumps and near indirect calls."},
    {.event = 0xC4, .umask = 0xBF, .name = "BR_INST_RETIRED.FAR_BRANCH", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.far",
     .description = "Retired far branches: far jumps, calls and returns, interrupts and their returns."},
    // perfmon marks this PEBS "2" and libpfm4 precise, but SDM Table 18-12
    // (the PEBS event list) leaves it out, as did the kernel's original
    // Silvermont PEBS constraint list: the SDM wins.
    {.event = 0xC4, .umask = 0x80, .name = "BR_INST_RETIRED.ALL_TAKEN_BRANCHES", .counters = pmc0_1,
     .predicate = "branch & branch.taken",
     .description = "Retired taken branches. Not PEBS-capable per SDM Table 18-12."},
    {.event = 0xC5, .umask = 0x00, .name = "BR_MISP_RETIRED.ALL_BRANCHES", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.mispredicted",
     .description = "Retired mispredicted branches of every kind."},
    {.event = 0xC5, .umask = 0x7E, .name = "BR_MISP_RETIRED.JCC", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.mispredicted & branch.conditional",
     .description = "Retired mispredicted conditional branches (Jcc)."},
    {.event = 0xC5, .umask = 0xFE, .name = "BR_MISP_RETIRED.TAKEN_JCC", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.mispredicted & branch.conditional & branch.taken",
     .description = "Retired mispredicted conditional branches (Jcc) that were taken."},
    {.event = 0xC5, .umask = 0xFB, .name = "BR_MISP_RETIRED.IND_CALL", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.mispredicted & branch.call & branch.indirect & !branch.far",
     .description = "Retired mispredicted near indirect calls."},
    {.event = 0xC5, .umask = 0xF7, .name = "BR_MISP_RETIRED.RETURN", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.mispredicted & return & !branch.far",
     .description = "Retired mispredicted near returns."},
    {.event = 0xC5, .umask = 0xEB, .name = "BR_MISP_RETIRED.NON_RETURN_IND", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.mispredicted & branch.indirect & !return & !branch.far",
     .description = "Retired mispredicted near indirect jumps and near indirect calls."},

    // Allocation stalls: cycles, count-only.
    {.event = 0xCA, .umask = 0x01, .name = "NO_ALLOC_CYCLES.ROB_FULL", .counters = pmc0_1,
     .description = "Cycles no uops were allocated because the reorder buffer was full (count-only)."},
    {.event = 0xCA, .umask = 0x04, .name = "NO_ALLOC_CYCLES.MISPREDICTS", .counters = pmc0_1,
     .description = "Cycles no uops were allocated while allocation waited for a mispredicted jump to retire (count-only)."},
    {.event = 0xCA, .umask = 0x20, .name = "NO_ALLOC_CYCLES.RAT_STALL", .counters = pmc0_1,
     .description = "Cycles no uops were allocated because of a RAT stall (count-only)."},
    {.event = 0xCA, .umask = 0x50, .name = "NO_ALLOC_CYCLES.NOT_DELIVERED", .counters = pmc0_1,
     .description = "Cycles no uops were allocated because the front end delivered none while the back end could take them (count-only)."},
    {.event = 0xCA, .umask = 0x3F, .name = "NO_ALLOC_CYCLES.ALL", .counters = pmc0_1,
     .description = "Cycles no uops were allocated, for any reason (count-only)."},
    {.event = 0xCB, .umask = 0x01, .name = "RS_FULL_STALL.MEC", .counters = pmc0_1,
     .description = "Cycles allocation stalled waiting for a free entry in the memory cluster's reservation station (count-only)."},
    {.event = 0xCB, .umask = 0x1F, .name = "RS_FULL_STALL.ALL", .counters = pmc0_1,
     .description = "Cycles allocation stalled because any reservation station was full (count-only)."},
    {.event = 0xCD, .umask = 0x01, .name = "CYCLES_DIV_BUSY.ALL", .counters = pmc0_1,
     .description = "Cycles the divider was busy and could not accept a new divide (count-only)."},

    // Front-end resteers and decode.
    {.event = 0xE6, .umask = 0x01, .name = "BACLEARS.ALL", .counters = pmc0_1,
     .description = "Front-end resteers by the branch address calculator (BACLEAR), any branch kind (count-only)."},
    {.event = 0xE6, .umask = 0x08, .name = "BACLEARS.RETURN", .counters = pmc0_1,
     .description = "BACLEARs on return instructions (count-only)."},
    {.event = 0xE6, .umask = 0x10, .name = "BACLEARS.COND", .counters = pmc0_1,
     .description = "BACLEARs on conditional branches (Jcc) (count-only)."},
    // The seed spells it MS_DECODED.MS_ENTRY (broken over two lines); libpfm4
    // calls the umask ENTRY.
    {.event = 0xE7, .umask = 0x01, .name = "MS_DECODED.MS_ENTRY", .counters = pmc0_1,
     .description = "Times the microcode sequencer started a flow of uops, speculative flows included (count-only: counts flows, not retired ops)."},
    {.event = 0xE9, .umask = 0x01, .name = "DECODE_RESTRICTION.PREDECODE_WRONG", .counters = pmc0_1,
     .description = "Times the pre-decode cache predicted an instruction length wrongly (count-only)."},

    // Architectural events (SDM Table 19-1): the same encodings under their
    // architectural names, with the same PEBS capability as their twins above.
    {.event = 0x3C, .umask = 0x00, .name = "UnHalted Core Cycles", .counters = pmc0_1,
     .description = "Architectural: core cycles while not halted (= CPU_CLK_UNHALTED.CORE_P; count-only)."},
    {.event = 0xC0, .umask = 0x00, .name = "Instruction Retired", .counters = pmc0_1,
     .predicate = "op",
     .description = "Architectural: retired instructions (= INST_RETIRED.ANY_P)."},
    {.event = 0x3C, .umask = 0x01, .name = "UnHalted Reference Cycles", .counters = pmc0_1,
     .description = "Architectural: reference cycles while not halted (= CPU_CLK_UNHALTED.REF; count-only)."},
    {.event = 0x2E, .umask = 0x4F, .name = "LLC Reference", .counters = pmc0_1,
     .description = "Architectural: last-level (L2) cache requests (= LONGEST_LAT_CACHE.REFERENCE; count-only)."},
    {.event = 0x2E, .umask = 0x41, .name = "LLC Misses", .counters = pmc0_1,
     .description = "Architectural: last-level (L2) cache misses (= LONGEST_LAT_CACHE.MISS; count-only)."},
    {.event = 0xC4, .umask = 0x00, .name = "Branch Instruction Retired", .counters = pmc0_1, .precise = true,
     .predicate = "branch",
     .description = "Architectural: retired branches (= BR_INST_RETIRED.ALL_BRANCHES)."},
    {.event = 0xC5, .umask = 0x00, .name = "Branch Misses Retired", .counters = pmc0_1, .precise = true,
     .predicate = "branch & branch.mispredicted",
     .description = "Architectural: retired mispredicted branches (= BR_MISP_RETIRED.ALL_BRANCHES)."},

    // Fixed counters. perfmon writes them as event 0x00 with umask 1-3;
    // perf schedules them by the encodings in perf_raw_config().
    {.event = 0x00, .umask = 0x01, .name = "INST_RETIRED.ANY", .fixed_counter = 0,
     .predicate = "op",
     .description = "Retired instructions, on fixed counter 0 (IA32_FIXED_CTR0). No PEBS on fixed counters."},
    {.event = 0x00, .umask = 0x02, .name = "CPU_CLK_UNHALTED.CORE", .fixed_counter = 1,
     .description = "Core cycles while not halted, on fixed counter 1 (IA32_FIXED_CTR1; CPU_CLK_UNHALTED.THREAD on Core parts; count-only)."},
    {.event = 0x00, .umask = 0x03, .name = "CPU_CLK_UNHALTED.REF_TSC", .fixed_counter = 2,
     .description = "Reference (TSC-rate) cycles while not halted, on fixed counter 2 (IA32_FIXED_CTR2; count-only)."},
};
