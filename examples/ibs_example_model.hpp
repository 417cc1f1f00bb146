#pragma once
// The model behind examples/ibs-example.perf.data: a small program whose
// four functions behave differently in the caches, the TLBs and the branch
// predictor, as IBS would sample it on a Family 10h processor (an Opteron
// "Shanghai", family 16, model 4). examples/README.md describes it; the
// generator (make_example.cpp) writes it and tests/tools/report_test.cpp
// checks `tagop report` against totals computed from these numbers.
//
// Every kind of sample below is a fixed set of register bits; `count`
// samples of each kind are written, interleaved in a fixed order.

#include <cstdint>  // std::uint64_t

namespace ibs_example {

inline constexpr unsigned family = 0x10, model = 4, stepping = 2;
inline constexpr std::uint32_t pid = 4242;
inline constexpr std::uint32_t threads = 2;  // tids pid and pid + 1
inline constexpr std::uint32_t cpus = 4;
inline constexpr const char* program = "/opt/ibs-example/bin/ibs-example";
inline constexpr const char* comm = "ibs-example";
inline constexpr std::uint64_t program_start = 0x555555555000, program_len = 0x2000, program_pgoff = 0x1000;
// A path no machine has: the model's libc is not the reader's, and with no
// build-id recorded a real libc at the usual path would be used silently.
inline constexpr const char* libc = "/opt/ibs-example/lib/libc.so.6";
inline constexpr std::uint64_t libc_start = 0x7ffff7e00000, libc_len = 0x180000, libc_pgoff = 0x26000;
inline constexpr std::uint64_t period = 0x10000;  // 65536 dispatched ops / fetches

enum Module : unsigned { program_module, libc_module };

/// Where the functions are, as file offsets in their module.
struct Function {
  const char* name;
  Module module;
  std::uint64_t offset, size;
};
inline constexpr Function functions[] = {
    {"hot_loop", program_module, 0x1100, 0x80},
    {"stream_sum", program_module, 0x1200, 0x80},
    {"pointer_chase", program_module, 0x1300, 0x80},
    {"branchy_sort", program_module, 0x1400, 0x80},
    {"memset", libc_module, 0x9a000, 0x100},
};

/// One kind of op sample: its instruction and what happened to it.
struct OpKind {
  unsigned function;      // index into functions
  std::uint64_t offset;   // of the instruction, in its module
  unsigned count;         // samples of this kind
  bool load = false, store = false;
  bool dc_miss = false;
  bool dtlb_l1_miss = false, dtlb_l2_miss = false;
  unsigned nb_source = 0;  // IbsOpData2 NbIbsReqSrc: 0 none, 1 L3, 2 other core's cache, 3 DRAM
  bool remote = false;
  unsigned dc_miss_latency = 0;
  bool branch = false, taken = false, mispredicted = false, ret = false;
  unsigned tag_to_retire = 0, comp_to_retire = 0;
};

inline constexpr OpKind op_kinds[] = {
    // hot_loop: arithmetic, L1 hits, a well-predicted loop branch.
    {.function = 0, .offset = 0x1104, .count = 900, .tag_to_retire = 12, .comp_to_retire = 2},
    {.function = 0, .offset = 0x1108, .count = 700, .load = true, .tag_to_retire = 15, .comp_to_retire = 3},
    {.function = 0, .offset = 0x1110, .count = 400, .branch = true, .taken = true, .tag_to_retire = 10, .comp_to_retire = 1},
    // stream_sum: a sequential read of a large array; most loads miss to local DRAM.
    {.function = 1, .offset = 0x1208, .count = 780, .load = true, .dc_miss = true, .nb_source = 3,
     .dc_miss_latency = 220, .tag_to_retire = 260, .comp_to_retire = 4},
    {.function = 1, .offset = 0x1208, .count = 120, .load = true, .dc_miss = true, .nb_source = 1,
     .dc_miss_latency = 60, .tag_to_retire = 90, .comp_to_retire = 4},
    {.function = 1, .offset = 0x1208, .count = 300, .load = true, .tag_to_retire = 20, .comp_to_retire = 3},
    {.function = 1, .offset = 0x1210, .count = 200, .branch = true, .taken = true, .tag_to_retire = 14, .comp_to_retire = 1},
    // pointer_chase: dependent loads over a large list: DTLB misses, long latencies, some remote memory.
    {.function = 2, .offset = 0x1304, .count = 500, .load = true, .dc_miss = true, .dtlb_l1_miss = true,
     .dtlb_l2_miss = true, .nb_source = 3, .dc_miss_latency = 480, .tag_to_retire = 610, .comp_to_retire = 5},
    {.function = 2, .offset = 0x1304, .count = 300, .load = true, .dc_miss = true, .dtlb_l1_miss = true,
     .nb_source = 3, .remote = true, .dc_miss_latency = 560, .tag_to_retire = 700, .comp_to_retire = 5},
    {.function = 2, .offset = 0x1304, .count = 150, .load = true, .dc_miss = true, .nb_source = 2,
     .dc_miss_latency = 140, .tag_to_retire = 190, .comp_to_retire = 5},
    {.function = 2, .offset = 0x1304, .count = 50, .load = true, .tag_to_retire = 30, .comp_to_retire = 3},
    {.function = 2, .offset = 0x130c, .count = 100, .branch = true, .taken = true, .tag_to_retire = 16, .comp_to_retire = 1},
    // branchy_sort: data-dependent compares: half the branches mispredicted; swaps store.
    {.function = 3, .offset = 0x1410, .count = 450, .branch = true, .taken = true, .mispredicted = true,
     .tag_to_retire = 45, .comp_to_retire = 1},
    {.function = 3, .offset = 0x1410, .count = 250, .branch = true, .mispredicted = true, .tag_to_retire = 40,
     .comp_to_retire = 1},
    {.function = 3, .offset = 0x1410, .count = 700, .branch = true, .taken = true, .tag_to_retire = 18, .comp_to_retire = 1},
    {.function = 3, .offset = 0x1408, .count = 600, .load = true, .tag_to_retire = 22, .comp_to_retire = 3},
    {.function = 3, .offset = 0x1418, .count = 300, .store = true, .tag_to_retire = 25, .comp_to_retire = 2},
    {.function = 3, .offset = 0x1470, .count = 100, .branch = true, .taken = true, .ret = true, .tag_to_retire = 20,
     .comp_to_retire = 1},
    // memset (libc): stores, a few missing; a return that is sometimes mispredicted.
    {.function = 4, .offset = 0x9a040, .count = 350, .store = true, .tag_to_retire = 24, .comp_to_retire = 2},
    {.function = 4, .offset = 0x9a040, .count = 50, .store = true, .dc_miss = true, .tag_to_retire = 80, .comp_to_retire = 2},
    {.function = 4, .offset = 0x9a0f0, .count = 40, .branch = true, .taken = true, .mispredicted = true, .ret = true,
     .tag_to_retire = 35, .comp_to_retire = 1},
    {.function = 4, .offset = 0x9a0f0, .count = 60, .branch = true, .taken = true, .ret = true, .tag_to_retire = 20,
     .comp_to_retire = 1},
};

/// One kind of fetch sample.
struct FetchKind {
  unsigned function;
  std::uint64_t offset;
  unsigned count;
  bool killed = false;     // none of the outcome bits
  bool completed = false;  // else aborted (when not killed)
  bool ic_miss = false;
  bool itlb_l1_miss = false, itlb_l2_miss = false;
  unsigned latency = 0;
};

inline constexpr FetchKind fetch_kinds[] = {
    {.function = 0, .offset = 0x1100, .count = 900, .completed = true, .latency = 3},
    {.function = 1, .offset = 0x1200, .count = 500, .completed = true, .latency = 3},
    {.function = 2, .offset = 0x1300, .count = 300, .completed = true, .latency = 4},
    {.function = 2, .offset = 0x1300, .count = 40, .completed = true, .ic_miss = true, .latency = 38},
    {.function = 3, .offset = 0x1400, .count = 400, .completed = true, .latency = 3},
    {.function = 3, .offset = 0x1410, .count = 200, .latency = 9},  // aborted by mispredicts
    {.function = 3, .offset = 0x1420, .count = 160, .killed = true},
    {.function = 4, .offset = 0x9a000, .count = 220, .completed = true, .ic_miss = true, .latency = 30},
    {.function = 4, .offset = 0x9a000, .count = 60, .completed = true, .itlb_l1_miss = true, .latency = 25},
    {.function = 4, .offset = 0x9a000, .count = 20, .completed = true, .ic_miss = true, .itlb_l1_miss = true,
     .itlb_l2_miss = true, .latency = 90},
};

}  // namespace ibs_example
