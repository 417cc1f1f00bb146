// tagop report --by data and --by cacheline: rows by the data object and
// the cache line of each sample's data address. The captures are written
// here, shaped as `perf mem record` writes them (PERF_SAMPLE_ADDR,
// WEIGHT, DATA_SRC) over a real program (TAGOP_DATA_OBJECTS_FIXTURE), whose
// objects' addresses come from nm; the rows are checked against perf mem
// report and perf c2c report reading the same files, and against counts
// made by hand from the samples written.

#include <catch2/catch.hpp>

#include <linux/perf_event.h>  // PERF_MEM_*, PERF_SAMPLE_*

#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCaptureWriter
#include <tagop/error.hpp>
#include <tagop/perf_data_reader.hpp>
#include <tagop/perf_data_writer.hpp>
#include <tagop/report/report.hpp>

#include "../run_command.hpp"

using json = nlohmann::json;
namespace fs = std::filesystem;
using namespace tagop;

namespace {

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("tagop-dataviews-" + std::to_string(::getpid()) + "-" + name)).string();
}

std::string fixture() {
  const char* path = std::getenv("TAGOP_DATA_OBJECTS_FIXTURE");
  REQUIRE(path);
  return path;
}

// The fixture's objects, by nm: name -> (address, size).
struct Symbol {
  std::uint64_t address = 0, size = 0;
};
const std::map<std::string, Symbol>& symbols() {
  static const std::map<std::string, Symbol> found = [] {
    std::map<std::string, Symbol> out;
    const RunResult nm = run_shell("nm -S --defined-only " + fixture());
    REQUIRE(nm.exit_code == 0);
    std::istringstream in(nm.out);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string address, size, type, name;
      if (!(words >> address >> size >> type >> name)) continue;
      out[name] = {std::stoull(address, nullptr, 16), std::stoull(size, nullptr, 16)};
    }
    return out;
  }();
  return found;
}
std::uint64_t at(const std::string& name, std::uint64_t offset = 0) {
  const auto it = symbols().find(name);
  REQUIRE(it != symbols().end());
  REQUIRE(offset < it->second.size);
  return it->second.address + offset;
}

// The fixture's loaded segments, by readelf, mapped as the kernel maps
// them (each from its page), the data segment's .bss with it.
struct Segment {
  std::uint64_t start, len, pgoff;
};
std::vector<Segment> segments() {
  const RunResult r = run_shell("readelf -lW " + fixture());
  REQUIRE(r.exit_code == 0);
  std::vector<Segment> out;
  const std::regex load(R"(LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+0x([0-9a-f]+))");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), load), end; it != end; ++it) {
    const std::uint64_t offset = std::stoull((*it)[1], nullptr, 16), vaddr = std::stoull((*it)[2], nullptr, 16);
    const std::uint64_t memsz = std::stoull((*it)[3], nullptr, 16);
    const std::uint64_t start = vaddr & ~std::uint64_t{0xFFF};
    out.push_back({start, (vaddr + memsz - start + 0xFFF) & ~std::uint64_t{0xFFF}, offset & ~std::uint64_t{0xFFF}});
  }
  REQUIRE(out.size() >= 2);
  return out;
}

constexpr std::uint32_t pid = 4242;
constexpr std::uint64_t heap = 0x2000000, stack = 0x7ffc00000000, anon = 0x7f0000000000;

// union perf_mem_data_src as Intel's PEBS loads and stores make it (the
// kernel's intel_pmu_*_latency_data / pebs_data_source tables).
constexpr std::uint64_t mem(std::uint64_t op, std::uint64_t lvl, std::uint64_t snoop) {
  return op << PERF_MEM_OP_SHIFT | lvl << PERF_MEM_LVL_SHIFT | snoop << PERF_MEM_SNOOP_SHIFT |
         std::uint64_t{PERF_MEM_TLB_NA} << PERF_MEM_TLB_SHIFT | std::uint64_t{PERF_MEM_LOCK_NA} << PERF_MEM_LOCK_SHIFT;
}
constexpr std::uint64_t l1_hit = mem(PERF_MEM_OP_LOAD, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE);
constexpr std::uint64_t l2_hit = mem(PERF_MEM_OP_LOAD, PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE);
constexpr std::uint64_t local_hitm = mem(PERF_MEM_OP_LOAD, PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM);
constexpr std::uint64_t remote_hitm =
    mem(PERF_MEM_OP_LOAD, PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM);
