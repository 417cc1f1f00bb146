// What the hardware would report, beyond what Cachegrind simulates: REP
// MOVS/STOS in fast-string chunks, the Zen models' L1D prefetchers and
// victim L3, a fetch latency on an instruction-cache hit, and a store's
// data source kept in the model but out of the IBS registers (IBS reports
// it for loads only). Each expected count is worked out by hand below;
// the end-to-end case runs a program of inline REP MOVSB/STOSB under
// Valgrind, with and without --exact-cachegrind.

#include <catch2/catch.hpp>

#include <unistd.h>  // getpid

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <tagop/amd_ibs/registers.hpp>
#include <tagop/emulate/core_model.hpp>
#include <tagop/emulate/fast_strings.hpp>
#include <tagop/emulate/ibs_encoder.hpp>
#include <tagop/emulate/microarchitecture.hpp>

#include "../run_command.hpp"

using namespace tagop;
using namespace tagop::emulate;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

TraceInstruction instruction(std::uint64_t ip, std::uint32_t size, std::uint64_t next_ip,
                             std::vector<DataAccess> accesses = {}) {
  TraceInstruction t{};
  t.ip = ip;
  t.size = size;
  t.next_ip = next_ip;
  t.access_count = static_cast<std::uint32_t>(accesses.size());
  for (std::size_t i = 0; i < accesses.size(); ++i) t.accesses[i] = accesses[i];
  return t;
}

const InstructionInfo plain{.known = true};
const InstructionInfo rep_string{.known = true, .fast_string = true};

std::vector<TraceInstruction> fold(FastStrings& strings, const std::vector<TraceInstruction>& trace,
                                   const InstructionInfo& info) {
  std::vector<TraceInstruction> out;
  for (const TraceInstruction& t : trace) strings.feed(t, info, [&](const TraceInstruction& op) { out.push_back(op); });
  return out;
}

// Valgrind's trace of `rep movsb` moving n bytes from `from` to `to` at
// 0x1000 (3 bytes): n iterations that jump back to it, each a 1-byte load
// and store, then the iteration that finds RCX 0 and goes on to 0x1003.
std::vector<TraceInstruction> movsb_trace(std::uint64_t from, std::uint64_t to, unsigned n, bool down = false) {
  std::vector<TraceInstruction> out;
  for (unsigned i = 0; i < n; ++i) {
    const std::uint64_t k = down ? n - 1 - i : i;
    out.push_back(instruction(0x1000, 3, 0x1000, {{from + k, 1, AccessKind::load}, {to + k, 1, AccessKind::store}}));
  }
  out.push_back(instruction(0x1000, 3, 0x1003));
  return out;
}

std::uint64_t dc_misses(CoreModel& model, const std::vector<TraceInstruction>& trace) {
  Sample op;
  Fetches fetches;
  std::uint64_t misses = 0;
  for (const TraceInstruction& t : trace) {
    model.retire(t, plain, op, fetches);
    misses += op.conditions.contains(condition("dc.miss"));
  }
  return misses;
}

// A sum over n 8-byte elements from `base`: one load each, from one instruction.
std::vector<TraceInstruction> sum_trace(std::uint64_t base, unsigned n, unsigned stride) {
  std::vector<TraceInstruction> out;
  for (unsigned i = 0; i < n; ++i)
    out.push_back(instruction(0x2000, 4, 0x2004, {{base + std::uint64_t{i} * stride, 8, AccessKind::load}}));
  return out;
}

constexpr CacheBehaviour cachegrind{.prefetchers = false, .victim_l3 = false};

}  // namespace

