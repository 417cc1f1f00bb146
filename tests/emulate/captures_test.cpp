// tagop emulate end to end, on a real program with symbols: the IBS
// capture that `tagop report` and perf read, the PEBS capture of the same
// run, the counts of every model, compare --counts on them, the honesty
// mark in every output, and bad requests.

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "../run_command.hpp"

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::string chase() {
  const char* path = std::getenv("TAGOP_EMULATE_POINTER_CHASE");
  if (!path) throw std::runtime_error("TAGOP_EMULATE_POINTER_CHASE is not set: run the tests with 'meson test'");
  return path;
}

bool have(const char* tool) { return run_shell(std::string("command -v ") + tool + " >/dev/null").exit_code == 0; }

// One run of the chase as zen3, goldmont and p4, shared by the tests below.
struct Run {
  fs::path dir = fs::temp_directory_path() / ("tagop-emulate-captures-" + std::to_string(::getpid()));
  fs::path zen3 = dir / "run.zen3.data", goldmont = dir / "run.goldmont.data", counts = dir / "counts.json";
  RunResult result;
  Run() {
    const std::string program = chase();  // throws before anything is made when the tests run outside meson
    fs::create_directories(dir);
    result = run_tagop("emulate --as zen3 --as goldmont --as p4 --period 64 --pebs-period 50 --counts " +
                       counts.string() + " -o " + (dir / "run.data").string() + " -- " + program + " 262144 4000");
  }
  ~Run() { fs::remove_all(dir); }
};

const Run& the_run() {
  static const Run run;
  return run;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

const json& model(const json& counts, const std::string& name) {
  for (const json& m : counts["models"])
    if (m["model"] == name) return m;
  throw std::runtime_error("no model " + name);
}

std::uint64_t event_count(const json& m, const std::string& name) {
  for (const json& e : m["events"])
    if (e["name"] == name) return e["count"].get<std::uint64_t>();
  throw std::runtime_error("no event " + name);
}

}  // namespace

TEST_CASE("emulate writes one capture per sampling model, none for p4", "[emulate]") {
  const Run& r = the_run();
  INFO(r.result.err);
  REQUIRE(r.result.exit_code == 0);
  CHECK(fs::exists(r.zen3));
  CHECK(fs::exists(r.goldmont));
  CHECK_FALSE(fs::exists(r.dir / "run.p4.data"));
  CHECK(r.result.err.find("zen3 (AMD Zen 3") != std::string::npos);
}

TEST_CASE("tagop report gives per-function IBS rows with symbols and says the capture is emulated", "[emulate]") {
  const Run& r = the_run();
  REQUIRE(r.result.exit_code == 0);
  const RunResult j = run_tagop("report " + r.zen3.string() + " --json --top 0");
  REQUIRE(j.exit_code == 0);
  const json report = json::parse(j.out);
  CHECK(report["emulated"].get<std::string>().starts_with("emulated (model: zen3, AMD Zen 3"));
  bool chase_row = false, main_row = false;
  for (const json& row : report["rows"]) {
    chase_row |= row["name"] == "chase";
    main_row |= row["name"] == "main";
  }
  CHECK(chase_row);
  CHECK(main_row);
  // Every format says so.
  const RunResult text = run_tagop("report " + r.zen3.string());
  CHECK(text.out.find("capture: emulated (model: zen3") != std::string::npos);
  const RunResult csv = run_tagop("report " + r.zen3.string() + " --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.substr(0, csv.out.find('\n')).ends_with(",capture"));
  CHECK(csv.out.find("\"emulated (model: zen3") != std::string::npos);
  // The PEBS capture goes through report's plain path: it says so too.
  const RunResult pebs = run_tagop("report " + r.goldmont.string() + " --json");
  REQUIRE(pebs.exit_code == 0);
  CHECK(json::parse(pebs.out)["emulated"].get<std::string>().starts_with("emulated (model: goldmont"));
}

TEST_CASE("perf reads the emulated captures", "[emulate]") {
  if (!have("perf")) {
    WARN("perf is not installed: skipped");
    return;
  }
  const Run& r = the_run();
  REQUIRE(r.result.exit_code == 0);
  const json counts = read_json(r.counts);
  const json& zen3 = model(counts, "zen3");
  const std::uint64_t ibs = zen3["samples"]["ibs_op"].get<std::uint64_t>() + zen3["samples"]["ibs_fetch"].get<std::uint64_t>();
  REQUIRE(ibs > 100);
  // perf report -D: every sample, as many as emulate wrote.
  const RunResult dump = run_shell("perf report -D -i " + r.zen3.string() + " | grep -c 'PERF_RECORD_SAMPLE('");
  CHECK(std::stoull(dump.out) == ibs);
  const RunResult header = run_shell("perf report --header-only -i " + r.zen3.string());
  CHECK(header.out.find("cmdline : tagop emulate --as zen3 -- ") != std::string::npos);
  // PEBS: perf names each sample's event and symbol; the Goldmont record's data address is there.
  const json& glm = model(counts, "goldmont");
  const RunResult script = run_shell("perf script -F event,ip,sym,addr -i " + r.goldmont.string() + " 2>/dev/null");
  REQUIRE(script.exit_code == 0);
  std::size_t misses = 0, in_chase = 0;
  std::istringstream lines(script.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("emulated-goldmont/MEM_LOAD_UOPS_RETIRED.L1_MISS/pp") == std::string::npos) continue;
    ++misses;
    in_chase += line.find("chase") != std::string::npos;
  }
  // One sample each time the event's count reaches the period (50).
  CHECK(misses == event_count(glm, "MEM_LOAD_UOPS_RETIRED.L1_MISS") / 50);
  // The chase's 4000 loads visit 4000 distinct lines of 4096, one after the
  // other: 4000 consecutive L1 misses hold exactly 4000 / 50 sample points.
  CHECK(in_chase == 80);
}

