// The Pentium 4 at-retirement metrics (SDM Vol. 3B Tables 19-31, 19-32 and
// 19-33), as data: how each is set up and what it means in the tagged-op
// model.
//
// Each row names its upstream (tagging) event and the downstream event that
// counts the tagged uops at retirement, both as `event:MASK:MASK` (the
// syntax of libpfm4 and of `tagop program p4`), and the replay MSRs.
// - Front-end tagging: uop_type on a RAT ESCR tags loads or stores;
//   front_end_event NBOGUS counts them.
// - Execution tagging: the SDM writes every metric with tag value 1 and
//   NBOGUS0; the programmer moves a metric to tag bit n (tag value 1 << n,
//   NBOGUSn) when several share one execution_event.
// - Replay tagging: pebs_enable holds the cause bits and bit 24 (UOP_Tag);
//   bit 25 (PEBS) is added only when the user asks for PEBS. linux_metric
//   is the kernel's enum P4_PEBS_METRIC, carried in CCCR bits 0-5 of perf's
//   raw config.
//
// Where sources disagree (reference/p4-tagging.md, last section):
// - Tagged_mispred_branch sets cause bits 15 and 16 only, as the SDM and
//   Linux do; libpfm3 and PAPI also set bit 0, which would add L1 load
//   misses to the replay tag.
// - split_load_retired's upstream load_port_replay must be on SAAT_ESCR1 and
//   split_store_retired's store_port_replay on SAAT_ESCR0 (SDM Table 19-33);
//   Linux picks the ESCR by HT thread, which the SDM does not allow.
// - The SDM's notes on Table 19-33 (18.15.6.4): I/O, uncacheable and locked
//   accesses, returns and far transfers cannot be tagged, for every replay
//   metric: each replay predicate ends with P4_REPLAY_TAGGABLE, the note
//   written once (I/O as the vocabulary has it: src.io, MMIO and the like).
//   2ndL counts only the misses the fast detection logic finds.
// - DTLB_*_miss_retired: the Pentium 4 has one DTLB level, and its miss
//   starts a page walk. The vocabulary's dtlb.l1_miss means "missed the
//   first of two levels", which would make these metrics look wider than
//   AMD's L1-miss-L2-hit events; dtlb.l2_miss ("a page walk was needed")
//   is what the hardware reports.
//
// Included once, by backends/intel_p4/tables.cpp, which checks every name
// against the event table at compile time.