constexpr std::uint64_t store_hit = mem(PERF_MEM_OP_STORE, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NA);
constexpr std::uint64_t store_miss = mem(PERF_MEM_OP_STORE, PERF_MEM_LVL_L1 | PERF_MEM_LVL_MISS, PERF_MEM_SNOOP_NA);

struct MemSample {
  std::uint64_t addr, data_src;
  bool store = false;
};

// A perf mem record capture (x86: cpu/mem-loads,ldlat=30/P and
// cpu/mem-stores/P) of the fixture, with the heap, a stack and an
// anonymous mapping beside it; each sample of period 1, at main's code.
void write_mem_capture(const std::string& path, const std::vector<MemSample>& samples) {
  perf_event_attr loads{};
  loads.size = sizeof loads;
  loads.type = PERF_TYPE_RAW;
  loads.config = 0x1cd;  // MEM_TRANS_RETIRED.LOAD_LATENCY
  loads.config1 = 30;
  loads.sample_period = 1;
  loads.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
                      PERF_SAMPLE_IDENTIFIER;
  loads.sample_id_all = 1;
  loads.precise_ip = 3;
  loads.mmap = loads.comm = loads.mmap2 = loads.task = 1;
  perf_event_attr stores = loads;
  stores.config = 0x82d0;  // MEM_INST_RETIRED.ALL_STORES
  stores.config1 = 0;
  stores.mmap = stores.comm = stores.mmap2 = stores.task = 0;
  perf_data::PerfDataWriter w(path,
                              {{.attr = loads, .ids = {11}, .name = "cpu/mem-loads,ldlat=30/P"},
                               {.attr = stores, .ids = {12}, .name = "cpu/mem-stores/P"}},
                              {.pmu_mappings = {{4, "cpu"}}, .hostname = "data-views", .os_release = "6.1.0",
                               .arch = "x86_64", .cpus = perf_data::CpuCount{2, 2},
                               .numa_nodes = {{0, 1u << 20, 1u << 19, "0-1"}}});
  w.comm(pid, pid, "fixture", true, {.pid = pid, .tid = pid, .time = 1});
  for (const Segment& s : segments()) w.mmap2(pid, pid, s.start, s.len, s.pgoff, fixture(), {}, {.pid = pid, .tid = pid, .time = 2});
  w.mmap2(pid, pid, heap, 0x21000, 0, "[heap]", {}, {.pid = pid, .tid = pid, .time = 3});
  w.mmap2(pid, pid, stack, 0x21000, 0, "[stack]", {}, {.pid = pid, .tid = pid, .time = 3});
  w.mmap2(pid, pid, anon, 0x10000, 0, "//anon", {}, {.pid = pid, .tid = pid, .time = 3});
  const std::uint64_t ip = at("main");
  std::uint64_t time = 10;
  for (const MemSample& s : samples)
    w.sample(s.store ? 1 : 0, {.ip = ip, .pid = pid, .tid = pid, .time = time++, .addr = s.addr, .cpu = 0,
                               .period = 1, .weight = s.store ? 0u : 40u, .data_src = s.data_src});
  w.finish();
}

// The samples of the perf comparisons: each object touched a known
// number of times, at several offsets (perf's rows are per address).
std::vector<MemSample> mem_samples() {
  std::vector<MemSample> out;
  auto add = [&](std::uint64_t addr, std::uint64_t data_src, int n, bool store = false) {
    for (int i = 0; i < n; ++i) out.push_back({addr, data_src, store});
  };
  add(at("hot_counters", 0), local_hitm, 5);
  add(at("hot_counters", 4), remote_hitm, 2);
  add(at("hot_counters", 8), store_miss, 3, true);
  add(at("hot_counters", 0x40), l1_hit, 4);
  add(at("cold_table", 0x1000), l2_hit, 6);
  add(at("cold_table", 0x2008), l1_hit, 1);
  add(at("cold_table", 0x1010), local_hitm, 2);
  add(at("_ZL14private_buffer", 16), store_hit, 2, true);
  add(at("greeting", 3), l1_hit, 1);
  add(heap + 0x100, l2_hit, 3);
  add(stack + 0x20, l1_hit, 2);
  add(anon + 0x80, l1_hit, 1);
  return out;
}