TEST_CASE("every model counts the same loads of the same trace; the caches differ", "[emulate]") {
  const Run& r = the_run();
  REQUIRE(r.result.exit_code == 0);
  const json counts = read_json(r.counts);
  CHECK(counts["emulated"] == true);
  const json &zen3 = model(counts, "zen3"), &glm = model(counts, "goldmont"), &p4 = model(counts, "p4");
  CHECK(zen3["ops"] == glm["ops"]);
  // One op per instruction Valgrind ran, but for the iterations of REP
  // MOVS/STOS (the vector's memset), which run as fewer fast-string chunks
  // (counted by hand in emulate/hardware_reports); --exact-cachegrind
  // keeps one op per iteration, as Valgrind and Cachegrind count them.
  CHECK(zen3["ops"] <= counts["instructions"]);
  {
    const fs::path exact = r.dir / "exact.json";
    const RunResult e = run_tagop("emulate --as zen3 --exact-cachegrind -o /dev/null --counts " + exact.string() +
                                  " -- " + chase() + " 262144 4000");
    REQUIRE(e.exit_code == 0);
    const json exact_counts = read_json(exact);
    CHECK(model(exact_counts, "zen3")["ops"] == exact_counts["instructions"]);
    // Without the instructions that Valgrind's default translation traces
    // though they did not run (a short conditional jump merged into a
    // select): --exact-cachegrind runs Valgrind with --vex-guest-chase=no.
    CHECK(exact_counts["instructions"] <= counts["instructions"]);
  }
  // One op sample every 64 ops on average (intervals of 56 to 71): samples x period estimates the ops.
  const double ops = zen3["ops"].get<double>();
  CHECK(std::abs(zen3["samples"]["ibs_op"].get<double>() * 64 - ops) < 0.02 * ops);
  // "load" in three vendors' words: IBS load ops, Goldmont's retired loads, P4's tagged memory loads.
  const std::uint64_t loads = event_count(zen3, "IBS load ops");
  CHECK(loads == event_count(glm, "MEM_UOPS_RETIRED.ALL_LOADS"));
  CHECK(loads == event_count(p4, "memory_loads"));
  // Load misses: 256 KiB is more than every L1, less than every L2 modelled, so
  // the chase's 4000 loads miss the L1 and hit the L2 in each model.
  CHECK(event_count(glm, "MEM_LOAD_UOPS_RETIRED.L1_MISS") >= 4000);
  CHECK(event_count(p4, "1stL_cache_load_miss_retired") >= 4000);
  // Valgrind's own count of the instructions (lackey without the trace) is
  // the peer: it also counts the rest of the superblock that the exit
  // system call leaves unexecuted, a few dozen instructions. Run as tagop
  // runs Valgrind, from a VALGRIND_LIB folder of the same name length
  // (the dynamic linker's start-up work depends on the environment and on
  // LD_PRELOAD, Valgrind's core preload from that folder).
  const RunResult peer = run_shell(
      "{ d=$(mktemp -d \"${TMPDIR:-/tmp}/tagop-valgrind-XXXXXX\") && ln -s /usr/libexec/valgrind/* \"$d\"/ && "
      "VALGRIND_LIB=\"$d\" valgrind --tool=lackey " + chase() + " 262144 4000 >/dev/null; s=$?; rm -rf \"$d\"; (exit $s); }");
  std::smatch m;
  REQUIRE(std::regex_search(peer.err, m, std::regex("guest instrs:\\s+([0-9,]+)")));
  std::string digits = m[1];
  std::erase(digits, ',');
  const std::uint64_t lackey = std::stoull(digits);
  const std::uint64_t ours = counts["instructions"].get<std::uint64_t>();
  CHECK(ours <= lackey);
  CHECK(lackey - ours < 100);
}