inline constexpr MetricSpec p4_metric_table[] = {
    // Front-end tagging (Table 19-31).
    {.name = "memory_loads",
     .tagging = Tagging::front_end,
     .sdm_table = "19-31",
     .upstream = "uop_type:TAGLOADS",
     .downstream = "front_end_event:NBOGUS",
     .predicate = "load",
     .description = "Retired load uops (tagged by uop_type TAGLOADS, counted by front_end_event NBOGUS)."},
    {.name = "memory_stores",
     .tagging = Tagging::front_end,
     .sdm_table = "19-31",
     .upstream = "uop_type:TAGSTORES",
     .downstream = "front_end_event:NBOGUS",
     .predicate = "store",
     .description = "Retired store uops (tagged by uop_type TAGSTORES, counted by front_end_event NBOGUS)."},

    // Execution tagging (Table 19-32).
    {.name = "packed_SP_uop_retired",
     .tagging = Tagging::execution,
     .sdm_table = "19-32",
     .upstream = "packed_SP_uop:ALL",
     .tag_value = 1,
     .downstream = "execution_event:NBOGUS0",
     .predicate = "uop.packed_sp",
     .description = "Retired packed single-precision SSE uops."},
    {.name = "packed_DP_uop_retired",
     .tagging = Tagging::execution,
     .sdm_table = "19-32",
     .upstream = "packed_DP_uop:ALL",
     .tag_value = 1,
     .downstream = "execution_event:NBOGUS0",
     .predicate = "uop.packed_dp",
     .description = "Retired packed double-precision SSE2 uops."},
    {.name = "scalar_SP_uop_retired",
     .tagging = Tagging::execution,
     .sdm_table = "19-32",
     .upstream = "scalar_SP_uop:ALL",
     .tag_value = 1,
     .downstream = "execution_event:NBOGUS0",
     .predicate = "uop.scalar_sp",
     .description = "Retired scalar single-precision SSE uops."},
    {.name = "scalar_DP_uop_retired",
     .tagging = Tagging::execution,
     .sdm_table = "19-32",
     .upstream = "scalar_DP_uop:ALL",
     .tag_value = 1,
     .downstream = "execution_event:NBOGUS0",
     .predicate = "uop.scalar_dp",
     .description = "Retired scalar double-precision SSE2 uops."},
    {.name = "128_bit_MMX_uop_retired",
     .tagging = Tagging::execution,
     .sdm_table = "19-32",
     .upstream = "128bit_MMX_uop:ALL",
     .tag_value = 1,
     .downstream = "execution_event:NBOGUS0",
     .predicate = "uop.mmx_128",
     .description = "Retired 128-bit SSE2 integer SIMD uops."},
    {.name = "64_bit_MMX_uop_retired",
     .tagging = Tagging::execution,
     .sdm_table = "19-32",
     .upstream = "64bit_MMX_uop:ALL",
     .tag_value = 1,
     .downstream = "execution_event:NBOGUS0",
     .predicate = "uop.mmx_64",
     .description = "Retired 64-bit MMX integer SIMD uops."},
    {.name = "X87_FP_uop_retired",
     .tagging = Tagging::execution,
     .sdm_table = "19-32",
     .upstream = "x87_FP_uop:ALL",
     .tag_value = 1,
     .downstream = "execution_event:NBOGUS0",
     .predicate = "uop.x87_fp",
     .description = "Retired x87 floating-point uops."},
    {.name = "x87_SIMD_moves_uop_retired",
     .tagging = Tagging::execution,
     .sdm_table = "19-32",
     .upstream = "x87_SIMD_moves_uop:ALLP0:ALLP2",
     .tag_value = 1,
     .downstream = "execution_event:NBOGUS0",
     .predicate = "uop.x87_simd_move",
     .description = "Retired x87, MMX and SSE register move uops (loads, stores and copies)."},

    // Replay tagging (Table 19-33), in Linux's metric order.
#define P4_REPLAY_TAGGABLE " & !mem.uncacheable & !mem.locked & !src.io & !return & !branch.far"
    {.name = "1stL_cache_load_miss_retired",
     .tagging = Tagging::replay,
     .sdm_table = "19-33",
     .pebs_enable = (1u << 0) | (1u << 24),
     .matrix_vert = 1u << 0,
     .downstream = "replay_event:NBOGUS",
     .linux_metric = 1,
     .predicate = "load & dc.miss" P4_REPLAY_TAGGABLE,
     .description = "Retired loads that missed the L1 data cache (uncacheable and locked loads cannot be replay-tagged)."},
    {.name = "2ndL_cache_load_miss_retired",
     .tagging = Tagging::replay,
     .sdm_table = "19-33",
     .pebs_enable = (1u << 1) | (1u << 24),
     .matrix_vert = 1u << 0,
     .downstream = "replay_event:NBOGUS",
     .linux_metric = 2,
     .predicate = "load & l2.miss & l2.miss_fast_detected" P4_REPLAY_TAGGABLE,
     .description = "Retired loads that missed the L2 cache (only the misses the fast detection logic finds; "
                    "uncacheable and locked loads cannot be replay-tagged)."},
    {.name = "DTLB_load_miss_retired",
     .tagging = Tagging::replay,
     .sdm_table = "19-33",
     .pebs_enable = (1u << 2) | (1u << 24),
     .matrix_vert = 1u << 0,
     .downstream = "replay_event:NBOGUS",
     .linux_metric = 3,
     .predicate = "load & dtlb.l2_miss" P4_REPLAY_TAGGABLE,
     .description = "Retired loads that missed the DTLB (a page walk)."},
    {.name = "DTLB_store_miss_retired",
     .tagging = Tagging::replay,
     .sdm_table = "19-33",
     .pebs_enable = (1u << 2) | (1u << 24),
     .matrix_vert = 1u << 1,
     .downstream = "replay_event:NBOGUS",
     .linux_metric = 4,
     .predicate = "store & dtlb.l2_miss" P4_REPLAY_TAGGABLE,
     .description = "Retired stores that missed the DTLB (a page walk)."},
    {.name = "DTLB_all_miss_retired",
     .tagging = Tagging::replay,
     .sdm_table = "19-33",
     .pebs_enable = (1u << 2) | (1u << 24),
     .matrix_vert = (1u << 0) | (1u << 1),
     .downstream = "replay_event:NBOGUS",
     .linux_metric = 5,
     .predicate = "(load | store) & dtlb.l2_miss" P4_REPLAY_TAGGABLE,
     .description = "Retired loads and stores that missed the DTLB (a page walk)."},
    {.name = "Tagged_mispred_branch",
     .tagging = Tagging::replay,
     .sdm_table = "19-33",
     .pebs_enable = (1u << 15) | (1u << 16) | (1u << 24),
     .matrix_vert = 1u << 4,
     .downstream = "replay_event:NBOGUS",
     .linux_metric = 6,
     .predicate = "branch & branch.mispredicted" P4_REPLAY_TAGGABLE,
     .description = "Retired mispredicted branches (returns and far transfers cannot be tagged)."},
    {.name = "MOB_load_replay_retired",
     .tagging = Tagging::replay,
     .sdm_table = "19-33",
     .upstream = "MOB_load_replay:PARTIAL_DATA:UNALGN_ADDR",
     .pebs_enable = (1u << 9) | (1u << 24),
     .matrix_vert = 1u << 0,
     .downstream = "replay_event:NBOGUS",
     .linux_metric = 7,
     .predicate = "load & stlf.blocked" P4_REPLAY_TAGGABLE,
     .description = "Retired loads replayed by the MOB: their data was not an aligned subset of an earlier store's."},
    {.name = "split_load_retired",
     .tagging = Tagging::replay,
     .sdm_table = "19-33",
     .upstream = "load_port_replay:SPLIT_LD",
     .upstream_escr = "SAAT_ESCR1",
     .pebs_enable = (1u << 10) | (1u << 24),
     .matrix_vert = 1u << 0,
     .downstream = "replay_event:NBOGUS",
     .linux_metric = 8,
     .predicate = "load & mem.split_line" P4_REPLAY_TAGGABLE,
     .description = "Retired loads split across two cache lines."},
    {.name = "split_store_retired",
     .tagging = Tagging::replay,
     .sdm_table = "19-33",
     .upstream = "store_port_replay:SPLIT_ST",
     .upstream_escr = "SAAT_ESCR0",
     .pebs_enable = (1u << 10) | (1u << 24),
     .matrix_vert = 1u << 1,
     .downstream = "replay_event:NBOGUS",
     .linux_metric = 9,
     .predicate = "store & mem.split_line" P4_REPLAY_TAGGABLE,
     .description = "Retired stores split across two cache lines."},
#undef P4_REPLAY_TAGGABLE
};
