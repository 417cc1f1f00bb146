// `tagop report`'s exports against their peers, on the bundled IBS example
// and on a capture real `perf record -g` writes here: go tool pprof's
// numbers are the report's (its --json, the same capture), pprof merges two
// profiles into their sums, folded stacks total the report's totals, the
// page renders in headless Chromium, and JSON lines validate against their
// schema, one per sample kept.

#include <catch2/catch.hpp>

#include <algorithm>   // std::sort
#include <cmath>       // std::llround
#include <cstdlib>     // std::getenv
#include <filesystem>  // files
#include <fstream>     // reading exports
#include <map>         // rows by name
#include <sstream>     // lines
#include <vector>      // perf script's samples

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <tagop/error.hpp>             // Error
#include <tagop/perf_data_reader.hpp>  // PerfDataReader
#include <tagop/perf_data_writer.hpp>  // PerfDataWriter
#include <tagop/report/export.hpp>     // the library's exports

#include "peer_tools.hpp"

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
using peers::quote;

std::string example() { return source_path("examples/ibs-example.perf.data"); }
std::string in_scratch(const std::string& name) { return (peers::scratch() / name).string(); }

json report_json(const std::string& args) {
  const RunResult r = run_tagop("report " + args + " --json --top 0");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

void tagop_ok(const std::string& args) {
  const RunResult r = run_tagop(args);
  INFO("tagop " << args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
}

peers::Top pprof_top(const std::string& file, const std::string& sample_index, const std::string& more = "") {
  const RunResult r = peers::pprof("-top -nodecount=100000 -nodefraction=0 -edgefraction=0 " + more + " -sample_index=" +
                                   sample_index + " " + quote(file));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return peers::parse_top(r.out);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The folded file's total, and each stack's.
std::map<std::string, std::int64_t> folded_stacks(const std::string& text, std::int64_t& total) {
  std::map<std::string, std::int64_t> out;
  total = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::size_t space = line.rfind(' ');
    REQUIRE(space != std::string::npos);
    const std::int64_t n = std::stoll(line.substr(space + 1));
    out[line.substr(0, space)] += n;
    total += n;
  }
  return out;
}

// Records the call-graph fixture with perf record -g (cpu-clock), or ""
// when perf may not sample here.
std::string perf_capture() {
  static const std::string file = [] {
    const char* fixture = std::getenv("TAGOP_CALLCHAIN_FIXTURE");
    REQUIRE(fixture);
    const std::string path = in_scratch("perf-g.data");
    const RunResult rec =
        run_shell("perf record -q -g -e cpu-clock -c 100000 -o " + quote(path) + " -- " + quote(fixture) + " 300");
    return rec.exit_code == 0 ? path : std::string();
  }();
  return file;
}

bool skip_without_go() {
  if (peers::have_go()) return false;
  WARN("SKIPPED: go is not installed (Debian's golang-go has `go tool pprof`), the profile was not read by pprof");
  return true;
}

}  // namespace

TEST_CASE("IBS example: go tool pprof's numbers are the report's, per row and in total", "[export][pprof]") {
  if (skip_without_go()) return;
  const std::string prof = in_scratch("example.pb.gz");
  tagop_ok("report " + quote(example()) + " --events 0xF206,0xF219,dc_miss_rate,0xF000 --format pprof -o " +
           quote(prof));
  const json j = report_json(quote(example()) + " --events 0xF206,0xF219,0xF000");
  const double op_period = j["period"]["op"]["value"], fetch_period = j["period"]["fetch"]["value"];
  REQUIRE(op_period > 0);
  REQUIRE(fetch_period > 0);
  // Sample types: the three derived events in column order (the ratio
  // makes none); values are samples x their unit's period (0xF000 counts
  // fetches), latencies are summed cycles x the op period.
  struct Expect {
    std::string index, id;
    double period;
  };
  for (const Expect& e : {Expect{"ibs_dc_miss", "0xF206", op_period}, Expect{"ibs_dc_miss_load_latency", "0xF219", op_period},
                          Expect{"ibs_fetch_samples", "0xF000", fetch_period}}) {
    INFO(e.index);
    const peers::Top top = pprof_top(prof, e.index);
    std::int64_t total = 0;
    std::size_t compared = 0;
    for (const json& row : j["rows"]) {
      if (row["values"][e.id].is_null()) continue;
      const auto expected = std::llround(row["values"][e.id].get<double>() * e.period);
      total += expected;
      if (expected == 0) continue;
      const std::string name = row["name"];
      REQUIRE(top.rows.count(name));
      CHECK(top.rows.at(name).flat == expected);
      ++compared;
    }
    CHECK(compared >= 2);
    CHECK(top.total == total);
    // The report's own total, in its units: events x period.
    CHECK(static_cast<double>(top.total) == Approx(j["events"][e.id].get<double>() * e.period).epsilon(1e-9));
  }
}

TEST_CASE("--where is a sample type of its own: the predicate's ops, x the op period", "[export][pprof]") {
  if (skip_without_go()) return;
  const std::string where = "load & dc.miss";
  const std::string prof = in_scratch("where.pb.gz");
  tagop_ok("report " + quote(example()) + " --where " + quote(where) + " --events 0xF219 --format pprof -o " +
           quote(prof));
  const json j = report_json(quote(example()) + " --where " + quote(where) + " --events 0xF219");
  REQUIRE(j["samples"]["fetch"] == 0);
  const std::uint64_t ops = j["samples"]["op"];
  REQUIRE(ops > 0);
  const double period = j["period"]["op"]["value"];
  CHECK(pprof_top(prof, "where").total == std::llround(static_cast<double>(ops) * period));
  CHECK(pprof_top(prof, "ibs_dc_miss_load_latency").total == std::llround(j["events"]["0xF219"].get<double>() * period));
  const RunResult raw = peers::pprof("-raw " + quote(prof));
  CHECK(raw.out.find("where: " + where) != std::string::npos);  // the comment names the predicate
}

TEST_CASE("pprof -proto merges two machines' profiles into their sums", "[export][pprof]") {
  if (skip_without_go()) return;
  // "Two machines": the example's samples split by CPU, each exported apart.
  const json all = report_json(quote(example()) + " --events 0xF206");
  const json cpu0 = report_json(quote(example()) + " --events 0xF206 --cpu 0");
  REQUIRE(cpu0["events"]["0xF206"].get<std::uint64_t>() > 0);
  REQUIRE(cpu0["events"]["0xF206"] != all["events"]["0xF206"]);
  const std::string a = in_scratch("cpu0.pb.gz"), b = in_scratch("rest.pb.gz"), merged = in_scratch("merged.pb.gz");
  tagop_ok("report " + quote(example()) + " --events 0xF206 --cpu 0 --format pprof -o " + quote(a));
  std::string others;
  for (int cpu = 1; cpu < 64; ++cpu) others += (others.empty() ? "" : ",") + std::to_string(cpu);
  tagop_ok("report " + quote(example()) + " --events 0xF206 --cpu " + others + " --format pprof -o " + quote(b));
  const RunResult m = peers::pprof("-proto " + quote(a) + " " + quote(b) + " > " + quote(merged));
  INFO(m.err);
  REQUIRE(m.exit_code == 0);
  const double period = all["period"]["op"]["value"];
  const peers::Top top = pprof_top(merged, "ibs_dc_miss");
  CHECK(top.total == pprof_top(a, "ibs_dc_miss").total + pprof_top(b, "ibs_dc_miss").total);
  CHECK(top.total == std::llround(all["events"]["0xF206"].get<double>() * period));
}

TEST_CASE("IBS example: folded stacks total the report's estimate of the sort event", "[export][folded]") {
  const RunResult r = run_tagop("report " + quote(example()) + " --format folded --sort 0xF206");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = report_json(quote(example()) + " --events 0xF206");
  std::int64_t total = 0;
  const auto stacks = folded_stacks(r.out, total);
  const double period = j["period"]["op"]["value"];
  CHECK(total == std::llround(j["events"]["0xF206"].get<double>() * period));
  for (const json& row : j["rows"]) {
    const auto expected = std::llround(row["values"]["0xF206"].get<double>() * period);
    if (expected) CHECK(stacks.at(row["name"]) == expected);
  }
  // A ratio has no stacks.
  const RunResult ratio = run_tagop("report " + quote(example()) + " --format folded --sort dc_miss_rate");
  CHECK(ratio.exit_code != 0);
  CHECK(ratio.err.find("--sort dc_miss_rate is not an event") != std::string::npos);
}

TEST_CASE("perf record -g: pprof and folded stacks have the report's numbers, with call chains", "[export][perf]") {
  const std::string capture = perf_capture();
  if (capture.empty()) {
    WARN("SKIPPED: perf record cannot sample cpu-clock here");
    return;
  }
  const json by_function = report_json(quote(capture) + " --by function");
  const json by_chain = report_json(quote(capture) + " --by callchain");
  REQUIRE(by_chain["callchains"] == true);
  const std::uint64_t samples = by_function["event_totals"]["cpu-clock"]["samples"];
  const std::uint64_t periods = by_function["event_totals"]["cpu-clock"]["period"];
  REQUIRE(samples > 100);

  // Folded: the chains of the report by call chain, root first.
  const std::string folded = in_scratch("perf.folded");
  tagop_ok("report " + quote(capture) + " --format folded -o " + quote(folded));
  std::int64_t total = 0;
  const auto stacks = folded_stacks(slurp(folded), total);
  CHECK(static_cast<std::uint64_t>(total) == periods);
  std::map<std::string, std::int64_t> chains;  // two chains may have the same names
  for (const json& row : by_chain["rows"]) chains[row["name"]] += row["events"]["cpu-clock"]["period"].get<std::int64_t>();
  CHECK(stacks == chains);
  bool deep = false;  // the fixture's main calls into its workers
  for (const auto& [stack, n] : stacks) deep |= stack.find("main;") != std::string::npos;
  CHECK(deep);

  if (skip_without_go()) return;
  const std::string prof = in_scratch("perf.pb.gz");
  tagop_ok("report " + quote(capture) + " --format pprof -o " + quote(prof));
  // Flat is the leaf function's own samples: the report by function. pprof
  // -top adds up functions of one name in several modules (memcpy in libc
  // and in a sanitizer's runtime), which the report keeps apart.
  const peers::Top top = pprof_top(prof, "cpu-clock_samples");
  CHECK(static_cast<std::uint64_t>(top.total) == samples);
  std::map<std::string, std::int64_t> by_name;
  for (const json& row : by_function["rows"])
    by_name[row["name"]] += row["events"]["cpu-clock"]["samples"].get<std::int64_t>();
  for (const auto& [name, n] : by_name) {
    INFO(name);
    REQUIRE(top.rows.count(name));
    CHECK(top.rows.at(name).flat == n);
  }
  // main is on the stack of every chain that holds it: its cum is theirs.
  std::int64_t under_main = 0;
  for (const json& row : by_chain["rows"]) {
    const std::string chain = ";" + row["name"].get<std::string>() + ";";
    if (chain.find(";main;") != std::string::npos) under_main += row["events"]["cpu-clock"]["samples"].get<std::int64_t>();
  }
  REQUIRE(top.rows.count("main"));
  CHECK(under_main > 0);
  CHECK(top.rows.at("main").cum == under_main);
  const RunResult traces = peers::pprof("-traces -sample_index=cpu-clock_samples " + quote(prof));
  CHECK(traces.out.find("main") != std::string::npos);
}

TEST_CASE("pprof: samples per process, labelled pid and comm, with the report's numbers by process", "[export][pprof]") {
  // Three processes: sh, and two children that exec tagop_busy (a pid
  // with two comms: sh until its exec).
  const char* busy = std::getenv("TAGOP_BUSY");
  REQUIRE(busy);
  const std::string capture = in_scratch("processes.data");
  const RunResult rec = run_shell("perf record -q -e cpu-clock -c 100000 -o " + quote(capture) + " -- sh -c " +
                                  quote(std::string(busy) + " 150 & " + busy + " 250; wait"));
  if (rec.exit_code != 0) {
    WARN("SKIPPED: perf record cannot sample cpu-clock here: " << rec.err);
    return;
  }
  if (skip_without_go()) return;
  // The report's samples by (pid, comm).
  std::map<std::uint32_t, std::map<std::string, std::int64_t>> expected;
  const json by_process = report_json(quote(capture) + " --by process");
  for (const json& row : by_process["rows"]) {
    const std::string name = row["name"];  // "comm [pid]"
    expected[row["pid"].get<std::uint32_t>()][name.substr(0, name.rfind(" ["))] +=
        row["events"]["cpu-clock"]["samples"].get<std::int64_t>();
  }
  std::size_t busy_pids = 0;
  for (const auto& [pid, comms] : expected) busy_pids += comms.count("tagop_busy");
  // Two, and under LeakSanitizer one more each: its tracer at exit is a
  // clone (a new pid) that keeps the comm.
  REQUIRE(busy_pids >= 2);

  const std::string prof = in_scratch("processes.pb.gz");
  tagop_ok("report " + quote(capture) + " --format pprof -o " + quote(prof));
  for (const auto& [pid, comms] : expected) {
    // pprof's -tags of one pid's samples: their comm labels' totals.
    const RunResult tags =
        peers::pprof(fmt::format("-tags -sample_index=cpu-clock_samples -tagfocus=pid={} {}", pid, quote(prof)));
    REQUIRE(tags.exit_code == 0);
    std::map<std::string, std::int64_t> seen;
    static const std::regex section(R"(^ (\w+): Total .*$)"), tag_row(R"(^\s+([\d.]+) \(\s*[\d.]+%\): (.+)$)");
    std::istringstream in(tags.out);
    std::string label;
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_match(line, m, section)) label = m[1];
      else if (label == "comm" && std::regex_match(line, m, tag_row)) seen[m[2]] += std::llround(std::stod(m[1]));
    }
    INFO("pid " << pid << "\n" << tags.out);
    CHECK(seen == comms);
  }
}