TEST_CASE("compare --counts puts one program's numbers beside each vendor's event", "[emulate]") {
  const Run& r = the_run();
  REQUIRE(r.result.exit_code == 0);
  const RunResult j = run_tagop("compare 'load & dc.miss' --counts " + r.counts.string() + " --json");
  INFO(j.err);
  REQUIRE(j.exit_code == 0);
  const json measured = json::parse(j.out)["measured"];
  const json counts = read_json(r.counts);
  REQUIRE(measured["models"].size() == 3);
  for (const json& m : measured["models"]) {
    INFO(m["model"]);
    // The target's count from the signatures equals the count of the vendor's event that says the same.
    // Pentium 4 has none: 1stL_cache_load_miss_retired leaves out UC and locked loads, which replay
    // tagging cannot tag (SDM 18.15.6.3), so it is narrower than 'load & dc.miss'.
    if (m["model"] == "p4") CHECK(m["same_events"].empty());
    else REQUIRE(!m["same_events"].empty());
    for (const json& e : m["same_events"]) CHECK(e["count"] == m["count"]);
  }
  CHECK(measured["models"][1]["count"].get<std::uint64_t>() ==
        event_count(model(counts, "goldmont"), "MEM_LOAD_UOPS_RETIRED.L1_MISS"));
  const RunResult text = run_tagop("compare 'load & dc.miss' --counts " + r.counts.string());
  CHECK(text.out.find("zen3 (amd-ibs):") != std::string::npos);
  CHECK(text.out.find("goldmont (goldmont):") != std::string::npos);
  const RunResult unmodelled = run_tagop("compare 'load & stlf.forwarded' --counts " + r.counts.string());
  CHECK(unmodelled.out.find("not modelled") != std::string::npos);
}

TEST_CASE("emulate refuses bad requests with the reason", "[emulate]") {
  const RunResult model = run_tagop("emulate --as k8 -- true");
  CHECK(model.exit_code == 2);
  CHECK(model.err.find("zen3, zen4, fam10h, goldmont, silvermont, p4") != std::string::npos);
  // A period IBS cannot count is bad usage, as a malformed one is.
  const RunResult period = run_tagop("emulate --period 100 -o /dev/null -- true");
  CHECK(period.exit_code == 2);
  CHECK(period.err.find("multiple of 16") != std::string::npos);
  const RunResult big = run_tagop("emulate --as fam10h --period 0x200000 -o /dev/null -- true");
  CHECK(big.exit_code == 2);
  CHECK(big.err.find("MaxCnt") != std::string::npos);
  const RunResult pebs = run_tagop("emulate --as goldmont --pebs-event LD_BLOCKS.STORE_FORWARD -o /dev/null -- true");
  CHECK(pebs.exit_code == 1);
  CHECK(pebs.err.find("stlf.blocked") != std::string::npos);
  const RunResult missing = run_tagop("emulate -o /dev/null -- /nonexistent/program");
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("no instruction") != std::string::npos);
  // A failed run removes the captures it wrote, never a device it was told to write to.
  CHECK(std::filesystem::is_character_file("/dev/null"));
  const RunResult no_valgrind = run_tagop("emulate --valgrind /nonexistent/valgrind -o /dev/null -- true");
  CHECK(no_valgrind.exit_code == 1);
  CHECK(no_valgrind.err.find("cannot run /nonexistent/valgrind") != std::string::npos);
  const RunResult counts = run_tagop("compare 'load' --counts /nonexistent.json");
  CHECK(counts.exit_code == 1);
  CHECK(counts.err.find("/nonexistent.json") != std::string::npos);
}
