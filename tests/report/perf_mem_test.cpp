// tagop report --where on `perf mem record` captures against perf's own
// reading of the same data sources: a capture shaped as perf mem record
// writes it on Intel (cpu/mem-loads,ldlat=30/P and cpu/mem-stores/P, their
// data sources composed as arch/x86/events/intel/ds.c composes them), whose
// memory levels `perf report --mem-mode --sort mem` counts row by row, and
// whose snoop results (HITM) `--sort snoop` counts: each row's samples are
// those of the predicate that names its level.

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <linux/perf_event.h>

#include <tagop/perf_data_writer.hpp>

#include "../run_command.hpp"

using json = nlohmann::json;
namespace fs = std::filesystem;
using namespace tagop::perf_data;

namespace {

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("tagop-perf-mem-" + std::to_string(::getpid()) + "-" + name)).string();
}

// union perf_mem_data_src's fields (include/uapi/linux/perf_event.h).
constexpr std::uint64_t op(std::uint64_t v) { return v; }
constexpr std::uint64_t lvl(std::uint64_t v) { return v << 5; }
constexpr std::uint64_t snoop(std::uint64_t v) { return v << 19; }
constexpr std::uint64_t lock(std::uint64_t v) { return v << 24; }
constexpr std::uint64_t tlb(std::uint64_t v) { return v << 26; }
constexpr std::uint64_t lvl_num(std::uint64_t v) { return v << 33; }
constexpr std::uint64_t REM = std::uint64_t{1} << 37;
constexpr std::uint64_t snoopx(std::uint64_t v) { return v << 38; }
constexpr std::uint64_t LOAD = 2, STORE = 4;
constexpr std::uint64_t HIT = 2, MISS = 4, L1 = 8, LFB = 0x10, L2 = 0x20, L3 = 0x40, LOC_RAM = 0x80, REM_RAM1 = 0x100,
                        REM_CCE1 = 0x400, IO = 0x1000, UNC = 0x2000;
constexpr std::uint64_t SN_NA = 1, SN_NONE = 2, SN_HIT = 4, SN_MISS = 8, SN_HITM = 0x10, FWD = 1;
constexpr std::uint64_t TLB_HIT = 2, TLB_MISS = 4, TLB_L1 = 8, TLB_L2 = 0x10, LOCKED = 2;
constexpr std::uint64_t NUM_L1 = 1, NUM_L2 = 2, NUM_L3 = 3, NUM_ANY_CACHE = 0xB, NUM_LFB = 0xC, NUM_RAM = 0xD,
                        NUM_PMEM = 0xE, NUM_NA = 0xF;