TEST_CASE("pprof --by line (no call chains): locations with file and line, the report's numbers by line",
          "[export][pprof]") {
  const char* busy = std::getenv("TAGOP_BUSY");
  REQUIRE(busy);
  const std::string capture = in_scratch("lines.data");
  const RunResult rec = run_shell("perf record -q -e cpu-clock -c 100000 -o " + quote(capture) + " -- " + quote(busy) + " 200");
  if (rec.exit_code != 0) {
    WARN("SKIPPED: perf record cannot sample cpu-clock here: " << rec.err);
    return;
  }
  if (skip_without_go()) return;
  const std::string prof = in_scratch("lines.pb.gz");
  tagop_ok("report " + quote(capture) + " --by line --format pprof -o " + quote(prof));
  // pprof -lines names a location "function file:line"; tagop's line rows
  // have no function, so both are the row's "file:line".
  const peers::Top top = pprof_top(prof, "cpu-clock_samples", "-lines");
  const json by_line = report_json(quote(capture) + " --by line");
  std::size_t source_lines = 0;
  for (const json& row : by_line["rows"]) {
    const std::string name = row["name"];
    if (name.find("tagop_busy.cpp:") == std::string::npos) continue;
    ++source_lines;
    INFO(name);
    REQUIRE(top.rows.count(name + " " + name));
    CHECK(top.rows.at(name + " " + name).flat == row["events"]["cpu-clock"]["samples"].get<std::int64_t>());
  }
  CHECK(source_lines > 0);  // the spin loop's lines, from the fixture's DWARF
}