TEST_CASE("a rep movsb's iterations become a load and a store per 64-byte chunk", "[emulate]") {
  FastStrings strings;
  // 200 bytes: chunks of 64, 64, 64 and 8; each a load op, then a store op.
  const auto ops = fold(strings, movsb_trace(0x10000, 0x20000, 200), rep_string);
  REQUIRE(ops.size() == 8);
  const std::uint64_t starts[] = {0, 64, 128, 192};
  const std::uint32_t sizes[] = {64, 64, 64, 8};
  for (std::size_t c = 0; c < 4; ++c) {
    INFO(c);
    const TraceInstruction& load = ops[2 * c];
    const TraceInstruction& store = ops[2 * c + 1];
    CHECK(load.ip == 0x1000);
    REQUIRE(load.access_count == 1);
    CHECK(load.accesses[0].kind == AccessKind::load);
    CHECK(load.accesses[0].address == 0x10000 + starts[c]);
    CHECK(load.accesses[0].size == sizes[c]);
    REQUIRE(store.access_count == 1);
    CHECK(store.accesses[0].kind == AccessKind::store);
    CHECK(store.accesses[0].address == 0x20000 + starts[c]);
    CHECK(store.accesses[0].size == sizes[c]);
  }
  CHECK(ops[6].next_ip == 0x1000);
  CHECK(ops.back().next_ip == 0x1003);  // the last goes where the instruction went
  CHECK(strings.folded_iterations() == 200);

  // Run down (DF set), the same bytes give the same chunks.
  const auto down = fold(strings, movsb_trace(0x10000, 0x20000, 200, true), rep_string);
  REQUIRE(down.size() == 8);
  CHECK(down[0].accesses[0].address == 0x10000);
  CHECK(down[7].accesses[0].address == 0x20000 + 192);

  // RCX 0: the one check it makes, as it ran; other instructions pass as they are.
  const auto none = fold(strings, movsb_trace(0x10000, 0x20000, 0), rep_string);
  REQUIRE(none.size() == 1);
  CHECK(none[0].access_count == 0);
  CHECK(none[0].next_ip == 0x1003);
  const TraceInstruction add = instruction(0x3000, 2, 0x3002, {{0x5000, 8, AccessKind::modify}});
  const auto passed = fold(strings, {add}, plain);
  REQUIRE(passed.size() == 1);
  CHECK(passed[0].accesses[0].address == 0x5000);
  CHECK(strings.folded_iterations() == 400);
}

TEST_CASE("the L1D prefetchers take a sequential sum's misses away", "[emulate]") {
  const MicroarchSpec& zen3 = *find_microarchitecture("zen3");
  REQUIRE(zen3.l1d_prefetchers);
  SECTION("8-byte elements") {
    // 8192 elements, 64 KiB, 1024 lines never seen before. Without
    // prefetchers each line misses on its first element: 1024. With them:
    // the first load misses (the next-line prefetcher brings line 1 in);
    // from the third load on the stride (8) has been seen twice, and each
    // load brings in the line of the next element, before it is loaded.
    CoreModel off(zen3, PageSize::small_4k, cachegrind);
    CHECK(dc_misses(off, sum_trace(0x100000, 8192, 8)) == 1024);
    CoreModel on(zen3);
    CHECK(dc_misses(on, sum_trace(0x100000, 8192, 8)) == 1);
  }
  SECTION("one element a line") {
    // Stride 64: load 0 misses (line 1 comes with it), load 1 hits, load 2
    // misses (the stride is not yet seen twice when load 1 runs) and
    // confirms the stride: from then on each load brings the next line in.
    CoreModel off(zen3, PageSize::small_4k, cachegrind);
    CHECK(dc_misses(off, sum_trace(0x100000, 1024, 64)) == 1024);
    CoreModel on(zen3);
    CHECK(dc_misses(on, sum_trace(0x100000, 1024, 64)) == 2);
  }
  SECTION("a model without them is Cachegrind's") {
    CoreModel goldmont(*find_microarchitecture("goldmont"));
    CHECK(dc_misses(goldmont, sum_trace(0x100000, 8192, 8)) == 1024);
  }
}