json tagop_json(const std::string& args) {
  const RunResult r = run_tagop("report " + args + " --json --top 0");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// Samples by row name, over every event.
std::map<std::string, std::uint64_t> samples_by_name(const json& j) {
  std::map<std::string, std::uint64_t> out;
  for (const json& row : j["rows"]) out[row["name"].get<std::string>()] += row["samples"].get<std::uint64_t>();
  return out;
}

bool have_perf() { return !find_in_path("perf").empty(); }

}  // namespace

TEST_CASE("--by data names the objects as perf mem report does, summed by object", "[data]") {
  const std::string file = temp("mem.data");
  write_mem_capture(file, mem_samples());
  const json j = tagop_json(file + " --by data");
  CHECK(j["by"] == "data");
  std::map<std::string, std::uint64_t> tagop = samples_by_name(j);
  // By hand, from the samples written.
  const std::map<std::string, std::uint64_t> expected = {
      {"hot_counters", 14}, {"cold_table", 9}, {"private_buffer", 2}, {"greeting", 1},
      {"[heap]", 3},        {"[stack]", 2},    {"[anon]", 1}};
  CHECK(tagop == expected);

  if (!have_perf()) {
    WARN("perf is not installed: --by data checked against hand counts only");
    return;
  }
  // perf mem report's rows are per address: "hot_counters+0x4", or the
  // address alone where no symbol holds it (in the heap, a stack, anonymous
  // memory: told apart here by the mappings the capture has). Summed by
  // object, per event: samples and percentages.
  const RunResult perf = run_shell("perf mem report --stdio -n --sort symbol_daddr -i " + file);
  INFO(perf.out << perf.err);
  REQUIRE(perf.exit_code == 0);
  struct Share {
    std::uint64_t samples = 0;
    double percent = 0;
  };
  std::map<std::string, std::map<std::string, Share>> perf_rows;  // by event, then object
  const std::regex section(R"(^# Samples: \d+\s+of event '([^']+)')");
  const std::regex row(R"(^\s*([0-9.]+)%\s+(\d+)\s+\[\.\]\s+(\S+))");
  std::istringstream in(perf.out);
  std::string line, event;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, section)) event = m[1];
    if (!std::regex_search(line, m, row)) continue;
    std::string name = m[3];
    if (const auto plus = name.find("+0x"); plus != std::string::npos) {
      name.resize(plus);
    } else {
      const std::uint64_t address = std::stoull(name, nullptr, 16);
      name = address - heap < 0x21000 ? "[heap]" : address - stack < 0x21000 ? "[stack]" : "[anon]";
    }
    Share& share = perf_rows[event][name];
    share.samples += std::stoull(m[2]);
    share.percent += std::stod(m[1]);
  }
  std::map<std::string, std::map<std::string, Share>> tagop_rows;
  for (const json& r : j["rows"])
    for (const auto& [name, e] : r["events"].items()) {
      if (e["samples"].get<std::uint64_t>() == 0) continue;
      tagop_rows[name][r["name"]] = {e["samples"].get<std::uint64_t>(), e["percent"].get<double>()};
    }
  REQUIRE(perf_rows.size() == 2);
  for (const auto& [name, rows] : perf_rows) {
    INFO(name);
    REQUIRE(tagop_rows[name].size() == rows.size());
    for (const auto& [object, share] : rows) {
      INFO(object);
      CHECK(tagop_rows[name][object].samples == share.samples);
      CHECK(tagop_rows[name][object].percent == Approx(share.percent).margin(0.02));
    }
  }
}