TEST_CASE("jsonl of a capture without IBS: perf script's samples, one line each, valid by event-line's schema",
          "[export][jsonl]") {
  if (run_shell(peers::python3() + " -c 'import jsonschema'").exit_code != 0)
    FAIL(peers::python3() + " has no jsonschema: install python3-jsonschema (scripts/install-deps.sh does)");
  const std::string capture = perf_capture();
  if (capture.empty()) {
    WARN("SKIPPED: perf record cannot sample cpu-clock here");
    return;
  }
  const std::string lines = in_scratch("events.jsonl");
  tagop_ok("report " + quote(capture) + " --format jsonl -o " + quote(lines));
  const json j = report_json(quote(capture));
  const RunResult v = peers::validate_lines("lib/profiles/schemas/event-line.schema.json", lines);
  INFO(v.err);
  CHECK(v.out == fmt::format("valid {}\n", j["event_totals"]["cpu-clock"]["samples"].get<std::uint64_t>()));
  // perf script's pid/tid, address and period (perf record -c: the attr's
  // period) of every sample, the same as the lines', as multisets: perf
  // script orders samples by time across the CPUs' buffers, the lines
  // follow the file. No cpu (recorded without -a).
  const RunResult script = run_shell("perf script -G -i " + quote(capture) + " -F pid,tid,ip,period 2>/dev/null");
  REQUIRE(script.exit_code == 0);
  std::vector<std::string> theirs_sorted, ours_sorted;
  std::istringstream theirs(script.out), ours(slurp(lines));
  for (std::string their_line; std::getline(theirs, their_line);) {
    std::istringstream fields(their_line);
    std::string pid_tid, ip;
    std::uint64_t period = 0;
    if (fields >> pid_tid >> period >> ip) theirs_sorted.push_back(fmt::format("{} 0x{} {}", pid_tid, ip, period));
  }
  std::uint64_t period_sum = 0, compared = 0;
  std::map<std::string, std::int64_t> by_symbol;
  for (std::string our_line; std::getline(ours, our_line);) {
    const json line = json::parse(our_line);
    INFO(our_line);
    CHECK(line["cpu"].is_null());
    CHECK(line["event"] == "cpu-clock");
    ours_sorted.push_back(fmt::format("{}/{} {} {}", line["pid"].get<std::uint32_t>(), line["tid"].get<std::uint32_t>(),
                                      line["ip"].get<std::string>(), line["period"].get<std::uint64_t>()));
    period_sum += line["period"].get<std::uint64_t>();
    ++compared;
    if (line["symbol"].is_string()) ++by_symbol[line["symbol"]];
  }
  std::sort(theirs_sorted.begin(), theirs_sorted.end());
  std::sort(ours_sorted.begin(), ours_sorted.end());
  CHECK(ours_sorted == theirs_sorted);
  CHECK(compared == j["event_totals"]["cpu-clock"]["samples"].get<std::uint64_t>());
  CHECK(period_sum == j["event_totals"]["cpu-clock"]["period"].get<std::uint64_t>());
  // The report's top function has as many lines as samples.
  const json top = report_json(quote(capture) + " --by function")["rows"][0];
  CHECK(by_symbol[top["name"].get<std::string>()] == top["events"]["cpu-clock"]["samples"].get<std::int64_t>());
}

