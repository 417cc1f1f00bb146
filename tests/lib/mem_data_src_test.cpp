// PERF_SAMPLE_DATA_SRC read as model conditions: hand-made values with the
// bit positions of include/uapi/linux/perf_event.h written out here, and
// the values Linux computes for IBS op samples (a transcription of
// perf_ibs_get_data_src() and what it calls, arch/x86/events/amd/ibs.c,
// 6.1) read back to the same conditions as tagop's IBS decoder gives the
// same registers, wherever both decide a condition.

#include <catch2/catch.hpp>

#include <tagop/amd_ibs/decoder.hpp>
#include <tagop/mem_data_src.hpp>

#include "../splitmix.hpp"

using namespace tagop;

namespace {

// union perf_mem_data_src: op 0-4, lvl 5-18, snoop 19-23, lock 24-25,
// dtlb 26-32, lvl_num 33-36, remote 37.
constexpr std::uint64_t op(std::uint64_t v) { return v; }
constexpr std::uint64_t lvl(std::uint64_t v) { return v << 5; }
constexpr std::uint64_t snoop(std::uint64_t v) { return v << 19; }
constexpr std::uint64_t lock(std::uint64_t v) { return v << 24; }
constexpr std::uint64_t tlb(std::uint64_t v) { return v << 26; }
constexpr std::uint64_t lvl_num(std::uint64_t v) { return v << 33; }
constexpr std::uint64_t remote = std::uint64_t{1} << 37;
// Field values.
constexpr std::uint64_t LOAD = 2, STORE = 4;
constexpr std::uint64_t NA = 1, HIT = 2, L1 = 8, LFB = 0x10, L2 = 0x20, L3 = 0x40, LOC_RAM = 0x80, REM_RAM1 = 0x100,
                        REM_CCE1 = 0x400, REM_CCE2 = 0x800, IO = 0x1000, UNC = 0x2000;
constexpr std::uint64_t HITM = 0x10, LOCKED = 2;
constexpr std::uint64_t TLB_HIT = 2, TLB_MISS = 4, TLB_L1 = 8, TLB_L2 = 0x10;
constexpr std::uint64_t NUM_CXL = 9, NUM_IO = 0xA, NUM_PMEM = 0xE, NUM_NA = 0xF;

bool holds(const DataSrcReading& r, std::string_view name) {
  const Condition c = *find_condition(name);
  REQUIRE(r.observed.contains(c));
  return r.conditions.contains(c);
}
bool decided(const DataSrcReading& r, std::string_view name) { return r.observed.contains(*find_condition(name)); }

}  // namespace

