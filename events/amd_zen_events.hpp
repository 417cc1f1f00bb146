// AMD Zen core PMU events (Zen 1 to Zen 4), as data: one table, each row
// with the generations that have it.
//
// Sources, compared row by row: AMD's Processor Programming References
// (Family 17h and 19h, "Core Performance Monitor Counters") as Linux's perf
// carries them (tools/perf/pmu-events/arch/x86/amdzen{1,2,3,4}/*.json: the
// names below are perf's), and libpfm4's amd64_fam17h_zen1,
// amd64_fam17h_zen2, amd64_fam19h_zen3 and amd64_fam19h_zen4 tables, whose
// encodings tests/backends/amd_core/libpfm_test.cpp checks every row against
// at run time. Where a generation's perf data and libpfm4 disagree about
// whether an event exists, the row follows perf's data and the test names
// the difference.
//
// Encoding: a 12-bit event select (PERF_CTL[7:0] and [35:32]) and an 8-bit
// unit mask (PERF_CTL[15:8]); rows without a unit mask have 0.
//
// Counters: every row may use any of the six core counters (Linux
// amd_get_event_constraints_f17h constrains only the "large increment per
// cycle" event 0x003, which needs a counter pair; it is not in this table).
//
// Predicates: which retired op the event counts, over
// lib/tagop/conditions.hpp. The counters count at retirement for the ex_ret_*
// rows only; the others count speculatively (dispatched ops, cache accesses
// and fills of ops that may never retire, prefetches) or count cycles, so
// they are count-only: no set of conditions of a retired op says what they
// count. No row is precise: a core counter's overflow interrupt arrives some
// instructions after the op that overflowed it (skid); the precise answer on
// Zen is IBS (the amd-ibs backend).
//
// Units: "instructions" where the PPR counts instructions (ex_ret_instr,
// ex_ret_brn*, ex_ret_*_instr), "macro-ops" for ex_ret_ops (the PPR for
// Family 17h says "uops"; they are the macro-ops that IBS op sampling tags),
// cycles, and occurrences for the rest.
//
// Included once, by backends/amd_core/events.cpp.

inline constexpr std::uint8_t all_zen = on_zen1 | on_zen2 | on_zen3 | on_zen4;