TEST_CASE("--html renders in headless Chromium without console errors", "[export][html]") {
  if (!peers::have_chromium()) {
    WARN("SKIPPED: chromium is not installed (scripts/install-deps.sh installs it), the page was not rendered");
    return;
  }
  std::vector<std::string> captures{example()};
  if (!perf_capture().empty()) captures.push_back(perf_capture());
  for (std::size_t i = 0; i < captures.size(); ++i) {
    const std::string page = in_scratch("report-" + std::to_string(i) + ".html");
    const RunResult r = run_tagop("report " + quote(captures[i]) + " --top 30 --html " + quote(page));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find(captures[i]) != std::string::npos);  // the table is printed too
    const std::string text = slurp(page);
    CHECK(text.find("http://") == std::string::npos);
    CHECK(text.find("https://") == std::string::npos);
    const RunResult dom = peers::chromium("--dump-dom " + quote("file://" + page));
    INFO("chromium's log:\n" << dom.err);
    REQUIRE(dom.exit_code == 0);
    CHECK(peers::body_attribute(dom.out, "data-selfcheck") == "ok");
    CHECK(peers::body_attribute(dom.out, "data-errors") == "(missing)");
    CHECK(peers::console_problems(dom.err).empty());
    CHECK(std::stoi(peers::body_attribute(dom.out, "data-frames")) >= 3);
  }
  const char* dir = std::getenv("TAGOP_SCREENSHOT_DIR");
  const std::string shot = (dir ? std::string(dir) : peers::scratch().string()) + "/report-html-example.png";
  fs::remove(shot);
  const RunResult s = peers::chromium("--hide-scrollbars --window-size=1400,1000 --screenshot=" + quote(shot) + " " +
                                      quote("file://" + in_scratch("report-0.html")));
  CHECK(s.exit_code == 0);
  CHECK(fs::exists(shot));
}