TEST_CASE("the victim L3 holds what the L2 evicted, not every miss", "[emulate]") {
  // A small part: an L1D of one line, an L2 and an L3 of two lines each
  // (fully associative). Lines A, B, C, then A again:
  //   filled on every miss (Cachegrind): the L3 holds {C, B} when A comes
  //   back: A is served by DRAM.
  //   a victim L3: C's fill pushes A out of the L2 {C, B} into the L3 {A}:
  //   A is served by the L3.
  MicroarchSpec tiny = *find_microarchitecture("zen3");
  tiny.l1d = {64, 1, 64, 4, "test"};
  tiny.l2 = {128, 0, 64, 12, "test"};
  tiny.l3 = {128, 0, 64, 46, "test"};
  const std::uint64_t a = 0x40000, b = 0x80000, c = 0xC0000;
  const std::vector<TraceInstruction> trace = {
      instruction(0x2000, 4, 0x2004, {{a, 8, AccessKind::load}}), instruction(0x2004, 4, 0x2008, {{b, 8, AccessKind::load}}),
      instruction(0x2008, 4, 0x200C, {{c, 8, AccessKind::load}}), instruction(0x200C, 4, 0x2010, {{a, 8, AccessKind::load}})};
  auto source_of_last = [&](CacheBehaviour behaviour) {
    CoreModel model(tiny, PageSize::small_4k, behaviour);
    Sample op;
    Fetches fetches;
    for (const TraceInstruction& t : trace) model.retire(t, plain, op, fetches);
    return op;
  };
  const Sample every_miss = source_of_last(cachegrind);
  CHECK(every_miss.conditions.contains(condition("src.dram")));
  CHECK_FALSE(every_miss.conditions.contains(condition("src.l3")));
  const Sample victim = source_of_last({.prefetchers = false, .victim_l3 = true});
  CHECK(victim.conditions.contains(condition("src.l3")));
  CHECK(victim.measures[measure("dc.miss_latency").index] == 46);
}

TEST_CASE("a fetch that hits the instruction cache still takes the hit latency", "[emulate]") {
  const MicroarchSpec& zen3 = *find_microarchitecture("zen3");
  CoreModel model(zen3);
  Sample op;
  Fetches fetches;
  // 0x1000 (a miss), 0x1040 (another line, a miss), 0x1000 again: a new
  // fetch block, in the cache and the L1 ITLB.
  model.retire(instruction(0x1000, 4, 0x1040), plain, op, fetches);
  REQUIRE(fetches.count == 1);
  const Sample first = fetches.fetch[0];
  model.retire(instruction(0x1040, 4, 0x1000), plain, op, fetches);
  model.retire(instruction(0x1000, 4, 0x1004), plain, op, fetches);
  REQUIRE(fetches.count == 1);
  const Sample hit = fetches.fetch[0];
  CHECK_FALSE(hit.conditions.contains(condition("ic.miss")));
  CHECK(hit.measures[measure("fetch.latency").index] == zen3.l1i.latency);
  CHECK(zen3.l1i.latency == 4);
  CHECK(first.conditions.contains(condition("ic.miss")));
  CHECK(first.measures[measure("fetch.latency").index] > zen3.l1i.latency);
  // IbsFetchCtl 47:32 is IbsFetchLat (shared/reference/amd-ibs.md).
  const IbsEncoder encoder(zen3.family, zen3.model);
  CHECK(((encoder.encode(hit, 0x10000).get(amd_ibs::IbsRegister::IbsFetchCtl) >> 32) & 0xFFFF) == 4);
}