// Intel's load data sources on Skylake with PMEM, as ds.c composes them
// (torvalds/linux c058e7a8): pebs_data_source[] (lines 80-97) patched by
// __intel_pmu_pebs_data_source_skl(true) (lines 107-116), with
// pebs_set_tlb_lock() (lines 242-257); and precise_store_data() (lines
// 176-212). Each with how many samples the capture has of it.
struct Source {
  std::uint64_t data_src;
  int samples;
};
constexpr std::uint64_t OP_LH = op(LOAD) | lvl(HIT);
constexpr std::uint64_t no_stlb_miss = tlb(TLB_HIT | TLB_L1 | TLB_L2), stlb_miss = tlb(TLB_MISS | TLB_L2);
const std::vector<Source> loads = {
    {op(LOAD) | lvl(MISS) | lvl_num(NUM_L3) | snoop(SN_NA) | no_stlb_miss, 2},  // 0x00: unknown L3 miss
    {OP_LH | lvl(L1) | lvl_num(NUM_L1) | snoop(SN_NONE) | no_stlb_miss, 40},    // 0x01: L1
    {OP_LH | lvl(L1) | lvl_num(NUM_L1) | snoop(SN_NONE) | no_stlb_miss | lock(LOCKED), 3},
    {OP_LH | lvl(LFB) | lvl_num(NUM_LFB) | snoop(SN_NONE) | no_stlb_miss, 7},   // 0x02: LFB
    {OP_LH | lvl(L2) | lvl_num(NUM_L2) | snoop(SN_NONE) | no_stlb_miss, 11},    // 0x03: L2
    {OP_LH | lvl(L2) | lvl_num(NUM_L2) | snoop(SN_NONE) | stlb_miss, 4},
    {OP_LH | lvl(L3) | lvl_num(NUM_L3) | snoop(SN_NONE) | no_stlb_miss, 9},     // 0x04: L3
    {OP_LH | lvl(L3) | lvl_num(NUM_L3) | snoop(SN_MISS) | no_stlb_miss, 5},     // 0x05: snoop miss
    {OP_LH | lvl(L3) | lvl_num(NUM_L3) | snoop(SN_HIT) | no_stlb_miss, 6},      // 0x06: snoop hit
    {OP_LH | lvl(L3) | lvl_num(NUM_L3) | snoop(SN_HITM) | no_stlb_miss, 8},     // 0x07: HITM
    {OP_LH | lvl(LOC_RAM) | lvl_num(NUM_RAM) | snoop(SN_HIT) | stlb_miss, 12},  // 0x0a: DRAM, shared
    {OP_LH | lvl(LOC_RAM) | lvl_num(NUM_RAM) | snoop(SN_NONE | SN_MISS) | no_stlb_miss, 10},  // 0x0c (SNB): excl
    {OP_LH | lvl(IO) | lvl_num(NUM_NA) | snoop(SN_NONE) | no_stlb_miss, 2},     // 0x0e: I/O
    {OP_LH | lvl(UNC) | lvl_num(NUM_NA) | snoop(SN_NONE) | no_stlb_miss, 3},    // 0x0f: uncached
    // Sandy Bridge's remote cache (0x08 before the Skylake patch).
    {OP_LH | lvl(REM_CCE1) | REM | lvl_num(NUM_L3) | snoop(SN_HIT) | no_stlb_miss, 4},
};
// Skylake's patched entries name their level in mem_lvl_num alone (mem_lvl
// is HIT): perf 6.1's --sort mem compares mem_lvl only, and shows such
// rows as one, so each is compared in a capture of its own.
const std::vector<Source> level_only = {
    {OP_LH | lvl_num(NUM_PMEM) | snoop(SN_HIT) | no_stlb_miss, 3},              // 0x08: PMEM
    {OP_LH | lvl_num(NUM_RAM) | REM | snoop(SN_NONE) | no_stlb_miss, 5},        // 0x0b: remote DRAM
    {OP_LH | lvl_num(NUM_ANY_CACHE) | REM | snoopx(FWD) | no_stlb_miss, 4},      // 0x0c: remote cache, forward
    {OP_LH | lvl_num(NUM_ANY_CACHE) | REM | snoop(SN_HITM) | no_stlb_miss, 6},   // 0x0d: remote HITM
};
const std::vector<Source> stores = {
    {op(STORE) | snoop(SN_NA) | lvl(L1 | HIT) | tlb(TLB_L2 | TLB_HIT), 30},
    {op(STORE) | snoop(SN_NA) | lvl(L1 | MISS) | tlb(TLB_L2 | TLB_HIT), 13},
    {op(STORE) | snoop(SN_NA) | lvl(L1 | MISS) | tlb(TLB_L2 | TLB_MISS) | lock(LOCKED), 2},
};

// perf mem record's events on x86: cpu/mem-loads,ldlat=30/P and
// cpu/mem-stores/P, with its sample_type.
perf_event_attr mem_attr(std::uint64_t config, std::uint64_t config1) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_RAW;
  a.config = config;
  a.config1 = config1;
  a.sample_period = 2000;
  a.precise_ip = 2;
  a.sample_id_all = 1;
  a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
                  PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
  return a;
}

std::string write_capture(const std::string& name, const std::vector<Source>& load_sources) {
  const std::string path = temp(name);
  PerfDataWriter w(path,
                   {{.attr = mem_attr(0x1cd, 30), .ids = {11}, .name = "cpu/mem-loads,ldlat=30/P"},
                    {.attr = mem_attr(0x82d0, 0), .ids = {12}, .name = "cpu/mem-stores/P"}},
                   {.cpuid = "GenuineIntel,6,85,4"});
  w.comm(100, 100, "memhog");
  w.mmap2(100, 100, 0x400000, 0x10000, 0, "/nonexistent/memhog");
  std::uint64_t time = 1000;
  int i = 0;
  for (const auto* list : {&load_sources, &stores})
    for (const Source& s : *list)
      for (int n = 0; n < s.samples; ++n, ++i)
        w.sample(list == &stores ? 1 : 0,
                 {.ip = 0x401000 + 16 * static_cast<std::uint64_t>(i % 7), .pid = 100, .tid = 100, .time = time++,
                  .addr = 0x7f0000001000 + 64 * static_cast<std::uint64_t>(i), .cpu = 1, .period = 2000,
                  .weight = 30 + static_cast<std::uint64_t>(i % 50), .data_src = s.data_src});
  w.finish();
  return path;
}