inline constexpr ZenEventSpec amd_zen_event_table[] = {
    // ---- Retired instructions and ops.
    {.event = 0x0C0, .name = "ex_ret_instr", .generations = all_zen, .predicate = "op",
     .unit = CountingUnit::instructions,
     .description = "Retired instructions."},
    {.event = 0x0C1, .name = "ex_ret_cops", .generations = on_zen1 | on_zen2, .predicate = "op",
     .unit = CountingUnit::macro_ops,
     .description = "Retired ops (the Family 17h PPR says uops: the macro-ops that IBS tags), of all processor "
                    "activity: instructions, exceptions, interrupts, microcode assists."},
    {.event = 0x0C1, .name = "ex_ret_ops", .generations = on_zen3 | on_zen4, .predicate = "op",
     .unit = CountingUnit::macro_ops,
     .description = "Retired macro-ops, the unit that IBS op sampling tags."},
    {.event = 0x1C1, .name = "ex_ret_ucode_instr", .generations = on_zen4, .predicate = "op.microcoded",
     .unit = CountingUnit::instructions,
     .description = "Retired microcoded instructions."},
    {.event = 0x1C2, .name = "ex_ret_ucode_ops", .generations = on_zen4, .predicate = "op.microcoded",
     .unit = CountingUnit::macro_ops,
     .description = "Retired ops from the microcode sequencer."},

    // ---- Retired branches. ex_ret_brn and ex_ret_brn_tkn count "all types
    // of architectural control flow changes, including exceptions and
    // interrupts" (the PPR): the model's `branch` condition covers those
    // too (branch.far says which are far transfers).
    {.event = 0x0C2, .name = "ex_ret_brn", .generations = all_zen, .predicate = "branch",
     .unit = CountingUnit::instructions,
     .description = "Retired branch instructions, including exceptions and interrupts."},
    {.event = 0x0C3, .name = "ex_ret_brn_misp", .generations = all_zen, .predicate = "branch & branch.mispredicted",
     .unit = CountingUnit::instructions,
     .description = "Retired branch instructions that were mispredicted (the Family 17h PPR counts far transfers, "
                    "exceptions and interrupts here too: no prediction is attempted for them)."},
    {.event = 0x0C4, .name = "ex_ret_brn_tkn", .generations = all_zen, .predicate = "branch & branch.taken",
     .unit = CountingUnit::instructions,
     .description = "Retired taken branch instructions, including exceptions and interrupts."},
    {.event = 0x0C5, .name = "ex_ret_brn_tkn_misp", .generations = all_zen,
     .predicate = "branch & branch.taken & branch.mispredicted", .unit = CountingUnit::instructions,
     .description = "Retired taken branch instructions that were mispredicted."},
    {.event = 0x0C6, .name = "ex_ret_brn_far", .generations = all_zen, .predicate = "branch & branch.far",
     .unit = CountingUnit::instructions,
     .description = "Retired far control transfers: far call, jump and return, IRET, SYSCALL, SYSRET, exceptions "
                    "and interrupts (not subject to branch prediction)."},
    // perf's amdzen1-3 data list it; libpfm4 only for Zen 1; gone from Zen 4
    // (whose resyncs are event 0x96, not an op count).
    {.event = 0x0C7, .name = "ex_ret_brn_resync", .generations = on_zen1 | on_zen2 | on_zen3, .predicate = "resync",
     .unit = CountingUnit::instructions,
     .description = "Retired resync branches: pipeline restarts for some microcode assists and writes to the "
                    "active instruction stream."},
    {.event = 0x0C8, .name = "ex_ret_near_ret", .generations = all_zen, .predicate = "return",
     .unit = CountingUnit::instructions,
     .description = "Retired near returns (RET, RET Iw)."},
    {.event = 0x0C9, .name = "ex_ret_near_ret_mispred", .generations = all_zen,
     .predicate = "return & branch.mispredicted", .unit = CountingUnit::instructions,
     .description = "Retired near returns that the return address predictor mispredicted."},
    {.event = 0x0CA, .name = "ex_ret_brn_ind_misp", .generations = all_zen,
     .predicate = "branch.indirect & branch.mispredicted", .unit = CountingUnit::instructions,
     .description = "Retired indirect branches that were mispredicted (mispredicts found in EX only)."},
    // Not in perf's amdzen1/amdzen2 data nor in libpfm4's zen1/zen2 tables.
    {.event = 0x0CC, .name = "ex_ret_ind_brch_instr", .generations = on_zen3 | on_zen4, .predicate = "branch.indirect",
     .unit = CountingUnit::instructions,
     .description = "Retired indirect branches."},
    {.event = 0x0D1, .name = "ex_ret_cond", .generations = all_zen, .predicate = "branch.conditional",
     .unit = CountingUnit::instructions,
     .description = "Retired conditional branches."},
    // perf's amdzen2 data lists it, libpfm4 only for Zen 1 (perf's amdzen1
    // data does not): both are the Family 17h PPR's PMCx0D2.
    {.event = 0x0D2, .name = "ex_ret_cond_misp", .generations = on_zen1 | on_zen2,
     .predicate = "branch.conditional & branch.mispredicted", .unit = CountingUnit::instructions,
     .description = "Retired conditional branches that were mispredicted."},
    // Count-only: a mispredicted direction is narrower than a mispredicted
    // conditional branch, and no condition of the vocabulary says which part
    // of the prediction was wrong.
    {.event = 0x1C7, .name = "ex_ret_msprd_brnch_instr_dir_msmtch", .generations = on_zen3 | on_zen4,
     .unit = CountingUnit::instructions,
     .description = "Retired conditional branches mispredicted because of a direction mismatch (count-only: the "
                    "vocabulary has no condition for the direction alone)."},
    {.event = 0x1C8, .name = "ex_ret_uncond_brnch_instr_mispred", .generations = on_zen4,
     .predicate = "branch.indirect & !branch.conditional & branch.mispredicted", .unit = CountingUnit::instructions,
     .description = "Retired unconditional indirect branches that were mispredicted."},
    {.event = 0x1C9, .name = "ex_ret_uncond_brnch_instr", .generations = on_zen4,
     .predicate = "branch & !branch.conditional", .unit = CountingUnit::instructions,
     .description = "Retired unconditional branches."},
    // Zen 1 and 2 name it for fused branches; Zen 3 and 4 "fused
    // instructions", which on these cores are the fused compare-and-branch
    // pairs (the Software Optimization Guides' branch fusion).
    {.event = 0x1D0, .name = "ex_ret_fus_brnch_inst", .generations = on_zen1 | on_zen2,
     .predicate = "branch & branch.fused", .unit = CountingUnit::instructions,
     .description = "Retired fused branch instructions."},
    {.event = 0x1D0, .name = "ex_ret_fused_instr", .generations = on_zen3 | on_zen4,
     .predicate = "branch & branch.fused", .unit = CountingUnit::instructions,
     .description = "Retired fused instructions (a compare or ALU op fused with the branch after it)."},

    // ---- IBS's own tagging, counted by the core: what IBS op samples are drawn from.
    {.event = 0x1CF, .umask = 0x01, .name = "ex_tagged_ibs_ops.ibs_tagged_ops", .generations = all_zen,
     .description = "Ops tagged by IBS (count-only: how many IBS op samples were started)."},
    {.event = 0x1CF, .umask = 0x02, .name = "ex_tagged_ibs_ops.ibs_tagged_ops_ret", .generations = all_zen,
     .description = "Ops tagged by IBS that retired (count-only: the IBS op samples taken)."},
    {.event = 0x1CF, .umask = 0x04, .name = "ex_tagged_ibs_ops.ibs_count_rollover", .generations = all_zen,
     .description = "Times IBS could not tag an op because the op it tagged before had not retired (count-only)."},

    // ---- Cycles.
    {.event = 0x076, .name = "ls_not_halted_cyc", .generations = all_zen, .unit = CountingUnit::cycles,
     .description = "Core cycles not in halt."},
    {.event = 0x120, .umask = 0x01, .name = "ls_not_halted_p0_cyc.p0_freq_cyc", .generations = on_zen4,
     .unit = CountingUnit::cycles,
     .description = "Reference cycles at the P0 frequency, not in halt."},
    {.event = 0x0D3, .name = "ex_div_busy", .generations = all_zen, .unit = CountingUnit::cycles,
     .description = "Cycles the divider is busy."},
    // Count-only: "divide ops executed" (Zen 4's words) counts ops that
    // execute, retired or not.
    {.event = 0x0D4, .name = "ex_div_count", .generations = all_zen,
     .description = "Divide ops executed (count-only: executed ops include those on a mispredicted path)."},

    // ---- Loads and stores: all speculative, hence count-only.
    {.event = 0x029, .umask = 0x01, .name = "ls_dispatch.ld_dispatch", .generations = all_zen,
     .description = "Load ops dispatched to the load-store unit (count-only: dispatch is speculative, so ops on "
                    "a mispredicted path count too; IBS's load condition is of retired ops)."},
    {.event = 0x029, .umask = 0x02, .name = "ls_dispatch.store_dispatch", .generations = all_zen,
     .description = "Store ops dispatched to the load-store unit (count-only: speculative, see ld_dispatch)."},
    {.event = 0x029, .umask = 0x04, .name = "ls_dispatch.ld_st_dispatch", .generations = all_zen,
     .description = "Load-op-store ops (one op that loads from and stores to the same address) dispatched to the "
                    "load-store unit (count-only: speculative)."},
    {.event = 0x035, .name = "ls_stlf", .generations = all_zen,
     .description = "Store-to-load forwarding hits (count-only: speculative loads count too)."},
    // perf's amdzen1 and amdzen3 data list it (amdzen2 not checked); Zen 4
    // has no PMCx040 in perf's data nor in libpfm4's.
    {.event = 0x040, .name = "ls_dc_accesses", .generations = on_zen1 | on_zen3,
     .description = "Data cache accesses by loads and stores, each increment an 8-byte access (count-only: "
                    "speculative, and counts accesses, not ops)."},
    {.event = 0x045, .umask = 0xFF, .name = "ls_l1_d_tlb_miss.all", .generations = all_zen,
     .description = "L1 DTLB misses of every page size, whether the L2 DTLB hit or not (count-only: speculative "
                    "accesses count too)."},
    {.event = 0x064, .umask = 0x09, .name = "l2_cache_req_stat.ic_dc_miss_in_l2", .generations = all_zen,
     .description = "Core requests to the L2 (not L2 prefetches) that missed in it, for the instruction and data "
                    "caches (count-only: counts requests, not ops)."},

    // ---- Instruction fetch (12-bit event selects).
    {.event = 0x18E, .umask = 0x18, .name = "ic_tag_hit_miss.instruction_cache_miss", .generations = on_zen3 | on_zen4,
     .description = "Instruction cache tag misses (count-only: counts fetch lookups, not ops)."},
    {.event = 0x28F, .umask = 0x04, .name = "op_cache_hit_miss.op_cache_miss", .generations = on_zen3 | on_zen4,
     .description = "Op cache misses (count-only: counts lookups, not ops)."},
};
