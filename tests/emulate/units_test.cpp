// The parts of tagop emulate, without Valgrind: the LRU block cache, the
// predictor, the lackey trace parser, the IBS encoding (against bits from
// the register reference and against the decoder), the emulation mark and
// the processor tables.

#include <catch2/catch.hpp>

#include <sys/stat.h>  // mkfifo
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <tagop/amd_ibs/decoder.hpp>
#include <tagop/emulate/branch_predictor.hpp>
#include <tagop/emulate/cache.hpp>
#include <tagop/emulate/core_model.hpp>
#include <tagop/emulate/counts_file.hpp>
#include <tagop/emulate/ibs_encoder.hpp>
#include <tagop/emulate/lackey_trace.hpp>
#include <tagop/emulate/marker.hpp>
#include <tagop/emulate/microarchitecture.hpp>
#include <tagop/error.hpp>

using namespace tagop;
using namespace tagop::emulate;

TEST_CASE("a 2-way set evicts its least recently used line", "[emulate]") {
  // 4 lines of 64 bytes, 2 ways: 2 sets; 0x000, 0x080, 0x100 share set 0.
  BlockCache c(4, 2, 6);
  CHECK_FALSE(c.access(0x000));
  CHECK_FALSE(c.access(0x080));
  CHECK(c.access(0x000));        // 0x000 is now the most recent
  CHECK_FALSE(c.access(0x100));  // evicts 0x080
  CHECK(c.access(0x000));
  CHECK_FALSE(c.access(0x080));  // it was evicted; now evicts 0x100
  CHECK_FALSE(c.access(0x100));
  CHECK_FALSE(c.access(0x040));  // set 1: independent
  CHECK(c.access(0x07F));        // same line as 0x040
}

TEST_CASE("a cache that the part does not have always misses", "[emulate]") {
  BlockCache none(0, 0, 6);
  CHECK_FALSE(none.access(0x1000));
  CHECK_FALSE(none.access(0x1000));
}

TEST_CASE("a fully associative TLB holds as many pages as it has entries", "[emulate]") {
  BlockCache tlb(64, 0, 12);
  for (int round = 0; round < 2; ++round)
    for (std::uint64_t page = 0; page < 64; ++page) CHECK(tlb.access(page << 12) == (round == 1));
  // 65 pages in turn: LRU misses on every one.
  BlockCache small(64, 0, 12);
  int hits = 0;
  for (int round = 0; round < 3; ++round)
    for (std::uint64_t page = 0; page < 65; ++page) hits += small.access(page << 12);
  CHECK(hits == 0);
}

TEST_CASE("the predictor learns a loop, and its return stack predicts returns", "[emulate]") {
  BranchPredictor p(PredictorSpec{.history_bits = 8, .counters_log2 = 10, .indirect_targets = 16, .return_stack = 4});
  int mispredicted = 0;
  for (int i = 0; i < 1000; ++i) {
    const bool missed = p.conditional(0x401000, i % 100 != 99);
    if (i >= 200) mispredicted += missed;
  }
  // Taken 99 times then not: once trained (two trips), only the 8 exits miss.
  CHECK(mispredicted <= 8);
  p.call(0x1005);
  p.call(0x2005);
  CHECK_FALSE(p.ret(0x2005));
  CHECK_FALSE(p.ret(0x1005));
  p.call(0x3005);
  CHECK(p.ret(0x4444));
  // An indirect jump to the same place as last time is predicted.
  CHECK(p.indirect(0x500000, 0x600000));
  CHECK_FALSE(p.indirect(0x500000, 0x600000));
  CHECK(p.indirect(0x500000, 0x700000));
}

TEST_CASE("the lackey parser hands on each instruction with its accesses and where it went", "[emulate]") {
  const std::string trace =
      "==123== Lackey, an example Valgrind tool\n"
      "I  0401ab70,3\n"
      "I  0401ab73,5\n"
      " S 1fff000608,8\n"
      " L 1fff000600,4\n"
      "I  0401b770,1\n"
      " M 0000abcd,2\n"
      "garbage\n"
      "I  0401b771,7\n";
  std::vector<TraceInstruction> got;
  LackeyTraceParser parser;
  auto keep = [&](const TraceInstruction& i) { got.push_back(i); };
  // Fed in pieces that cut lines anywhere.
  for (std::size_t at = 0; at < trace.size(); at += 7)
    parser.feed(std::span<const char>(trace.data() + at, std::min<std::size_t>(7, trace.size() - at)), keep);
  parser.finish(keep);
  REQUIRE(got.size() == 4);
  CHECK(got[0].ip == 0x401ab70);
  CHECK(got[0].size == 3);
  CHECK(got[0].access_count == 0);
  CHECK(got[0].next_ip == 0x401ab73);
  CHECK(got[1].access_count == 2);
  CHECK(got[1].accesses[0].address == 0x1fff000608);
  CHECK(got[1].accesses[0].kind == AccessKind::store);
  CHECK(got[1].accesses[1].size == 4);
  CHECK(got[1].accesses[1].kind == AccessKind::load);
  CHECK(got[1].next_ip == 0x401b770);  // a jump: not ip + size
  CHECK(got[2].accesses[0].kind == AccessKind::modify);
  CHECK(got[3].next_ip == 0);  // the end of the trace
  CHECK(parser.instructions() == 4);
  CHECK(parser.bad_lines() == 1);
  REQUIRE(parser.messages().size() == 1);
  CHECK(parser.messages()[0].starts_with("==123=="));
}