// perf report's rows of one event's section: samples by the key's text.
std::map<std::string, std::map<std::string, std::uint64_t>> perf_rows(const std::string& file, const std::string& sort) {
  const RunResult r = run_shell(fmt::format("perf report -i {} --stdio --mem-mode --sort {} -n", file, sort));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, std::map<std::string, std::uint64_t>> out;
  std::map<std::string, std::uint64_t>* section = nullptr;
  const std::regex event(R"(^# Samples: .* of event '(.*)'$)"), row(R"(^ +[\d.]+% +(\d+) +(.*\S) *$)");
  std::istringstream lines(r.out);
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_match(line, m, event)) section = &out[m[1]];
    else if (section && std::regex_match(line, m, row)) (*section)[m[2]] += std::stoull(m[1]);
  }
  return out;
}

struct Counted {
  std::uint64_t loads = 0, stores = 0, undecided = 0;
};
Counted tagop_where(const std::string& file, const std::string& where) {
  const RunResult r = run_tagop(fmt::format("report {} --where '{}' --json --top 0", file, where));
  INFO(where << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  return {j["event_totals"]["cpu/mem-loads,ldlat=30/P"]["samples"], j["event_totals"]["cpu/mem-stores/P"]["samples"],
          j["where_undecided"]};
}

bool perf_here() { return run_shell("perf --version").exit_code == 0; }

// perf's level names (perf_mem__lvl_scnprintf() of perf 6.1: the mem_lvl
// bits' names, "or" the mem_lvl_num's, "Remote " for the remote bit, then
// hit or miss) and the predicates that select those levels, by hand.
const std::map<std::string, std::string> load_level = {
    {"L1 or L1 hit", "load & !dc.miss"},
    {"LFB/MAB or LFB/MAB hit", "load & dc.miss_no_mab"},
    {"L2 or L2 hit", "load & dc.miss & !l2.miss"},
    {"L3 or L3 hit", "load & src.l3"},
    {"L3 miss", "load & l3.miss & !src.l3"},
    {"Local RAM or RAM hit", "load & src.dram & !src.remote"},
    {"Remote Remote Cache (1 hop) or L3 hit", "load & src.cache & src.remote"},
    {"I/O or N/A hit", "load & src.io"},
    {"Uncached or N/A hit", "load & mem.uncacheable"},
    {"PMEM hit", "load & src.pmem & !src.remote"},
    {"Remote RAM hit", "load & src.dram & src.remote"},
    {"Remote Any cache hit", "load & src.cache & src.remote"},
};
const std::map<std::string, std::string> store_level = {
    {"L1 hit", "store & !dc.miss"},
    {"L1 miss", "store & dc.miss"},
};

// Each of perf's rows of `sort` against tagop's count of its predicate.
void compare_rows(const std::string& file, const std::string& sort,
                  const std::map<std::string, std::string>& loads_by, const std::map<std::string, std::string>& stores_by) {
  const auto rows = perf_rows(file, sort);
  REQUIRE(rows.count("cpu/mem-loads,ldlat=30/P"));
  REQUIRE(rows.count("cpu/mem-stores/P"));
  for (const auto& [event, by] : {std::pair{"cpu/mem-loads,ldlat=30/P", &loads_by}, std::pair{"cpu/mem-stores/P", &stores_by}})
    for (const auto& [label, n] : rows.at(event)) {
      INFO(event << ": perf report --sort " << sort << "'s row '" << label << "': " << n << " samples");
      REQUIRE(by->count(label));
      const Counted c = tagop_where(file, by->at(label));
      CHECK((std::string(event) == "cpu/mem-stores/P" ? c.stores : c.loads) == n);
    }
}

}  // namespace

