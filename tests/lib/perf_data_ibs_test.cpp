// IBS captures in perf.data: written by IbsCaptureWriter, read back through
// PerfDataReader + IbsCapture + the engine, and every derived event's total
// checked against a count made here from the raw register bits, with the
// bit positions of shared/reference/amd-ibs.md and the readings it gives
// for seed 000's words, not from the event table's predicates.

#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <tagop/amd_ibs/derived_events.hpp>
#include <tagop/amd_ibs/perf_capture.hpp>
#include <tagop/engine.hpp>
#include <tagop/error.hpp>
#include <tagop/perf_data_reader.hpp>

using namespace tagop;
using namespace tagop::amd_ibs;
using namespace tagop::perf_data;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tagop-ibs-" + std::to_string(::getpid()) + "-" + name)).string();
}

std::uint64_t bit(std::uint64_t v, unsigned n) { return (v >> n) & 1; }
std::uint64_t bits(std::uint64_t v, unsigned lo, unsigned width) { return (v >> lo) & ((std::uint64_t{1} << width) - 1); }

// splitmix64: a fixed sequence, so the test is the same on every run.
struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

struct Expected {
  std::uint64_t count = 0, total = 0;
};

// Family 10h, from the register tables of the reference sheet.
std::map<std::uint16_t, Expected> count_fetch(const std::vector<std::uint64_t>& ctls) {
  std::map<std::uint16_t, Expected> e;
  auto hit = [&](std::uint16_t sel, bool yes, std::uint64_t add = 0) {
    if (yes) e[sel].count++, e[sel].total += add;
  };
  for (std::uint64_t c : ctls) {
    const bool comp = bit(c, 50), ic_miss = bit(c, 51), phys = bit(c, 52), l1 = bit(c, 55), l2 = bit(c, 56);
    const std::uint64_t page = bits(c, 53, 2), lat = bits(c, 32, 16);
    const bool killed = !comp && !ic_miss && !phys && !l1 && !l2;
    hit(0xF000, true);
    hit(0xF001, killed);
    hit(0xF002, !killed);
    hit(0xF003, comp);
    hit(0xF004, !killed && !comp);
    hit(0xF005, phys && !l1);
    hit(0xF006, l1 && !l2);
    hit(0xF007, l1 && l2);
    hit(0xF008, ic_miss);
    hit(0xF009, comp && !ic_miss);
    hit(0xF00A, phys && page == 0);
    hit(0xF00B, phys && page == 1);
    hit(0xF00E, !killed, lat);
  }
  return e;
}

struct OpRegs {
  std::uint64_t data, data2, data3;
};

std::map<std::uint16_t, Expected> count_op(const std::vector<OpRegs>& ops) {
  std::map<std::uint16_t, Expected> e;
  auto hit = [&](std::uint16_t sel, bool yes, std::uint64_t add = 0) {
    if (yes) e[sel].count++, e[sel].total += add;
  };
  for (const OpRegs& r : ops) {
    const std::uint64_t d = r.data, d3 = r.data3;
    const bool br = bit(d, 37), misp = bit(d, 36), taken = bit(d, 35), ret = bit(d, 34), resync = bit(d, 32);
    hit(0xF100, true);
    hit(0xF101, true, bits(d, 16, 16));
    hit(0xF102, true, bits(d, 0, 16));
    hit(0xF103, br);
    hit(0xF104, br && misp);
    hit(0xF105, br && taken);
    hit(0xF106, br && misp && taken);
    hit(0xF107, br && ret);
    hit(0xF108, br && ret && misp);
    hit(0xF109, resync);
    const bool ld = bit(d3, 0), st = bit(d3, 1), ls = ld || st;
    const bool l1m = bit(d3, 2), l2m = bit(d3, 3), l1_2m = bit(d3, 4), l1_1g = bit(d3, 5), l2_2m = bit(d3, 6);
    const bool miss = bit(d3, 7), lin = bit(d3, 17), l2_1g = bit(d3, 19);
    const std::uint64_t lat = bits(d3, 32, 16);
    hit(0xF200, ls);
    hit(0xF201, ld);
    hit(0xF202, st);
    hit(0xF203, ls && lin && !l1m);
    hit(0xF204, ls && lin && l1m && !l2m);
    hit(0xF205, ls && lin && l1m && l2m);
    hit(0xF206, ls && miss);
    hit(0xF207, ls && !miss);
    hit(0xF208, ls && bit(d3, 8));
    hit(0xF209, ls && bit(d3, 9));
    hit(0xF20A, ls && bit(d3, 10));
    hit(0xF20B, ld && bit(d3, 11));
    hit(0xF20C, ld && bit(d3, 12));
    hit(0xF20D, ls && bit(d3, 14));  // 14 = UC, 13 = WC (the later translators' reading)
    hit(0xF20E, ls && bit(d3, 13));
    hit(0xF20F, ls && bit(d3, 15));
    hit(0xF210, ls && bit(d3, 16));
    // The L1 DTLB's page size: for an L1 hit, and after a full miss.
    const bool l1_size_known = ls && lin && (!l1m || l2m);
    hit(0xF211, l1_size_known && !l1_2m && !l1_1g);
    hit(0xF212, l1_size_known && l1_2m);
    hit(0xF213, l1_size_known && l1_1g);
    const bool l2_hit = ls && lin && l1m && !l2m;
    hit(0xF215, l2_hit && !l2_2m && !l2_1g);
    hit(0xF216, l2_hit && l2_2m);
    hit(0xF219, ld && miss, lat);
    const std::uint64_t src = bits(r.data2, 0, 3);
    const bool remote = bit(r.data2, 4), owned = bit(r.data2, 5), nb = ld && miss;
    hit(0xF240, nb && src != 0 && !remote);
    hit(0xF241, nb && src != 0 && remote);
    hit(0xF242, nb && src == 1 && !remote);
    hit(0xF243, nb && src == 2 && !remote);
    hit(0xF244, nb && src == 2 && remote);
    hit(0xF245, nb && src == 3 && !remote);
    hit(0xF246, nb && src == 3 && remote);
    hit(0xF247, nb && src == 7 && !remote);
    hit(0xF248, nb && src == 7 && remote);
    hit(0xF249, nb && src == 2 && !owned);
    hit(0xF24A, nb && src == 2 && owned);
    hit(0xF24B, nb && src != 0 && !remote, lat);
    hit(0xF24C, nb && src != 0 && remote, lat);
  }
  return e;
}