TEST_CASE("--html: the flame graph's report read beside the table's gives the page read one after the other",
          "[export][html]") {
  std::vector<std::string> captures{example()};
  if (!perf_capture().empty()) captures.push_back(perf_capture());
  for (const std::string& capture : captures) {
    INFO(capture);
    const auto page_with = [&](const char* threads) {
      const std::string page = in_scratch(std::string("threads-") + threads + ".html");
      const RunResult r = run_tagop("report " + quote(capture) + " --html " + quote(page) + " --threads " + threads);
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      return std::make_pair(r.out, slurp(page));
    };
    const auto one = page_with("1");
    CHECK(one.second.find("\"flame\":{") != std::string::npos);  // the page has its flame graph
    CHECK(page_with("2") == one);  // 2: the stacks' report on a thread of its own
  }
}

TEST_CASE("jsonl: one line per sample kept, each valid by the schema", "[export][jsonl]") {
  if (run_shell(peers::python3() + " -c 'import jsonschema'").exit_code != 0)
    FAIL(peers::python3() + " has no jsonschema: install python3-jsonschema (scripts/install-deps.sh does)");
  for (const std::string& where : {std::string(), std::string("load & dc.miss")}) {
    const std::string filter = where.empty() ? "" : " --where " + quote(where);
    const std::string lines = in_scratch("samples.jsonl");
    tagop_ok("report " + quote(example()) + filter + " --format jsonl -o " + quote(lines));
    const json j = report_json(quote(example()) + filter);
    const std::uint64_t kept = j["samples"]["fetch"].get<std::uint64_t>() + j["samples"]["op"].get<std::uint64_t>();
    const RunResult v = peers::validate_lines("lib/profiles/schemas/sample-line.schema.json", lines);
    INFO(where << "\n" << v.err);
    CHECK(v.exit_code == 0);
    CHECK(v.out == fmt::format("valid {}\n", kept));
  }
  // Streamed to stdout: the same bytes as the file.
  const std::string lines = in_scratch("all.jsonl");
  tagop_ok("report " + quote(example()) + " --format jsonl -o " + quote(lines));
  const RunResult out = run_tagop("report " + quote(example()) + " --format jsonl");
  REQUIRE(out.exit_code == 0);
  CHECK(out.out == slurp(lines));
}