TEST_CASE("--by cacheline counts each line's accesses as perf c2c does", "[data]") {
  const std::string file = temp("c2c.data");
  const std::vector<MemSample> samples = mem_samples();
  write_mem_capture(file, samples);
  // By hand: each sample's line, and what its data_src says (the kinds
  // of access this test writes, read by the spec of perf_mem_data_src).
  struct Expected {
    std::uint64_t samples = 0, loads = 0, stores = 0, l1_misses = 0, local_hitm = 0, remote_hitm = 0;
    std::set<unsigned> offsets;
  };
  std::map<std::uint64_t, Expected> lines;
  for (const MemSample& s : samples) {
    Expected& e = lines[s.addr & ~std::uint64_t{63}];
    ++e.samples;
    (s.store ? e.stores : e.loads) += 1;
    e.l1_misses += s.data_src == l2_hit || s.data_src == local_hitm || s.data_src == remote_hitm || s.data_src == store_miss;
    e.local_hitm += s.data_src == local_hitm;
    e.remote_hitm += s.data_src == remote_hitm;
    e.offsets.insert(static_cast<unsigned>(s.addr & 63));
  }
  const json j = tagop_json(file + " --by cacheline");
  CHECK(j["by"] == "cacheline");
  std::map<std::uint64_t, Expected> found;
  for (const json& row : j["rows"]) {
    const json& c = row.at("cache_line");
    const std::uint64_t line = std::stoull(c["address"].get<std::string>(), nullptr, 16);
    const std::string name = row["name"];
    CHECK(name.starts_with(fmt::format("{:#x}  ", line)));
    Expected& e = found[line];
    e.samples += c["samples"].get<std::uint64_t>();
    e.loads += c["loads"].get<std::uint64_t>();
    e.stores += c["stores"].get<std::uint64_t>();
    e.l1_misses += c["l1_misses"].get<std::uint64_t>();
    e.local_hitm += c["local_hitm"].get<std::uint64_t>();
    e.remote_hitm += c["remote_hitm"].get<std::uint64_t>();
    for (const json& o : c["offsets"]) e.offsets.insert(o.get<unsigned>());
    CHECK(row["samples"].get<std::uint64_t>() == c["samples"].get<std::uint64_t>());
    CHECK(c["code_addresses"] == json::array({fmt::format("{:#x}", at("main"))}));
    CHECK(c["functions"] == json::array({"main"}));
  }
  REQUIRE(found.size() == lines.size());
  for (const auto& [line, e] : lines) {
    INFO(fmt::format("line {:#x}", line));
    const Expected& f = found[line];
    CHECK(f.samples == e.samples);
    CHECK(f.loads == e.loads);
    CHECK(f.stores == e.stores);
    CHECK(f.l1_misses == e.l1_misses);
    CHECK(f.local_hitm == e.local_hitm);
    CHECK(f.remote_hitm == e.remote_hitm);
    CHECK(f.offsets == e.offsets);
  }
  if (have_perf()) {
    // perf c2c report's table of the lines with HITMs: each line's counts,
    // and its offsets and code addresses (the Pareto section's rows).
    const RunResult perf = run_shell("perf c2c report --stdio -i " + file);
    INFO(perf.out << perf.err);
    REQUIRE(perf.exit_code == 0);
    const std::regex line_row(
        R"(^\s+\d+\s+(0x[0-9a-f]+)\s+\S+\s+\d+\s+[0-9.]+%\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+(\d+)\s+(\d+)\s)");
    const std::regex pareto_head(R"(^\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+(0x[0-9a-f]+)\s*$)");
    const std::regex pareto_row(R"(%\s+(0x[0-9a-f]+)\s+\S+\s+\d+\s+(0x[0-9a-f]+)\s.*\[\.\] (\S+))");
    std::istringstream in(perf.out);
    std::string text;
    std::uint64_t pareto_line = 0;
    std::size_t lines_seen = 0;
    std::map<std::uint64_t, std::set<unsigned>> perf_offsets;
    while (std::getline(in, text)) {
      std::smatch m;
      if (std::regex_search(text, m, line_row)) {
        const std::uint64_t line = std::stoull(m[1], nullptr, 16);
        INFO(text);
        REQUIRE(found.count(line));
        const Expected& f = found[line];
        ++lines_seen;
        CHECK(f.local_hitm + f.remote_hitm == std::stoull(m[2]));
        CHECK(f.local_hitm == std::stoull(m[3]));
        CHECK(f.remote_hitm == std::stoull(m[4]));
        CHECK(f.samples == std::stoull(m[5]));
        CHECK(f.loads == std::stoull(m[6]));
        CHECK(f.stores == std::stoull(m[7]));
        // L1 misses: the loads but those served by the L1 (perf's FB is
        // a miss here), and the stores that missed it.
        CHECK(f.l1_misses == std::stoull(m[6]) - std::stoull(m[11]) + std::stoull(m[9]));
      } else if (std::regex_search(text, m, pareto_head)) {
        pareto_line = std::stoull(m[1], nullptr, 16);
      } else if (pareto_line && std::regex_search(text, m, pareto_row)) {
        perf_offsets[pareto_line].insert(static_cast<unsigned>(std::stoull(m[1], nullptr, 16)));
        CHECK(std::stoull(m[2], nullptr, 16) == at("main"));
        CHECK(m[3] == "main");  // perf's symbol of the code address, as tagop's functions name it
      }
    }
    // The lines with HITMs, as these samples have them.
    std::size_t shared = 0;
    for (const auto& [line, e] : lines) shared += e.local_hitm + e.remote_hitm > 0;
    CHECK(lines_seen == shared);
    CHECK(perf_offsets.size() == shared);
    // perf's Pareto rows are the offsets with HITMs or stores; tagop's
    // offsets are every one touched: those of perf among them.
    std::map<std::uint64_t, std::set<unsigned>> shared_offsets;
    for (const MemSample& s : samples)
      if (s.store || s.data_src == local_hitm || s.data_src == remote_hitm)
        shared_offsets[s.addr & ~std::uint64_t{63}].insert(static_cast<unsigned>(s.addr & 63));
    for (const auto& [line, offsets] : perf_offsets) {
      CHECK(shared_offsets[line] == offsets);
      for (unsigned o : offsets) CHECK(found[line].offsets.count(o));
    }
  } else {
    WARN("perf is not installed: --by cacheline checked against hand counts only");
  }
  // The line of hot_counters' first bytes is named by the object.
  const std::uint64_t hot_line = at("hot_counters") & ~std::uint64_t{63};
  bool named = false;
  for (const json& row : j["rows"])
    named = named || row["name"] == fmt::format("{:#x}  hot_counters", hot_line);
  CHECK(named);
}