TEST_CASE("an op sample becomes the IBS bits the register reference gives", "[emulate][ibs]") {
  // Family 10h (shared/reference/amd-ibs.md): IbsOpData3 bit 0 IbsLdOp, 7 IbsDcMiss, 17
  // IbsDcLinAddrValid, 47:32 IbsDcMissLat; IbsOpData bit 37 IbsOpBrnRet, 35 IbsOpBrnTaken,
  // 36 IbsOpBrnMisp; NbIbsReqSrc 3 = DRAM; IbsOpCtl 15:0 MaxCnt, 17 IbsOpEn, 18 IbsOpVal, 19 IbsOpCntCtl.
  const IbsEncoder encoder(0x10, 4);
  Sample s;
  s.conditions = {condition("op"), condition("load"), condition("dc.miss"), condition("dc.lin_addr_valid"),
                  condition("l2.miss"), condition("nb.valid"), condition("src.dram")};
  s.ip = 0x401000;
  s.data_linear = 0x7ffd1000;
  s.set_measure(measure("dc.miss_latency"), 300);
  s.set_measure(measure("op.tag_to_retire"), 0x1234);
  const auto regs = encoder.encode(s, 0x1000);
  using amd_ibs::IbsRegister;
  CHECK(regs.get(IbsRegister::IbsOpData3) == ((std::uint64_t{300} << 32) | (1u << 17) | (1u << 7) | 1u));
  CHECK(regs.get(IbsRegister::IbsOpData2) == 3);
  CHECK(regs.get(IbsRegister::IbsOpData) == (std::uint64_t{0x1234} << 16));
  CHECK(regs.get(IbsRegister::IbsOpRip) == 0x401000);
  CHECK(regs.get(IbsRegister::IbsDcLinAd) == 0x7ffd1000);
  CHECK(regs.get(IbsRegister::IbsOpCtl) == (0x100 | (1u << 17) | (1u << 18) | (1u << 19)));

  Sample b;
  b.conditions = {condition("op"), condition("branch"), condition("branch.taken"), condition("branch.mispredicted")};
  CHECK(encoder.encode(b, 16).get(IbsRegister::IbsOpData) == ((std::uint64_t{1} << 37) | (std::uint64_t{1} << 36) |
                                                               (std::uint64_t{1} << 35)));
}

TEST_CASE("what the encoder writes, the decoder reads back, for every IBS model", "[emulate][ibs]") {
  for (const MicroarchSpec& m : microarchitectures()) {
    if (m.format != SampleFormat::ibs) continue;
    INFO(m.name);
    const IbsEncoder encoder(m.family, m.model);
    const amd_ibs::IbsDecoder decoder(m.family, m.model);
    const ConditionSet observable = decoder.observable(amd_ibs::IbsUnit::op);
    // Loads served by the L3 and by DRAM, a mispredicted return, a split store.
    const ConditionSet cases[] = {
        {condition("op"), condition("load"), condition("dc.lin_addr_valid"), condition("dc.miss"), condition("l2.miss"),
         condition("nb.valid"), condition("src.dram"), condition("dtlb.l1_miss")},
        {condition("op"), condition("load"), condition("dc.lin_addr_valid"), condition("dc.miss"), condition("l2.miss"),
         condition("nb.valid"), condition("src.l3")},
        {condition("op"), condition("branch"), condition("branch.taken"), condition("branch.mispredicted"),
         condition("return")},
        {condition("op"), condition("store"), condition("dc.lin_addr_valid"), condition("mem.misaligned"),
         condition("mem.locked")},
    };
    for (const ConditionSet& c : cases) {
      Sample s;
      s.conditions = c;
      const Sample back = decoder.decode(encoder.encode(s, 0x10000));
      // What the family observes comes back; Zen does not tell an L3 from another core's cache.
      ConditionSet expected = c & observable;
      ConditionSet got = back.conditions & observable & c;
      CHECK(got == expected);
      CHECK(back.conditions.contains_all(expected));
    }
  }
}