TEST_CASE("perf mem: --where counts what perf report --sort mem counts per memory level", "[report][perf][mem]") {
  if (!perf_here()) {
    WARN("perf is not installed: perf mem captures are not compared");
    return;
  }
  const std::string file = write_capture("levels.data", loads);
  compare_rows(file, "mem", load_level, store_level);
  // A load's DC miss is decided by every level but uncached (its DcMiss
  // is not valid): those are the undecided ones.
  const auto rows = perf_rows(file, "mem");
  CHECK(tagop_where(file, "load & !dc.miss").undecided == rows.at("cpu/mem-loads,ldlat=30/P").at("Uncached or N/A hit"));
  fs::remove(file);

  // Skylake's levels of mem_lvl_num alone, each on its own.
  for (const Source& s : level_only) {
    const std::string one = write_capture("level-only.data", {s});
    compare_rows(one, "mem", load_level, store_level);
    fs::remove(one);
  }
}

TEST_CASE("perf mem: HITM, the DTLB and the lock as perf report --sort snoop, tlb, locked count them",
          "[report][perf][mem]") {
  if (!perf_here()) {
    WARN("perf is not installed: perf mem captures are not compared");
    return;
  }
  std::vector<Source> all = loads;
  all.insert(all.end(), level_only.begin(), level_only.end());
  const std::string file = write_capture("snoop.data", all);
  const auto rows = perf_rows(file, "snoop");
  const std::uint64_t hitm = rows.at("cpu/mem-loads,ldlat=30/P").at("HitM");
  CHECK(tagop_where(file, "load & src.cache_modified").loads == hitm);
  compare_rows(file, "tlb", {{"L1 or L2 hit", "load & !dtlb.l2_miss"}, {"L2 miss", "load & dtlb.l2_miss"}},
               {{"L2 hit", "store & !dtlb.l2_miss"}, {"L2 miss", "store & dtlb.l2_miss"}});
  compare_rows(file, "locked", {{"No", "load & !mem.locked"}, {"Yes", "load & mem.locked"}},
               {{"No", "store & !mem.locked"}, {"Yes", "store & mem.locked"}});
  fs::remove(file);
}

TEST_CASE("perf mem on AMD: ibs_op samples without their registers are read by their data sources",
          "[report][perf][mem]") {
  if (!perf_here()) {
    WARN("perf is not installed: perf mem captures are not compared");
    return;
  }
  // perf mem record on Zen: ibs_op// with the data source and weight, no
  // raw registers. The data sources as perf_ibs_get_data_src() writes them
  // on Zen 3 (arch/x86/events/amd/ibs.c, 6.1: g_data_src's levels, L1 and
  // L2 hits; mem_lvl_num left 0, the DTLB's L1|HIT, L2|HIT, L2|MISS, the lock NA).
  perf_event_attr a = mem_attr(0, 0);
  a.type = 11;
  a.precise_ip = 0;
  const std::string path = temp("amd.data");
  const std::vector<Source> amd = {
      {op(LOAD) | lvl(L1 | HIT) | snoop(SN_NA) | lock(1) | tlb(TLB_L1 | TLB_HIT), 20},
      {op(LOAD) | lvl(L2 | HIT) | snoop(SN_NA) | lock(1) | tlb(TLB_L2 | TLB_HIT), 6},
      {op(LOAD) | lvl(L3 | REM_CCE1 | HIT) | snoop(SN_NA) | lock(1) | tlb(TLB_L1 | TLB_HIT), 5},
      {op(LOAD) | lvl(LOC_RAM | HIT) | snoop(SN_NA) | lock(1) | tlb(TLB_L2 | TLB_MISS), 9},
      {op(STORE) | lvl(L1 | HIT) | snoop(SN_NA) | lock(1) | tlb(TLB_L1 | TLB_HIT), 4},
  };
  {
    PerfDataWriter w(path, {{.attr = a, .ids = {21}, .name = "ibs_op//"}},
                     {.cpuid = "AuthenticAMD,25,1,1", .pmu_mappings = {{11, "ibs_op"}}});
    w.comm(100, 100, "memhog");
    w.mmap2(100, 100, 0x400000, 0x10000, 0, "/nonexistent/memhog");
    std::uint64_t time = 1;
    for (const Source& s : amd)
      for (int n = 0; n < s.samples; ++n)
        w.sample(0, {.ip = 0x401000, .pid = 100, .tid = 100, .time = time++, .addr = 0x7f0000001000, .cpu = 1,
                     .period = 2000, .weight = 100, .data_src = s.data_src});
    w.finish();
  }
  const auto rows = perf_rows(path, "mem");
  REQUIRE(rows.count("ibs_op//"));
  const std::map<std::string, std::string> level = {
      {"L1 hit", "!dc.miss"},  // the stores' L1 hits too: one event
      {"L2 hit", "load & dc.miss & !l2.miss"},
      {"L3 or Remote Cache (1 hop) hit", "load & nb.valid & !src.dram"},
      {"Local RAM hit", "load & src.dram & !src.remote"},
  };
  for (const auto& [label, n] : rows.at("ibs_op//")) {
    INFO("perf report --sort mem's row '" << label << "': " << n << " samples");
    REQUIRE(level.count(label));
    const RunResult r = run_tagop(fmt::format("report {} --where '{}' --json --top 0", path, level.at(label)));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(json::parse(r.out)["event_totals"]["ibs_op//"]["samples"] == n);
  }
  fs::remove(path);
}