TEST_CASE("--by data on IBS: the array whose loads miss, by IbsDcLinAd where IbsDcLinAddrValid says", "[data]") {
  const std::string file = temp("ibs.data");
  {
    amd_ibs::IbsCaptureWriter w(file, {.family = 0x10, .model = 4, .stepping = 2});
    w.perf().comm(pid, pid, "fixture", true, {.pid = pid, .tid = pid, .time = 1});
    for (const Segment& s : segments())
      w.perf().mmap2(pid, pid, s.start, s.len, s.pgoff, fixture(), {}, {.pid = pid, .tid = pid, .time = 2});
    std::uint64_t time = 10;
    // IbsOpData3: load 0, DC miss 7, linear address valid 17.
    auto op = [&](std::uint64_t data3, std::uint64_t address) {
      amd_ibs::IbsRegisters r;
      r.unit = amd_ibs::IbsUnit::op;
      r.set(amd_ibs::IbsRegister::IbsOpRip, at("main"));
      r.set(amd_ibs::IbsRegister::IbsOpData, 0);
      r.set(amd_ibs::IbsRegister::IbsOpData2, 0);
      r.set(amd_ibs::IbsRegister::IbsOpData3, data3);
      r.set(amd_ibs::IbsRegister::IbsDcLinAd, address);
      r.set(amd_ibs::IbsRegister::IbsDcPhysAd, 0);
      w.sample(r, pid, pid, 0, time++);
    };
    constexpr std::uint64_t load = 1, miss = 1 << 7, valid = 1 << 17;
    for (std::uint64_t i = 0; i < 30; ++i) op(load | miss | valid, at("cold_table", (i * 512) % 32768));
    for (std::uint64_t i = 0; i < 12; ++i) op(load | valid, at("hot_counters", i * 4));
    // A linear address without its valid bit: no data address.
    for (std::uint64_t i = 0; i < 5; ++i) op(load | miss, at("cold_table", 64));
    w.finish();
  }
  // Rows by a derived event's samples: 0xF100 all ops, 0xF206 DC misses.
  auto by_event = [](const json& j, const char* event) {
    std::map<std::string, std::uint64_t> out;
    for (const json& row : j["rows"]) out[row["name"].get<std::string>()] += row["values"][event].get<std::uint64_t>();
    return out;
  };
  const json all = tagop_json(file + " --by data");
  CHECK(by_event(all, "0xF100") ==
        std::map<std::string, std::uint64_t>{{"cold_table", 30}, {"hot_counters", 12}, {"[no data address]", 5}});
  const json misses = tagop_json(file + " --by data --sort 0xF206");
  REQUIRE(!misses["rows"].empty());
  CHECK(misses["rows"][0]["name"] == "cold_table");
  CHECK(by_event(misses, "0xF206") ==
        std::map<std::string, std::uint64_t>{{"cold_table", 30}, {"hot_counters", 0}, {"[no data address]", 5}});
  const json where = tagop_json(file + " --by data --where 'load & dc.miss'");
  CHECK(by_event(where, "0xF100") == std::map<std::string, std::uint64_t>{{"cold_table", 30}, {"[no data address]", 5}});
}