TEST_CASE("perf_mem_data_src values read as model conditions", "[perfdata][mem]") {
  // A load that hit the L1, with an L1 DTLB hit, not locked.
  auto r = read_data_src(op(LOAD) | lvl(HIT | L1) | snoop(NA) | lock(NA) | tlb(TLB_HIT | TLB_L1) | lvl_num(NUM_NA));
  CHECK(holds(r, "load"));
  CHECK_FALSE(decided(r, "store"));  // LOAD also stands for a load that stores
  CHECK_FALSE(holds(r, "dc.miss"));
  CHECK_FALSE(holds(r, "mem.locked"));
  CHECK(holds(r, "dc.lin_addr_valid"));
  CHECK_FALSE(holds(r, "dtlb.l1_miss"));
  CHECK_FALSE(decided(r, "l2.miss"));
  CHECK_FALSE(decided(r, "src.dram"));

  // An L2 hit; the L2 DTLB.
  r = read_data_src(op(LOAD) | lvl(HIT | L2) | tlb(TLB_HIT | TLB_L2) | lock(LOCKED));
  CHECK(holds(r, "dc.miss"));
  CHECK_FALSE(holds(r, "l2.miss"));
  CHECK(holds(r, "dtlb.l1_miss"));
  CHECK_FALSE(holds(r, "dtlb.l2_miss"));
  CHECK(holds(r, "mem.locked"));

  // Remote DRAM, a page walk.
  r = read_data_src(op(LOAD) | lvl(HIT | REM_RAM1) | tlb(TLB_MISS | TLB_L2));
  CHECK(holds(r, "l2.miss"));
  CHECK(holds(r, "src.dram"));
  CHECK(holds(r, "src.remote"));
  CHECK_FALSE(holds(r, "src.cache"));
  CHECK(holds(r, "dtlb.l2_miss"));

  // Zen 1-3's local node cache: L3 or a peer cache, not said which.
  r = read_data_src(op(LOAD) | lvl(HIT | L3 | REM_CCE1) | snoop(HITM));
  CHECK(holds(r, "nb.valid"));
  CHECK_FALSE(decided(r, "src.l3"));
  CHECK_FALSE(decided(r, "src.cache"));
  CHECK_FALSE(holds(r, "src.remote"));
  CHECK_FALSE(holds(r, "src.cache_owned"));

  // Zen 4: a peer cache of another node; PMEM, CXL and I/O, remote or not.
  r = read_data_src(op(LOAD) | lvl(HIT | REM_CCE2));
  CHECK((holds(r, "src.cache") && holds(r, "src.remote") && !holds(r, "src.l3")));
  r = read_data_src(op(LOAD) | lvl(0) | lvl_num(NUM_PMEM) | remote);
  CHECK((holds(r, "src.pmem") && holds(r, "src.remote") && !holds(r, "src.dram")));
  r = read_data_src(op(LOAD) | lvl(0) | lvl_num(NUM_CXL));
  CHECK((holds(r, "src.cxl") && !holds(r, "src.remote")));
  r = read_data_src(op(LOAD) | lvl(IO) | lvl_num(NUM_IO));
  CHECK(holds(r, "src.io"));
  CHECK_FALSE(decided(r, "mem.uncacheable"));  // an I/O access may be uncacheable

  // Uncached: nothing else is valid.
  r = read_data_src(op(STORE) | lvl(HIT | UNC));
  CHECK((holds(r, "store") && !holds(r, "load")));
  CHECK(holds(r, "mem.uncacheable"));
  CHECK_FALSE(decided(r, "dc.miss"));
  CHECK_FALSE(holds(r, "nb.valid"));

  // No source, the miss allocated no MAB.
  r = read_data_src(op(STORE) | lvl(HIT | LFB));
  CHECK((holds(r, "dc.miss") && holds(r, "dc.miss_no_mab") && !holds(r, "nb.valid")));
  CHECK_FALSE(decided(r, "l2.miss"));

  // Neither load nor store: nothing but that.
  r = read_data_src(op(NA) | lvl(NA) | snoop(NA) | lock(NA) | tlb(NA) | lvl_num(NUM_NA));
  CHECK((!holds(r, "load") && !holds(r, "store")));
  CHECK(r.observed == ConditionSet{condition("load"), condition("store")});
}