struct Totals : RecordHandler {
  IbsCapture& capture;
  Aggregator aggregator;
  std::uint64_t damaged = 0;
  std::string first_problem;
  std::vector<Sample> samples;
  std::vector<IbsSampleInfo> infos;
  explicit Totals(IbsCapture& c) : capture(c) {}
  void sample(const SampleRecord& r) override {
    Sample s;
    IbsSampleInfo info;
    std::string problem;
    const auto result = capture.decode(r, s, info, problem);
    if (result == IbsCapture::Result::damaged) {
      if (damaged++ == 0) first_problem = problem;
      return;
    }
    if (result != IbsCapture::Result::ok) return;
    aggregator.add(s);
    if (samples.size() < 16) samples.push_back(s), infos.push_back(info);
  }
};

}  // namespace

TEST_CASE("an IBS capture decodes: registers, addresses, identity, period", "[perfdata][ibs]") {
  const std::string path = temp_path("decode.data");
  {
    IbsCaptureWriter w(path, {.family = 0x10, .model = 4, .op_period = 0x20000, .op_counts_dispatched = true});
    IbsRegisters op;
    op.unit = IbsUnit::op;
    op.set(IbsRegister::IbsOpRip, 0x401234);
    op.set(IbsRegister::IbsOpData, std::uint64_t{1} << 37 | std::uint64_t{1} << 36 | 50u << 16 | 7);
    op.set(IbsRegister::IbsOpData2, 3 | 1 << 4);  // DRAM, remote
    op.set(IbsRegister::IbsOpData3, 1 | 1 << 7 | 1 << 17 | std::uint64_t{300} << 32);
    op.set(IbsRegister::IbsDcLinAd, 0x7fff0000);
    w.sample(op, 100, 101, 3, 5000);
    IbsRegisters fetch;
    fetch.unit = IbsUnit::fetch;
    fetch.set(IbsRegister::IbsFetchCtl, std::uint64_t{1} << 50 | std::uint64_t{1} << 51 | std::uint64_t{77} << 32);
    fetch.set(IbsRegister::IbsFetchLinAd, 0x401000);
    w.sample(fetch, 200, 200, 1, 6000);
    w.finish();
  }
  PerfDataReader reader(path);
  IbsCapture capture(reader.info());
  CHECK(capture.cpu().family == 0x10);
  CHECK(capture.cpu().model == 4);
  CHECK(capture.unit_of(&reader.info().attrs[0]) == IbsUnit::fetch);
  CHECK(capture.unit_of(&reader.info().attrs[1]) == IbsUnit::op);
  CHECK(capture.requested_period(IbsUnit::op) == 0x20000);
  Totals t(capture);
  reader.read(t);
  REQUIRE(t.samples.size() == 2);
  const Sample& op = t.samples[0];
  CHECK(op.ip == 0x401234);
  CHECK(op.pid == 100);
  CHECK(op.tid == 101);
  CHECK(op.cpu == 3);
  CHECK(op.time == 5000);
  CHECK(op.conditions.contains(condition("load")));
  CHECK(op.conditions.contains(condition("dc.miss")));
  CHECK(op.conditions.contains(condition("src.dram")));
  CHECK(op.conditions.contains(condition("src.remote")));
  CHECK(op.conditions.contains(condition("branch.mispredicted")));
  CHECK_FALSE(op.conditions.contains(condition("store")));
  CHECK(op.measures[measure("dc.miss_latency").index] == 300);
  CHECK(op.measures[measure("op.tag_to_retire").index] == 50);
  CHECK(op.data_linear == 0x7fff0000);
  CHECK(t.infos[0].unit == IbsUnit::op);
  CHECK(t.infos[0].period == 0x20000);  // IbsOpMaxCnt 0x2000, times 16
  CHECK(t.infos[0].counts_ops);
  const Sample& fetch = t.samples[1];
  CHECK(fetch.ip == 0x401000);
  CHECK(fetch.conditions.contains(condition("ic.miss")));
  CHECK(fetch.measures[measure("fetch.latency").index] == 77);
  CHECK(t.infos[1].unit == IbsUnit::fetch);
  CHECK(t.infos[1].period == 0x10000);
  std::filesystem::remove(path);
}