TEST_CASE("--by data and cacheline on hostile data addresses: named, never a crash", "[data]") {
  const std::string file = temp("hostile.data");
  write_mem_capture(file, {{0, l1_hit},
                           {0x1000, l1_hit},                 // in no mapping
                           {0xffffffff81000000ull, l1_hit},  // the kernel's half
                           {0x8000000000000000ull, ~std::uint64_t{0}},  // non-canonical, data_src all ones
                           {~std::uint64_t{0}, 0},
                           {at("hot_counters"), ~std::uint64_t{0}}});
  const json data = tagop_json(file + " --by data");
  CHECK(samples_by_name(data) == std::map<std::string, std::uint64_t>{
                                     {"[no data address]", 1}, {"[unknown]", 2}, {"[kernel]", 2}, {"hot_counters", 1}});
  const json lines = tagop_json(file + " --by cacheline");
  std::uint64_t total = 0;
  for (const json& row : lines["rows"]) total += row["cache_line"]["samples"].get<std::uint64_t>();
  CHECK(total == 6);
  // A damaged file (cut in the middle of its samples) reads as far as it goes.
  const std::uint64_t size = fs::file_size(file);
  fs::resize_file(file, size - 40);
  for (const char* by : {"data", "cacheline"}) {
    const RunResult r = run_tagop(fmt::format("report {} --by {} --json", file, by));
    INFO(r.err);
    CHECK((r.exit_code == 0 || r.exit_code == 1));
    CHECK(r.err.find("AddressSanitizer") == std::string::npos);
  }
}

TEST_CASE("--by data of samples without data addresses: one row, and a warning that says why", "[data]") {
  const std::string file = temp("cpu-clock.data");
  {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.sample_period = 1000;
    a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
    a.sample_id_all = 1;
    perf_data::PerfDataWriter w(file, {{.attr = a, .ids = {1}, .name = "cpu-clock"}});
    w.comm(pid, pid, "fixture", true, {.pid = pid, .tid = pid, .time = 1});
    for (std::uint64_t i = 0; i < 4; ++i)
      w.sample(0, {.ip = at("main"), .pid = pid, .tid = pid, .time = 10 + i, .period = 1000});
    w.finish();
  }
  const json j = tagop_json(file + " --by data");
  CHECK(samples_by_name(j) == std::map<std::string, std::uint64_t>{{"[no data address]", 4}});
  bool said = false;
  for (const json& w : j["warnings"]) said = said || w.get<std::string>().find("carry no data address") != std::string::npos;
  CHECK(said);
}

TEST_CASE("data views refuse keys they cannot go with", "[data]") {
  const std::string file = temp("keys.data");
  write_mem_capture(file, mem_samples());
  perf_data::PerfDataReader reader(file);
  CHECK_THROWS_WITH(report::Report(reader, {.by = report::GroupBy::data, .children = true}),
                    Catch::Contains("--children with data"));
  CHECK_THROWS_WITH(report::parse_group_keys("module,data"), Catch::Contains("module and data together"));
  CHECK_THROWS_WITH(report::parse_group_keys("function,cacheline"),
                    Catch::Contains("function and cacheline together"));
  CHECK(report::parse_group_keys("process,data") == std::vector{report::GroupBy::process, report::GroupBy::data});
  CHECK(report::parse_group_by("cacheline") == report::GroupBy::cacheline);
  CHECK(report::name_of(report::GroupBy::data) == "data");
}