TEST_CASE("jsonl: a line of the bundled example, every byte from its model (examples/ibs_example_model.hpp)",
          "[export][jsonl]") {
  // The model's only kind with a 560-cycle miss: pointer_chase's load at
  // file offset 0x1304 that misses the DC and the L1 DTLB (not the L2),
  // served by remote DRAM (NbIbsReqSrc 3, NbIbsReqDstProc 1), TagToRet 700,
  // CompToRet 5. Sample n is written at time 2000 + 1000 n, by thread
  // 4242 + n % 2 on CPU n / 7 % 4, its data at 0x7fffe0000000 + 64 n
  // (physical 0x100000000 + 64 n); the program is mapped at 0x555555555000
  // from file offset 0x1000, so 0x1304 is at 0x555555555304. The module's
  // file is not on this machine: no symbol.
  const RunResult r = run_tagop("report " + quote(example()) + " --format jsonl");
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line))
    if (line.find("\"dc.miss_latency\":560}") != std::string::npos) break;
  REQUIRE(!line.empty());
  const std::uint64_t time = json::parse(line)["time"].get<std::uint64_t>();
  REQUIRE(time >= 2000);
  REQUIRE((time - 2000) % 1000 == 0);
  const std::uint64_t n = (time - 2000) / 1000;
  CHECK(line == fmt::format(R"({{"kind":"op","time":{},"pid":4242,"tid":{},"cpu":{},"ip":"0x555555555304",)"
                            R"("ip_exact":true,"ip_physical":null,"data_linear":"{:#x}","data_physical":"{:#x}",)"
                            R"("branch_target":null,"conditions":["op","load","dc.lin_addr_valid",)"
                            R"("dc.phys_addr_valid","dtlb.l1_miss","dc.miss","nb.valid","src.dram","src.remote"],)"
                            R"("unknown":[],"measures":{{"op.tag_to_retire":700,"op.comp_to_retire":5,)"
                            R"("dc.miss_latency":560}},"symbol":null,"module":"/opt/ibs-example/bin/ibs-example"}})",
                            time, 4242 + n % 2, n / 7 % 4, 0x7fffe0000000 + 64 * n, 0x100000000 + 64 * n));
}