TEST_CASE("every derived event's total over a capture matches a count from the raw bits", "[perfdata][ibs]") {
  const std::string path = temp_path("totals.data");
  Random rng{2024};
  std::vector<std::uint64_t> fetch_ctls;
  std::vector<OpRegs> ops;
  {
    IbsCaptureWriter w(path, {.family = 0x10, .model = 4});
    for (int i = 0; i < 3000; ++i) {
      IbsRegisters r;
      if (i % 3 == 0) {
        r.unit = IbsUnit::fetch;
        // Outcome bits 50-56 random; a quarter of the fetches killed (none set).
        std::uint64_t ctl = (rng.next() & (std::uint64_t{0x7F} << 50)) | (rng.next() & 0xFFFF) << 32;
        if (rng.next() % 4 == 0) ctl &= ~(std::uint64_t{0x7F} << 50);
        fetch_ctls.push_back(ctl);
        r.set(IbsRegister::IbsFetchCtl, ctl);
        r.set(IbsRegister::IbsFetchLinAd, 0x400000 + (rng.next() & 0xFFF));
      } else {
        r.unit = IbsUnit::op;
        // IbsOpData: both counters and bits 32-37; IbsOpData2: bits 0-5;
        // IbsOpData3: bits 0-19 and the latency.
        const OpRegs o{rng.next() & 0x3F'FFFFFFFFull, rng.next() & 0x3F,
                       (rng.next() & 0xFFFFF) | (rng.next() & 0xFFFF) << 32};
        ops.push_back(o);
        r.set(IbsRegister::IbsOpRip, 0x400000 + (rng.next() & 0xFFF));
        r.set(IbsRegister::IbsOpData, o.data);
        r.set(IbsRegister::IbsOpData2, o.data2);
        r.set(IbsRegister::IbsOpData3, o.data3);
      }
      w.sample(r, 1, 1, 0, static_cast<std::uint64_t>(i));
    }
    w.finish();
  }
  std::map<std::uint16_t, Expected> expected = count_fetch(fetch_ctls);
  for (auto& [sel, e] : count_op(ops)) expected[sel] = e;

  PerfDataReader reader(path);
  IbsCapture capture(reader.info());
  Totals t(capture);
  reader.read(t);
  CHECK(t.damaged == 0);
  const auto table = derived_event_table();
  const auto results = t.aggregator.evaluate(derived_event_queries());
  REQUIRE(table.size() == 59);
  for (std::size_t i = 0; i < table.size(); ++i) {
    INFO("event " << select_string(table[i].select));
    const Expected e = expected[table[i].select];
    CHECK(results[i].available());
    CHECK(results[i].count == e.count);
    if (!table[i].sums.empty()) CHECK(results[i].total == e.total);
  }
  // The random bits reach every event at least once.
  for (const auto& spec : table) CHECK(expected[spec.select].count > 0);
  std::filesystem::remove(path);
}