TEST_CASE("a store keeps its data source in the model and out of the IBS registers", "[emulate][ibs]") {
  // The model: a store to a line nobody touched is served by DRAM, 300
  // cycles in zen3's table.
  const MicroarchSpec& zen3 = *find_microarchitecture("zen3");
  CoreModel model(zen3);
  Sample op;
  Fetches fetches;
  model.retire(instruction(0x1000, 4, 0x1004, {{0x7000000, 8, AccessKind::store}}), plain, op, fetches);
  CHECK(op.conditions.contains(condition("store")));
  CHECK(op.conditions.contains(condition("src.dram")));
  CHECK(op.measures[measure("dc.miss_latency").index] == zen3.dram_latency);
  CHECK(zen3.dram_latency == 300);

  // Family 10h's registers (shared/reference/amd-ibs.md): IbsOpData3 bit 1
  // IbsStOp, 7 IbsDcMiss, 17 IbsDcLinAddrValid, 47:32 IbsDcMissLat (loads
  // only); IbsOpData2, the northbridge's report, for loads only: 0.
  const IbsEncoder encoder(0x10, 4);
  Sample s;
  s.conditions = {condition("op"), condition("store"), condition("dc.miss"), condition("dc.lin_addr_valid"),
                  condition("l2.miss"), condition("nb.valid"), condition("src.dram")};
  s.set_measure(measure("dc.miss_latency"), 300);
  const auto regs = encoder.encode(s, 0x1000);
  using amd_ibs::IbsRegister;
  CHECK(regs.get(IbsRegister::IbsOpData3) == ((1u << 17) | (1u << 7) | (1u << 1)));
  CHECK(regs.get(IbsRegister::IbsOpData2) == 0);
  // The same as a load: both reported (NbIbsReqSrc 3 = DRAM).
  s.conditions.erase(condition("store"));
  s.conditions.insert(condition("load"));
  const auto load = encoder.encode(s, 0x1000);
  CHECK(load.get(IbsRegister::IbsOpData3) == ((std::uint64_t{300} << 32) | (1u << 17) | (1u << 7) | 1u));
  CHECK(load.get(IbsRegister::IbsOpData2) == 3);
}

namespace {

std::string string_ops() {
  const char* path = std::getenv("TAGOP_EMULATE_STRING_OPS");
  if (!path) throw std::runtime_error("TAGOP_EMULATE_STRING_OPS is not set: run the tests with 'meson test'");
  return path;
}

struct Counts {
  std::uint64_t instructions = 0, ops = 0, loads = 0, stores = 0, load_misses = 0, store_misses = 0;
};

bool has(const json& conditions, const std::string& name) {
  for (const json& c : conditions)
    if (c == name) return true;
  return false;
}

// One run of string_ops as zen3, counted from its --counts file.
Counts run_string_ops(const std::string& options, const std::string& op, unsigned bytes) {
  const fs::path dir = fs::temp_directory_path() / ("tagop-emulate-strings-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const RunResult r = run_tagop("emulate --as zen3 " + options + " -o " + (dir / "s.data").string() + " --counts " +
                                (dir / "c.json").string() + " -- " + string_ops() + " " + op + " " +
                                std::to_string(bytes));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(dir / "c.json");
  const json counts = json::parse(in);
  fs::remove_all(dir);
  Counts c;
  c.instructions = counts["instructions"].get<std::uint64_t>();
  const json& m = counts["models"][0];
  c.ops = m["ops"].get<std::uint64_t>();
  for (const json& s : m["signatures"]) {
    if (s["kind"] != "op") continue;
    const std::uint64_t n = s["count"].get<std::uint64_t>();
    const bool miss = has(s["conditions"], "dc.miss");
    if (has(s["conditions"], "load")) c.loads += n, c.load_misses += miss ? n : 0;
    if (has(s["conditions"], "store")) c.stores += n, c.store_misses += miss ? n : 0;
  }
  return c;
}

}  // namespace