TEST_CASE("-o: a bad path is a clear error and an old file is not clobbered", "[export][output]") {
  const std::string dir = in_scratch("a-directory");
  fs::create_directories(dir);
  RunResult r = run_tagop("report " + quote(example()) + " --format pprof -o " + quote(dir));
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("a directory") != std::string::npos);
  r = run_tagop("report " + quote(example()) + " --format folded -o /dev/null");
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("a device") != std::string::npos);
  r = run_tagop("report " + quote(example()) + " --format folded -o " + quote(in_scratch("no/such/dir/x.folded")));
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("does not exist") != std::string::npos);
  // A failed export leaves the old file whole, and no temporary beside it.
  const std::string old = in_scratch("old.folded");
  std::ofstream(old) << "old contents\n";
  r = run_tagop("report " + quote(example()) + " --format folded --sort dc_miss_rate -o " + quote(old));
  CHECK(r.exit_code != 0);
  CHECK(slurp(old) == "old contents\n");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(peers::scratch())) ++files;
  tagop_ok("report " + quote(example()) + " --format folded -o " + quote(old));
  std::size_t after = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(peers::scratch())) ++after;
  CHECK(after == files);
  CHECK(slurp(old) != "old contents\n");
  // -o is for exports.
  r = run_tagop("report " + quote(example()) + " -o " + quote(in_scratch("x.txt")));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--format pprof, folded or jsonl") != std::string::npos);
}

TEST_CASE("a large capture's progress bar shows on a terminal only", "[export][progress]") {
  if (run_shell("command -v script > /dev/null").exit_code != 0) {
    WARN("SKIPPED: script(1) is not installed (Debian: bsdutils), no terminal to test the bar on");
    return;
  }
  // 200 k samples: past the 16 MiB of data that earn a bar.
  const std::string capture = in_scratch("large.data");
  REQUIRE(run_shell(std::string(std::getenv("MAKE_IBS_EXAMPLE")) + " " + quote(capture) + " --samples 200000").exit_code == 0);
  REQUIRE(fs::file_size(capture) > (16u << 20));
  const std::string args = "report " + quote(capture) + " --format jsonl -o " + quote(in_scratch("large.jsonl"));
  const RunResult piped = run_tagop(args);
  REQUIRE(piped.exit_code == 0);
  CHECK(piped.err.empty());
  // On a terminal (script's pty): the rate and the time left, then erased.
  const RunResult tty = run_shell("script -qec " + quote("stty cols 120; " + tagop_exe() + " " + args) + " /dev/null");
  INFO(tty.out);
  CHECK(tty.exit_code == 0);
  CHECK(tty.out.find("bytes/s") != std::string::npos);
  CHECK(tty.out.find(" left") != std::string::npos);
  CHECK(tty.out.find("report large.data ") != std::string::npos);
}