TEST_CASE("perf mem: the average load latency is the loads' weights' average", "[report][mem]") {
  const std::string file = write_capture("latency.data", loads);
  // write_capture's weights, 30 + i % 50 for the i-th sample (loads
  // first), averaged by hand: all loads, and those that hit the L3.
  double all = 0, l3 = 0;
  int n = 0, n_l3 = 0, i = 0;
  for (const Source& s : loads)
    for (int k = 0; k < s.samples; ++k, ++i) {
      const double w = 30 + i % 50;
      all += w;
      ++n;
      if ((s.data_src >> 5 & L3) && !(s.data_src >> 5 & REM_CCE1)) {
        l3 += w;
        ++n_l3;
      }
    }
  RunResult r = run_tagop(fmt::format("report {} --json --top 0", file));
  REQUIRE(r.exit_code == 0);
  json j = json::parse(r.out);
  CHECK(j["event_totals"]["cpu/mem-loads,ldlat=30/P"]["load_latency"].get<double>() == Approx(all / n));
  CHECK_FALSE(j["event_totals"]["cpu/mem-stores/P"].contains("load_latency"));  // stores have none
  r = run_tagop(fmt::format("report {} --json --top 0 --where 'load & src.l3'", file));
  REQUIRE(r.exit_code == 0);
  j = json::parse(r.out);
  CHECK(j["event_totals"]["cpu/mem-loads,ldlat=30/P"]["samples"] == n_l3);
  CHECK(j["event_totals"]["cpu/mem-loads,ldlat=30/P"]["load_latency"].get<double>() == Approx(l3 / n_l3));
  // Each row's too: the rows' latencies weighted by their loads are the total's.
  double weighted = 0;
  for (const json& row : j["rows"])
    weighted += row["events"]["cpu/mem-loads,ldlat=30/P"]["load_latency"].get<double>() *
                row["events"]["cpu/mem-loads,ldlat=30/P"]["samples"].get<double>();
  CHECK(weighted == Approx(l3));
  fs::remove(file);
}

TEST_CASE("perf mem: --where names what data sources cannot tell, and a capture without them refuses it",
          "[report][mem]") {
  const std::string file = write_capture("refuse.data", loads);
  RunResult r = run_tagop(fmt::format("report {} --where 'load & branch'", file));
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("branch cannot be told from the data sources"));
  // The note says what the samples decide.
  r = run_tagop(fmt::format("report {} --where 'load & dc.miss'", file));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("the samples' data sources (PERF_SAMPLE_DATA_SRC, perf mem) decide load, store"));
  // The loads but the uncached (3) decide dc.miss; the stores are no loads.
  CHECK_THAT(r.out, Catch::Contains(fmt::format("where load & dc.miss: {} samples meet it, 3 are undecided",
                                                 2 + 7 + 11 + 4 + 9 + 5 + 6 + 8 + 12 + 10 + 2 + 4)));
  fs::remove(file);
}
