// The modelled processors, one table each. Every number says where it
// comes from. Manuals:
//   [SOG17]  AMD Software Optimization Guide for AMD Family 17h Processors (pub. 55723)
//   [SOG19]  AMD Software Optimization Guide for AMD EPYC 7003 Processors, Family 19h (pub. 56665)
//   [SOG19Z4] AMD Software Optimization Guide for the AMD Zen4 Microarchitecture (pub. 57647)
//   [SOG10]  AMD Software Optimization Guide for AMD Family 10h and 12h Processors (pub. 40546)
//   [BKDG10] AMD BIOS and Kernel Developer's Guide for AMD Family 10h Processors (pub. 31116)
//   [IOPT]   Intel 64 and IA-32 Architectures Optimization Reference Manual (248966):
//            chapter 16 (Silvermont, Goldmont) and chapter 2 (NetBurst, Pentium 4)
// Where no manual gives a number (DRAM latency, page-walk cycles, the
// size of the gshare the model runs), the text says "model:" and why.

#include <tagop/emulate/microarchitecture.hpp>

#include <algorithm>  // std::equal
#include <cctype>     // std::tolower

namespace tagop::emulate {

namespace {

constexpr std::uint32_t KiB = 1024, MiB = 1024 * 1024;

constexpr MicroarchSpec zen3{
    .name = "zen3",
    .title = "AMD Zen 3 (Family 19h, EPYC 7003 / Ryzen 5000)",
    .backend = "amd-ibs",
    .format = SampleFormat::ibs,
    .vendor = "AuthenticAMD", .family = 0x19, .model = 0x01, .stepping = 1,
    .l1i = {32 * KiB, 8, 64, 4, "[SOG19] 2.6.1: 32 KB, 8-way, 64-byte lines;"
            " model: a hit takes the L1D's 4 cycles (no published fetch latency)"},
    .l1d = {32 * KiB, 8, 64, 4, "[SOG19] 2.12: 32 KB, 8-way, 64-byte lines; 4-cycle integer load-to-use"},
    .l2 = {512 * KiB, 8, 64, 12, "[SOG19] 2.13: 512 KB, 8-way, unified, per core; 12-cycle load-to-use from L2"},
    .l3 = {32 * MiB, 16, 64, 46, "[SOG19] 2.14: 32 MB, 16-way, shared by the 8 cores of a CCX; 46 cycles average"},
    .itlb_l1 = {64, 0, 64, 0, 0, "[SOG19] 2.9.1: L1 ITLB 64 entries, fully associative, all page sizes"},
    .itlb_l2 = {512, 8, 512, 8, 7, "[SOG19] 2.9.1: L2 ITLB 512 entries, 8-way (4 KB, 2 MB); model: 7 cycles"},
    .dtlb_l1 = {64, 0, 64, 0, 0, "[SOG19] 2.12.2: L1 DTLB 64 entries, fully associative, all page sizes"},
    .dtlb_l2 = {2048, 16, 2048, 16, 7, "[SOG19] 2.12.2: L2 DTLB 2048 entries, 16-way (4 KB, 2 MB); model: 7 cycles"},
    .page_walk_latency = 30,
    .page_walk_source = "model: a walk that hits the page-walk caches and L2 (the manuals give no figure)",
    .dram_latency = 300,
    .dram_source = "model: about 75 ns at 4 GHz (memory latency is the platform's, not in [SOG19])",
    .predictor = {16, 16, 1536, 32, 13,
                  "[SOG19] 2.8: 32-entry return address stack, 1536-entry indirect target array, mispredict "
                  "penalty 11-18 cycles (13 typical); model: gshare of 64K counters, 16 bits of history"},
    .fetch_block = 32, .fetch_source = "[SOG19] 2.6: the front end fetches 32 bytes per cycle",
    .l1d_prefetchers = true,
    .prefetch_source = "[SOG19] 2.12: the L1 data cache's stream (next line) and stride prefetchers; model: one line "
                       "ahead, the stride's next address once it was seen twice",
    .victim_l3 = true,
    .victim_l3_source = "[SOG19] 2.14: the L3 is filled from L2 victims (a victim cache), not by a miss's fill",
    .misaligned_boundary = 64,
    .misaligned_source = "[SOG19] 2.12: loads crossing a 64-byte line are misaligned (take an extra cycle)",
    .retire_cycles = 10,
    .retire_source = "model: the front of the pipe to retirement for an op that waits on nothing",
};

constexpr MicroarchSpec zen4{
    .name = "zen4",
    .title = "AMD Zen 4 (Family 19h models 10h+, EPYC 9004 / Ryzen 7000)",
    .backend = "amd-ibs",
    .format = SampleFormat::ibs,
    .vendor = "AuthenticAMD", .family = 0x19, .model = 0x61, .stepping = 2,
    .l1i = {32 * KiB, 8, 64, 4, "[SOG19Z4] 2.6: 32 KB, 8-way, 64-byte lines;"
            " model: a hit takes the L1D's 4 cycles (no published fetch latency)"},
    .l1d = {32 * KiB, 8, 64, 4, "[SOG19Z4] 2.12: 32 KB, 8-way; 4-cycle integer load-to-use"},
    .l2 = {1 * MiB, 8, 64, 14, "[SOG19Z4] 2.13: 1 MB, 8-way, unified, per core; 14-cycle load-to-use"},
    .l3 = {32 * MiB, 16, 64, 50, "[SOG19Z4] 2.14: 32 MB, 16-way per CCX; about 50 cycles average"},
    .itlb_l1 = {64, 0, 64, 0, 0, "[SOG19Z4] 2.9: L1 ITLB 64 entries, fully associative"},
    .itlb_l2 = {512, 8, 512, 8, 7, "[SOG19Z4] 2.9: L2 ITLB 512 entries, 8-way; model: 7 cycles"},
    .dtlb_l1 = {72, 0, 72, 0, 0, "[SOG19Z4] 2.12.2: L1 DTLB 72 entries, fully associative, all page sizes"},
    .dtlb_l2 = {3072, 24, 3072, 24, 7, "[SOG19Z4] 2.12.2: L2 DTLB 3072 entries, 24-way (4 KB, 2 MB); model: 7 cycles"},
    .page_walk_latency = 30,
    .page_walk_source = "model: as zen3",
    .dram_latency = 320,
    .dram_source = "model: about 75 ns at 4.3 GHz (the platform's, not in [SOG19Z4])",
    .predictor = {16, 16, 3072, 32, 13,
                  "[SOG19Z4] 2.8: 32-entry return address stack, 3072-entry indirect target array, mispredict "
                  "penalty 11-18 cycles; model: gshare of 64K counters, 16 bits of history"},
    .fetch_block = 32, .fetch_source = "[SOG19Z4] 2.6: 32 bytes per cycle from the instruction cache",
    .l1d_prefetchers = true,
    .prefetch_source = "[SOG19] 2.12: the L1 data cache's stream (next line) and stride prefetchers; model: one line "
                       "ahead, the stride's next address once it was seen twice",
    .victim_l3 = true,
    .victim_l3_source = "[SOG19] 2.14: the L3 is filled from L2 victims (a victim cache), not by a miss's fill",
    .misaligned_boundary = 64,
    .misaligned_source = "[SOG19Z4] 2.12: an access crossing a 64-byte line is misaligned",
    .retire_cycles = 10,
    .retire_source = "model: as zen3",
};

constexpr MicroarchSpec fam10h{
    .name = "fam10h",
    .title = "AMD Family 10h (K10: Opteron 'Barcelona', Phenom)",
    .backend = "amd-ibs",
    .format = SampleFormat::ibs,
    .vendor = "AuthenticAMD", .family = 0x10, .model = 0x04, .stepping = 2,
    .l1i = {64 * KiB, 2, 64, 3, "[SOG10] A.5: 64 KB, 2-way, 64-byte lines;"
            " model: a hit takes the L1D's 3 cycles (no published fetch latency)"},
    .l1d = {64 * KiB, 2, 64, 3, "[SOG10] A.8: 64 KB, 2-way, 64-byte lines, 3-cycle load-to-use"},
    .l2 = {512 * KiB, 16, 64, 12, "[SOG10] A.9: 512 KB, 16-way, per core; model: 12 cycles (9 after the L1 miss)"},
    .l3 = {2 * MiB, 32, 64, 40, "[SOG10] A.10: 2 MB shared, 32-way (quad-core 'Barcelona'); model: 40 cycles"},
    .itlb_l1 = {32, 0, 16, 0, 0, "[SOG10] A.7: L1 ITLB 32 entries for 4 KB, 16 for 2 MB, fully associative"},
    .itlb_l2 = {512, 4, 0, 0, 5, "[SOG10] A.7: L2 ITLB 512 entries, 4-way, 4 KB pages only; model: 5 cycles"},
    .dtlb_l1 = {48, 0, 48, 0, 0, "[SOG10] A.8: L1 DTLB 48 entries, fully associative, all page sizes"},
    .dtlb_l2 = {512, 4, 128, 2, 5,
                "[SOG10] A.8: L2 DTLB 512 entries for 4 KB (4-way), 128 for 2 MB (2-way); model: 5 cycles"},
    .page_walk_latency = 25,
    .page_walk_source = "model: a walk served by the L2 (no manual figure)",
    .dram_latency = 200,
    .dram_source = "model: about 80 ns at 2.5 GHz (the platform's, not in [SOG10])",
    .predictor = {12, 14, 512, 24, 12,
                  "[SOG10] A.4: 16K 2-bit global-history counters, 512-entry indirect target array, 24-entry "
                  "return stack; model: gshare of 16K counters with 12 bits of history, 12-cycle penalty"},
    .fetch_block = 32, .fetch_source = "[SOG10] A.5: 32-byte fetch per cycle",
    .misaligned_boundary = 16,
    .misaligned_source = "CodeAnalyst (seed 000): IBS misaligned = the access crossed a 128-bit boundary",
    .retire_cycles = 12,
    .retire_source = "model: the 12-stage integer pipeline of [SOG10] A.2, in order",
};

constexpr MicroarchSpec goldmont{
    .name = "goldmont",
    .title = "Intel Goldmont (Atom C3000, Apollo Lake)",
    .backend = "goldmont",
    .format = SampleFormat::pebs,
    .vendor = "GenuineIntel", .family = 6, .model = 0x5C, .stepping = 9,
    .l1i = {32 * KiB, 8, 64, 3, "[IOPT] 16.2 Goldmont: 32 KB, 8-way instruction cache;"
            " model: a hit takes the L1D's 3 cycles (no published fetch latency)"},
    .l1d = {24 * KiB, 6, 64, 3, "[IOPT] 16.2 Goldmont: 24 KB, 6-way data cache, 3-cycle load-to-use"},
    .l2 = {1 * MiB, 16, 64, 17, "[IOPT] 16.2 Goldmont: 1 MB (per 2 cores), 16-way; model: 17 cycles"},
    .l3 = {},
    .itlb_l1 = {48, 0, 0, 0, 0, "[IOPT] 16.2 Goldmont: ITLB 48 entries, fully associative"},
    .itlb_l2 = {},
    .dtlb_l1 = {32, 0, 0, 0, 0, "[IOPT] 16.2 Goldmont: first-level uTLB 32 entries, 4 KB"},
    .dtlb_l2 = {512, 4, 32, 4, 6, "[IOPT] 16.2 Goldmont: DTLB 512 entries for 4 KB pages; model: 6 cycles"},
    .page_walk_latency = 30,
    .page_walk_source = "model: no manual figure",
    .dram_latency = 200,
    .dram_source = "model: about 100 ns at 2 GHz (LPDDR4 platform, not in [IOPT])",
    .predictor = {12, 12, 256, 16, 12,
                  "[IOPT] 16.2: Goldmont's decoupled predictor; model: gshare of 4K counters, 12 bits of "
                  "history, 16-entry return stack, 12-cycle penalty"},
    .fetch_block = 16, .fetch_source = "[IOPT] 16.2: 16 bytes fetched per cycle",
    .misaligned_boundary = 64,
    .misaligned_source = "SDM Table 19-24 MEM_UOPS_RETIRED.SPLIT: a 64-byte line split",
    .retire_cycles = 10,
    .retire_source = "model: in order, no overlap",
};

constexpr MicroarchSpec silvermont{
    .name = "silvermont",
    .title = "Intel Silvermont (Atom C2000, Bay Trail)",
    .backend = "silvermont",
    .format = SampleFormat::pebs,
    .vendor = "GenuineIntel", .family = 6, .model = 0x4D, .stepping = 8,
    .l1i = {32 * KiB, 8, 64, 3, "[IOPT] 16.1 Silvermont: 32 KB, 8-way instruction cache;"
            " model: a hit takes the L1D's 3 cycles (no published fetch latency)"},
    .l1d = {24 * KiB, 6, 64, 3, "[IOPT] 16.1 Silvermont: 24 KB, 6-way data cache, 3-cycle load-to-use"},
    .l2 = {1 * MiB, 16, 64, 14, "[IOPT] 16.1 Silvermont: 1 MB per module (2 cores), 16-way, 14-cycle latency"},
    .l3 = {},
    .itlb_l1 = {48, 0, 0, 0, 0, "[IOPT] 16.1 Silvermont: ITLB 48 entries, fully associative"},
    .itlb_l2 = {},
    .dtlb_l1 = {32, 0, 0, 0, 0, "[IOPT] 16.1 Silvermont: micro-TLB 32 entries, 4 KB"},
    .dtlb_l2 = {128, 4, 16, 4, 5, "[IOPT] 16.1 Silvermont: DTLB 128 entries 4 KB (4-way), 16 for 2 MB; model: 5 cycles"},
    .page_walk_latency = 30,
    .page_walk_source = "model: no manual figure",
    .dram_latency = 200,
    .dram_source = "model: about 100 ns at 2 GHz (not in [IOPT])",
    .predictor = {10, 12, 128, 8, 10,
                  "[IOPT] 16.1: Silvermont's predictor with an 8-entry return stack, 10-cycle mispredict "
                  "penalty; model: gshare of 4K counters, 10 bits of history"},
    .fetch_block = 16, .fetch_source = "[IOPT] 16.1: 16 bytes fetched per cycle",
    .misaligned_boundary = 64,
    .misaligned_source = "SDM Table 19-25 MEM_UOPS_RETIRED.SPLIT_LOADS: a 64-byte line split",
    .retire_cycles = 8,
    .retire_source = "model: in order, no overlap",
};

constexpr MicroarchSpec p4{
    .name = "p4",
    .title = "Intel Pentium 4 (NetBurst, 90 nm 'Prescott')",
    .backend = "p4",
    .format = SampleFormat::p4_tagging,
    .vendor = "GenuineIntel", .family = 15, .model = 3, .stepping = 4,
    .l1i = {16 * KiB, 8, 64, 4,
            "[IOPT] 2.2 NetBurst: a 12K-uop execution trace cache, 8-way; model: a 16 KB, 8-way instruction "
            "cache in its place (the model has no trace cache); a hit takes the L1D's 4 cycles"},
    .l1d = {16 * KiB, 8, 64, 4, "[IOPT] 2.2 NetBurst cache table (Prescott): 16 KB, 8-way, 64-byte lines, 4-cycle integer load"},
    .l2 = {1 * MiB, 8, 128, 22,
           "[IOPT] NetBurst cache table (Prescott): 1 MB, 8-way, 128-byte lines (2 sectors of 64); model: 22 cycles"},
    .l3 = {},
    .itlb_l1 = {64, 0, 0, 0, 0, "[IOPT] 2.2: ITLB 64 entries (model: fully associative, 4 KB)"},
    .itlb_l2 = {},
    .dtlb_l1 = {64, 0, 64, 0, 0, "[IOPT] 2.2: DTLB 64 entries, fully associative, 4 KB and 4 MB pages"},
    .dtlb_l2 = {},
    .page_walk_latency = 30,
    .page_walk_source = "model: no manual figure",
    .dram_latency = 300,
    .dram_source = "model: about 90 ns at 3.4 GHz (not in [IOPT])",
    .predictor = {12, 12, 256, 16, 30,
                  "[IOPT] 2.2: 4K-entry BTB, 16-entry return stack; a mispredict costs the 31-stage pipe about "
                  "30 cycles; model: gshare of 4K counters, 12 bits of history"},
    .fetch_block = 16, .fetch_source = "model: 16 bytes per fetch (the trace cache is not modelled)",
    .misaligned_boundary = 64,
    .misaligned_source = "SDM Table 19-33 split_load_retired: a 64-byte line split",
    .retire_cycles = 20,
    .retire_source = "model: the 31-stage pipe's front half, in order",
};

constexpr MicroarchSpec table[] = {zen3, zen4, fam10h, goldmont, silvermont, p4};

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

std::span<const MicroarchSpec> microarchitectures() { return table; }

const MicroarchSpec* find_microarchitecture(std::string_view name) {
  for (const MicroarchSpec& m : table)
    if (same_ignoring_case(m.name, name)) return &m;
  return nullptr;
}

std::string_view format_name(SampleFormat f) {
  switch (f) {
    case SampleFormat::ibs: return "IBS fetch and op samples";
    case SampleFormat::pebs: return "PEBS samples";
    case SampleFormat::p4_tagging: return "at-retirement tagging counts";
  }
  return "?";
}

}  // namespace tagop::emulate