TEST_CASE("the library's pprof export: the command's bytes, whole or not at all", "[export][library]") {
  // As examples/tool-writers/export_pprof.cpp calls it: a report by
  // stacks_by(), per process, the overview's events, sorted by the first.
  namespace report = tagop::report;
  const std::string file = example();
  tagop::perf_data::PerfDataReader reader(file);
  const report::Report stacks(reader, {.by = report::stacks_by(reader.info()), .by_process = true});
  report::ExportView view{.file = file, .columns = report::view_columns("overview")};
  view.sort = view.columns.front();
  for (const report::Column& c : view.columns)
    if (c.event) {
      view.sort = c;
      break;
    }
  const std::string mine = in_scratch("library.pb.gz"), command = in_scratch("command.pb.gz");
  report::write_profile_export(report::ExportFormat::pprof, stacks, view, mine);
  tagop_ok("report " + quote(file) + " --format pprof -o " + quote(command));
  CHECK(slurp(mine) == slurp(command));

  // A failed export (folded stacks of a ratio) leaves the old file whole,
  // and no temporary file beside it.
  const std::string old = in_scratch("library-old.folded");
  std::ofstream(old) << "old contents\n";
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(peers::scratch())) ++files;
  report::ExportView ratio = view;
  ratio.sort = report::resolve_column("dc_miss_rate");
  CHECK_THROWS_AS(report::write_profile_export(report::ExportFormat::folded, stacks, ratio, old), tagop::Error);
  CHECK_THROWS_AS(report::write_profile_export(report::ExportFormat::jsonl, stacks, view, old), tagop::Error);
  // A throw while the stream is being written: the target removes its file.
  CHECK_THROWS_AS(
      [&] {
        report::ExportTarget target(old);
        target.stream() << "half a file";
        throw tagop::Error("stopped");
      }(),
      tagop::Error);
  CHECK(slurp(old) == "old contents\n");
  std::size_t after = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(peers::scratch())) ++after;
  CHECK(after == files);
  // A directory is refused before anything is written.
  CHECK_THROWS_WITH(report::ExportTarget(peers::scratch().string()), Catch::Contains("a directory"));
}

TEST_CASE("the library's profile of a capture: each process's sums, computed by hand", "[export][library]") {
  // cpu-clock samples of varying periods in two processes, written with the
  // project's writer: the profile's "cpu-clock" values are the periods'
  // sums, its "cpu-clock_samples" the counts, by the pid label.
  namespace report = tagop::report;
  const std::string file = in_scratch("library-clock.data");
  std::map<std::uint32_t, std::pair<std::int64_t, std::int64_t>> by_pid;  // pid -> (periods, samples)
  {
    std::vector<tagop::perf_data::WriterEvent> events(1);
    perf_event_attr& a = events[0].attr;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.sample_period = 4000;
    a.freq = 1;
    a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
    a.sample_id_all = 1;
    events[0].ids = {10};
    events[0].name = "cpu-clock";
    tagop::perf_data::PerfDataWriter w(file, events);
    std::uint64_t t = 1;
    w.comm(5, 5, "alpha", true, {.pid = 5, .tid = 5, .cpu = 0, .time = t++});
    w.comm(6, 6, "beta", true, {.pid = 6, .tid = 6, .cpu = 0, .time = t++});
    for (std::uint64_t i = 0; i < 200; ++i) {
      const std::uint32_t pid = i % 3 == 0 ? 6 : 5;
      const std::uint64_t period = 100000 + 1000 * (i % 7);
      w.sample(0, {.ip = 0x400000 + i % 5, .pid = pid, .tid = pid, .time = t++, .period = period});
      by_pid[pid].first += static_cast<std::int64_t>(period);
      by_pid[pid].second += 1;
    }
    w.finish();
  }
  tagop::perf_data::PerfDataReader reader(file);
  CHECK(report::stacks_by(reader.info()) == report::GroupBy::function);  // no call chains
  const report::Report stacks(reader, {.by = report::stacks_by(reader.info()), .by_process = true});
  const report::ExportView view{.file = file, .sort = report::resolve_event_column(stacks.query_names(), "cpu-clock")};
  const tagop::profiles::Profile p = report::profile_of(stacks, view);
  REQUIRE(p.sample_types().size() == 2);
  CHECK(p.sample_types()[0].name == "cpu-clock");
  CHECK(p.sample_types()[0].unit == "nanoseconds");
  CHECK(p.sample_types()[1].name == "cpu-clock_samples");
  CHECK(report::sort_sample_type(stacks, view) == 0u);
  std::map<std::uint32_t, std::pair<std::int64_t, std::int64_t>> sums;
  for (std::size_t i = 0; i < p.sample_count(); ++i) {
    const tagop::profiles::SampleView s = p.sample(i);
    REQUIRE(s.labels.pid);
    sums[*s.labels.pid].first += s.values[0];
    sums[*s.labels.pid].second += s.values[1];
  }
  CHECK(sums == by_pid);
  // The bound on its size: rows x sample types past max_values.
  report::ExportView bounded = view;
  bounded.max_values = 1;
  CHECK_THROWS_WITH(report::profile_of(stacks, bounded), Catch::Contains("--max-values 1"));
}