TEST_CASE("a capture's command line says whether it was emulated, and by which model", "[emulate]") {
  perf_data::FileInfo info;
  CHECK_FALSE(emulation_of(info));
  info.cmdline = {"perf", "record", "-e", "ibs_op//", "--", "./a.out"};
  CHECK_FALSE(emulation_of(info));
  info.cmdline = emulation_cmdline("zen3", {"gzip", "-c", "f"});
  REQUIRE(emulation_of(info));
  CHECK(emulation_of(info)->model == "zen3");
  CHECK(emulation_of(info)->command == "gzip -c f");
  CHECK(emulation_of(info)->label() == "emulated (model: zen3, AMD Zen 3 (Family 19h, EPYC 7003 / Ryzen 5000))");
  info.cmdline = {"tagop", "emulate", "--as", "k7", "--", "x"};
  CHECK(emulation_of(info)->label() == "emulated (model: k7)");
}

TEST_CASE("every processor table is whole and cites its numbers", "[emulate]") {
  for (const MicroarchSpec& m : microarchitectures()) {
    INFO(m.name);
    CHECK(find_microarchitecture(m.name) == &m);
    for (const CacheSpec* c : {&m.l1i, &m.l1d, &m.l2}) {
      CHECK(c->size > 0);
      CHECK(!c->source.empty());
      CHECK((c->ways == 0 || (c->size / c->line) % c->ways == 0));
    }
    CHECK(m.l1d.size < m.l2.size);
    CHECK(m.l1d.latency < m.l2.latency);
    CHECK(m.l2.latency < m.dram_latency);
    for (const TlbSpec* t : {&m.itlb_l1, &m.dtlb_l1}) {
      CHECK(t->entries_4k > 0);
      CHECK(!t->source.empty());
    }
    CHECK(!m.predictor.source.empty());
    CHECK(!m.dram_source.empty());
    CHECK(!m.page_walk_source.empty());
    CHECK(m.fetch_block > 0);
    CHECK((m.fetch_block & (m.fetch_block - 1)) == 0);
    CHECK(m.l1i.latency > 0);  // a fetch that hits still takes cycles (IbsFetchLat)
    CHECK((!m.l1d_prefetchers || !m.prefetch_source.empty()));
    CHECK((!m.victim_l3 || (!m.victim_l3_source.empty() && m.l3.size > 0)));
    // The model builds from it.
    CoreModel model(m);
    CHECK(&model.spec() == &m);
  }
  CHECK(find_microarchitecture("ZEN3") == find_microarchitecture("zen3"));
  CHECK(find_microarchitecture("k8") == nullptr);
}

TEST_CASE("a damaged counts file is refused with what is wrong", "[emulate]") {
  const auto path = std::filesystem::temp_directory_path() / ("tagop-counts-" + std::to_string(::getpid()) + ".json");
  auto refused_path = [&](const std::filesystem::path& file) -> std::string {
    try {
      read_counts_file(file.string());
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  auto refused = [&](const std::string& text) {
    std::ofstream(path) << text;
    return refused_path(path);
  };
  CHECK(refused("{not json").find("not JSON") != std::string::npos);
  CHECK(refused(R"({"format": "other"})").find("not a counts file") != std::string::npos);
  CHECK(refused(R"({"format": "tagop-emulate-counts/1", "command": "x", "models": [{"model": "zen3"}]})")
            .find("malformed counts file") != std::string::npos);
  const std::string bad_condition =
      R"({"format": "tagop-emulate-counts/1", "command": "x", "models": [{"model": "zen3", "backend": "amd-ibs",
          "ops": 1, "fetches": 0, "modelled": {"op": ["op", "dc.mis"], "fetch": []}, "signatures": [], "events": []}]})";
  CHECK(refused(bad_condition).find("unknown condition \"dc.mis\"") != std::string::npos);
  // Counts are integers from 0 to 2^64-1: a float, a negative number or a
  // larger one would convert silently (or with undefined behaviour).
  for (const char* count : {"1.5", "-3", "1e30", "18446744073709551616", "\"7\""}) {
    INFO(count);
    const std::string text = std::string(R"({"format": "tagop-emulate-counts/1", "command": "x", "models": [{"model":
        "zen3", "backend": "amd-ibs", "ops": 1, "fetches": 0, "modelled": {"op": ["op"], "fetch": []},
        "signatures": [{"kind": "op", "conditions": ["op"], "count": )") + count + R"(}], "events": []}]})";
    CHECK_THAT(refused(text), Catch::Contains("model zen3: \"count\" is") && Catch::Contains("not a count"));
  }
  // A FIFO would block the open for ever.
  std::filesystem::remove(path);
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  CHECK_THAT(refused_path(path), Catch::Contains("not a regular file"));
  std::filesystem::remove(path);
}