TEST_CASE("a Zen capture shows events whose bits Zen lacks as not available", "[perfdata][ibs]") {
  const std::string path = temp_path("zen.data");
  {
    IbsCaptureWriter w(path, {.family = 0x19, .model = 1});
    IbsRegisters op;
    op.unit = IbsUnit::op;
    op.set(IbsRegister::IbsOpRip, 0x401000);
    op.set(IbsRegister::IbsOpData3, 1 | 1 << 7 | 1 << 20 | std::uint64_t{200} << 32);  // load, DC and L2 miss
    op.set(IbsRegister::IbsOpData2, 3);                                                 // DRAM
    w.sample(op, 1, 1, 0, 1);
    w.finish();
  }
  PerfDataReader reader(path);
  IbsCapture capture(reader.info());
  CHECK(capture.cpu().family == 0x19);
  Totals t(capture);
  reader.read(t);
  const auto table = derived_event_table();
  const auto results = t.aggregator.evaluate(derived_event_queries());
  // Reserved or redefined on Zen (reference sheet): IbsOpBrnResync (bit
  // 32), the bank conflicts (9, 10), store-to-load forwarding (11, 12),
  // the MAB hit (16 is DcMissNoMabAlloc); Zen 1-3's DataSrc never names the
  // L3 apart from other cores' caches, and Zen 3's CacheHitSt is not valid.
  const std::vector<std::uint16_t> missing{0xF109, 0xF209, 0xF20A, 0xF20B, 0xF20C,
                                           0xF210, 0xF242, 0xF249, 0xF24A};
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].unit != IbsUnit::op) continue;
    INFO("event " << select_string(table[i].select));
    const bool absent = std::find(missing.begin(), missing.end(), table[i].select) != missing.end();
    CHECK(results[i].available() == !absent);
  }
  const auto find = [&](std::uint16_t sel) {
    for (std::size_t i = 0; i < table.size(); ++i)
      if (table[i].select == sel) return results[i];
    return QueryResult{};
  };
  CHECK(find(0xF245).count == 1);   // local DRAM is the same on Zen, for a load that missed the L2
  CHECK(find(0xF219).total == 200);
  std::filesystem::remove(path);
}

TEST_CASE("a short IBS raw payload is damage: reported, the other samples kept", "[perfdata][ibs]") {
  const std::string path = temp_path("short.data");
  {
    IbsCaptureWriter w(path, {.family = 0x10, .model = 4});
    IbsRegisters op;
    op.unit = IbsUnit::op;
    op.set(IbsRegister::IbsOpRip, 0x401000);
    w.sample(op, 1, 1, 0, 1);
    // An op sample whose raw data holds the caps word and two registers only.
    std::vector<std::byte> raw(4 + 16, std::byte{0});
    w.perf().sample(1, {.ip = 0x402000, .pid = 1, .tid = 1, .raw = raw});
    w.sample(op, 1, 1, 0, 3);
    w.finish();
  }
  PerfDataReader reader(path);
  IbsCapture capture(reader.info());
  Totals t(capture);
  const ReadSummary sum = reader.read(t);
  CHECK(sum.samples == 3);
  CHECK(t.damaged == 1);
  CHECK_THAT(t.first_problem, Catch::Contains("shorter than its 7 fixed registers"));
  CHECK(t.aggregator.samples() == 2);
  std::filesystem::remove(path);
}

TEST_CASE("captures that are not IBS, or not from AMD, are refused with the reason", "[perfdata][ibs]") {
  const std::string path = temp_path("notibs.data");
  {
    perf_event_attr a{};
    a.type = PERF_TYPE_HARDWARE;
    a.sample_type = PERF_SAMPLE_IP;
    PerfDataWriter w(path, {{.attr = a, .ids = {}, .name = "cycles"}}, {.cpuid = "GenuineIntel,6,85,4"});
    w.finish();
  }
  PerfDataReader reader(path);
  CHECK_THROWS_WITH(IbsCapture(reader.info()), Catch::Contains("no IBS events") && Catch::Contains("ibs_op"));
  {
    IbsCaptureWriter w(path, {});
    w.finish();
  }
  // Same capture, but the processor says Intel.
  PerfDataReader ibs(path);
  FileInfo info = ibs.info();
  info.cpuid = "GenuineIntel,6,85,4";
  CHECK_THROWS_WITH(IbsCapture(info), Catch::Contains("GenuineIntel") && Catch::Contains("IBS is AMD's"));
  info.cpuid.reset();
  CHECK_THROWS_WITH(IbsCapture(info), Catch::Contains("--family"));
  CHECK(IbsCapture(info, CpuId{"AuthenticAMD", 0x10, 2, 0}).cpu().family == 0x10);
  std::filesystem::remove(path);
}