TEST_CASE("a program's rep movsb and rep stosb are counted in fast-string chunks", "[emulate]") {
  // The same program moving 8192 and 4096 bytes (the same digits to
  // parse, the same code around): what the second 4096 bytes add. They
  // are 64 lines of source and 64 of destination nobody touched before.
  auto added = [](const std::string& options, const std::string& op) {
    const Counts big = run_string_ops(options, op, 8192), small = run_string_ops(options, op, 4096);
    return Counts{big.instructions - small.instructions, big.ops - small.ops,     big.loads - small.loads,
                  big.stores - small.stores,             big.load_misses - small.load_misses,
                  big.store_misses - small.store_misses};
  };
  SECTION("movs, fast strings") {
    // Valgrind runs 4096 more iterations; the processor 64 more chunks,
    // each a load op and a store op, each missing its line (no prefetchers).
    const Counts d = added("--no-prefetch", "movs");
    CHECK(d.instructions == 4096);
    CHECK(d.ops == 128);
    CHECK(d.loads == 64);
    CHECK(d.stores == 64);
    CHECK(d.load_misses == 64);
    CHECK(d.store_misses == 64);
  }
  SECTION("movs, as Cachegrind counts it") {
    // One op per iteration, each loading and storing a byte; the op's
    // outcome is its load's, which misses on the first byte of each line.
    const Counts d = added("--exact-cachegrind", "movs");
    CHECK(d.instructions == 4096);
    CHECK(d.ops == 4096);
    CHECK(d.loads == 4096);
    CHECK(d.stores == 4096);
    CHECK(d.load_misses == 64);
  }
  SECTION("stos, fast strings and as Cachegrind counts it") {
    const Counts fast = added("--no-prefetch", "stos");
    CHECK(fast.ops == 64);
    CHECK(fast.stores == 64);
    CHECK(fast.loads == 0);
    CHECK(fast.store_misses == 64);
    const Counts exact = added("--exact-cachegrind", "stos");
    CHECK(exact.ops == 4096);
    CHECK(exact.stores == 4096);
    CHECK(exact.store_misses == 64);
  }
}

TEST_CASE("Cachegrind's count leaves out the conditional exits that VEX's optimiser removed", "[emulate]") {
  const MicroarchSpec& zen3 = *find_microarchitecture("zen3");
  const CacheBehaviour exact{.prefetchers = false, .victim_l3 = false, .cachegrind_branches = true};
  auto conditional_branches = [&](const std::vector<TraceInstruction>& trace, const InstructionInfo& info,
                                  CacheBehaviour behaviour) {
    CoreModel model(zen3, PageSize::small_4k, behaviour);
    Sample op;
    Fetches fetches;
    for (const TraceInstruction& t : trace) model.retire(t, info, op, fetches);
    return model.counts().conditional_branches;
  };
  SECTION("a REP string whose count the superblock set") {
    // `mov $4,%ecx; rep movsb` in one superblock: 5 runs (4 iterations,
    // then the one that finds rcx 0), each with an exit on rcx == 0 in
    // VEX's translation, but the first run's tests the constant 4: the
    // optimiser removed it (the tool saw 0 exits kept). The 4 runs after it
    // start superblocks of their own at the rep (rcx unknown, 1 exit kept).
    const InstructionInfo rep_movsb{.known = true, .fast_string = true,
                                    .valgrind_exit = InstructionInfo::ValgrindExit::repeat};
    std::vector<TraceInstruction> trace = movsb_trace(0x5000, 0x6000, 4);
    for (TraceInstruction& t : trace) t.valgrind_exits = 1;
    trace[0].valgrind_exits = 0;
    CHECK(conditional_branches(trace, rep_movsb, exact) == 4);
    // A trace that does not say (Lackey's): every run has its exit.
    for (TraceInstruction& t : trace) t.valgrind_exits = -1;
    CHECK(conditional_branches(trace, rep_movsb, exact) == 5);
  }
  SECTION("a conditional jump that its translation has no exit for") {
    // Valgrind's default chasing merges a jump over a few instructions
    // into a select: no exit kept, no branch to Cachegrind.
    const InstructionInfo je{.branch = BranchKind::conditional, .known = true};
    TraceInstruction jump = instruction(0x3000, 2, 0x3040);
    jump.valgrind_exits = 0;
    CHECK(conditional_branches({jump}, je, exact) == 0);
    // The hardware branches all the same.
    CHECK(conditional_branches({jump}, je, CacheBehaviour{}) == 1);
    CoreModel model(zen3, PageSize::small_4k, exact);
    Sample op;
    Fetches fetches;
    model.retire(jump, je, op, fetches);
    CHECK(op.conditions.contains(condition("branch.conditional")));
    CHECK(op.conditions.contains(condition("branch.taken")));
    jump.valgrind_exits = 1;
    CHECK(conditional_branches({jump}, je, exact) == 1);
  }
}