namespace {

// Linux's perf_ibs_get_data_src() and what it calls, for one op (caps:
// IBS_CAPS_ZEN4 or not; family and model for #1293 and the cache state),
// written out from arch/x86/events/amd/ibs.c as merged in 6.1 and unchanged
// to 6.19 (g_data_src and g_zen4_data_src with RMT_NODE_APPLICABLE: RmtNode
// counts for DRAM and, on Zen 4, PMEM and CXL memory, never for I/O).
std::uint64_t kernel_data_src(std::uint64_t data2, std::uint64_t data3, bool zen4, unsigned family, unsigned model) {
  auto b = [](std::uint64_t v, unsigned n) { return (v >> n) & 1; };
  const bool ld = b(data3, 0), st = b(data3, 1);
  std::uint64_t op_f = ld ? LOAD : st ? STORE : NA;
  if (op_f == NA) return op(NA) | lvl(NA) | snoop(NA) | lock(NA) | tlb(NA) | lvl_num(NUM_NA);
  if (family == 0x19 && model <= 0xF && (b(data3, 21) || b(data3, 16))) data2 = 0;  // perf_ibs_get_op_data2
  const std::uint64_t src = zen4 ? ((data2 >> 6 & 3) << 3 | (data2 & 7)) : (data2 & 7);
  const bool rmt = b(data2, 4);
  std::uint64_t l = 0, num = 0, rem = 0;
  [&] {
    if (b(data3, 14) && src != 7) { l = UNC | HIT; return; }
    if (!b(data3, 7)) { l = L1 | HIT; return; }
    if (!b(data3, 20) && !(family == 0x19 && model <= 0xF && (b(data3, 21) || b(data3, 16)))) { l = L2 | HIT; return; }
    if (op_f == LOAD) {
      if (zen4 ? src == 1 : src == 2) { l = zen4 ? (L3 | HIT) : (L3 | REM_CCE1 | HIT); return; }
      if (zen4 && src == 2) { l = REM_CCE1 | HIT; return; }
      if (zen4 ? src == 5 : src == 4) { l = REM_CCE2 | HIT; return; }
      if (src == 3) { l = (rmt ? REM_RAM1 : LOC_RAM) | HIT; return; }
      if (zen4 && src == 6) { num = NUM_PMEM; rem = rmt; return; }
      if (zen4 && src == 8) { num = NUM_CXL; rem = rmt; return; }
      if (src == 7) { l = IO; num = NUM_IO; return; }  // RmtNode is for memory only (RMT_NODE_APPLICABLE)
    }
    l = b(data3, 16) ? (LFB | HIT) : NA;
  }();
  // perf_ibs_get_mem_snoop: HITM for a Modified line from a cache source.
  const bool state_valid = !(family == 0x19 && (model <= 0xF || (model >= 0x20 && model <= 0x5F)));
  std::uint64_t sn = NA;
  if (state_valid && op_f == LOAD && !(l & L1) && !(l & L2) && !b(data2, 5) &&
      (zen4 ? (src == 1 || src == 2 || src == 5) : src == 2))
    sn = HITM;
  // perf_ibs_get_tlb_lvl, perf_ibs_get_mem_lock.
  std::uint64_t t = NA;
  if (b(data3, 17)) t = !b(data3, 2) ? (TLB_L1 | TLB_HIT) : !b(data3, 3) ? (TLB_L2 | TLB_HIT) : (TLB_L2 | TLB_MISS);
  const std::uint64_t lk = b(data3, 15) ? LOCKED : NA;
  return op(op_f) | lvl(l) | snoop(sn) | lock(lk) | tlb(t) | lvl_num(num) | (rem ? remote : 0);
}

}  // namespace

TEST_CASE("the kernel's PERF_SAMPLE_DATA_SRC of an IBS op reads as the IBS decoder reads its registers",
          "[perfdata][mem][ibs]") {
  const auto [family, model] = GENERATE(table<unsigned, unsigned>({{0x17, 0x31}, {0x19, 0x01}, {0x19, 0x21}, {0x19, 0x11}}));
  INFO("family " << family << " model " << model);
  const amd_ibs::IbsDecoder decoder(family, model);
  const bool zen4 = decoder.caps() & amd_ibs::caps::Zen4Ext;
  std::uint64_t state = family * 1000 + model;
  auto next = [&] { return splitmix(state); };
  std::size_t compared = 0;
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t data3 = next() & 0x3F'FFFF;
    if (next() % 2) data3 |= 1 | 1 << 7 | 1 << 20;
    if (next() % 4) data3 &= ~std::uint64_t{1 << 14};
    const std::uint64_t data2 = next() & 0xFF;
    amd_ibs::IbsRegisters regs;
    regs.unit = amd_ibs::IbsUnit::op;
    regs.set(amd_ibs::IbsRegister::IbsOpData2, data2);
    regs.set(amd_ibs::IbsRegister::IbsOpData3, data3);
    const Sample s = decoder.decode(regs);
    const DataSrcReading r = read_data_src(kernel_data_src(data2, data3, zen4, family, model));
    const ConditionSet both = r.observed & s.observed;
    INFO("IbsOpData2 " << std::hex << data2 << " IbsOpData3 " << data3);
    for (Condition c : both.members()) {
      INFO(c.name());
      CHECK(r.conditions.contains(c) == s.conditions.contains(c));
      ++compared;
    }
  }
  CHECK(compared > 100000);
}
