// tagop report against perf report on captures that real `perf record`
// writes here: per process (COMM, FORK, exec), per event (each weighted by
// its period), and call graphs (frame-pointer chains), sample for sample.
// Software events only (the VM has no hardware PMU). Kernel samples are
// left out of the per-symbol comparisons: naming them is another part's
// work (kernel symbols), and perf names them.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <linux/perf_event.h>  // PERF_SAMPLE_REGS_ABI_*

#include <tagop/perf_data_reader.hpp>  // PerfDataReader

#include "../run_command.hpp"

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("tagop-peer-" + std::to_string(::getpid()) + "-" + name)).string();
}

// Whether perf is here and may sample software events.
bool perf_can_record() {
  static const bool can = [] {
    const std::string file = temp("probe.data");
    const bool ok = run_shell("perf record -q -o " + file + " -e cpu-clock -- true").exit_code == 0;
    fs::remove(file);
    return ok;
  }();
  return can;
}

// Records the call-graph fixture for `milliseconds` with perf (its call
// chains by `options`): the capture's path.
std::string record_fixture(const std::string& name, const std::string& options, int milliseconds) {
  const char* fixture = std::getenv("TAGOP_CALLCHAIN_FIXTURE");
  REQUIRE(fixture);
  const std::string file = temp(name);
  const RunResult rec = run_shell(fmt::format("perf record -q -o {} {} -- {} {}", file, options, fixture, milliseconds));
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);
  return file;
}

json tagop_json(const std::string& args) {
  const RunResult r = run_tagop("report " + args + " --json --top 0");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// One event's section of `perf report --stdio`: its rows (the line after
// the percentages and the sample count) and its event count.
struct PerfSection {
  std::map<std::string, std::uint64_t> samples;  // by the row's key
  std::map<std::string, double> percent, self;   // self: with --children
  std::uint64_t event_count = 0;
};

std::map<std::string, PerfSection> perf_sections(const std::string& out, bool children) {
  std::map<std::string, PerfSection> sections;
  PerfSection* s = nullptr;
  const std::regex event(R"(^# Samples: .* of event '(.*)'$)"), count(R"(^# Event count \(approx.\): (\d+)$)");
  const std::regex row(children ? R"(^ +([\d.]+)% +([\d.]+)% +(\d+)  (.*\S) *$)" : R"(^ +([\d.]+)% +(\d+)  (.*\S) *$)");
  std::istringstream lines(out);
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_match(line, m, event)) s = &sections[m[1]];
    else if (s && std::regex_match(line, m, count)) s->event_count = std::stoull(m[1]);
    else if (s && std::regex_match(line, m, row)) {
      const std::string key = m[children ? 4 : 3];
      s->percent[key] = std::stod(m[1]);
      if (children) s->self[key] = std::stod(m[2]);
      s->samples[key] = std::stoull(m[children ? 3 : 2]);
    }
  }
  return sections;
}

}  // namespace

TEST_CASE("by process and by event: perf report's numbers, on a capture of perf record", "[report][perf]") {
  if (!perf_can_record()) {
    WARN("perf cannot record here: the comparison with perf report is not run");
    return;
  }
  // Two processes that run at once, each started by a timeout that forks
  // and execs it: COMM, FORK and exec's COMM as perf record writes them.
  const std::string file = temp("processes.data");
  const RunResult rec = run_shell("perf record -q -o " + file +
                                  " -e cpu-clock -c 250000 -e page-faults -c 1 -- sh -c 'timeout 0.3 sha1sum "
                                  "/dev/zero & timeout 0.3 yes > /dev/null; wait'");
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);
  const RunResult perf = run_shell("perf report -i " + file + " --stdio --no-children -g none -n --sort comm,pid");
  REQUIRE(perf.exit_code == 0);
  const auto sections = perf_sections(perf.out, false);
  REQUIRE(sections.count("cpu-clock"));
  REQUIRE(sections.count("page-faults"));
  const json t = tagop_json(file + " --by process");
  REQUIRE(t["events"] == json::array({"cpu-clock", "page-faults"}));
  for (const auto& [event, section] : sections) {
    INFO(event);
    CHECK(t["event_totals"][event]["period"] == section.event_count);
    // perf's rows are "comm pid:comm", tagop's "comm [pid]". perf cuts a
    // name to its column's width, which it takes from a thread's first
    // name ("perf-ex" for perf-exec, when the process is sh later).
    std::map<std::string, std::uint64_t> rows;  // "comm [pid]" -> samples
    for (const json& row : t["rows"])
      if (const std::uint64_t n = row["events"][event]["samples"]; n) rows[row["name"]] = n;
    std::size_t matched = 0;
    for (const auto& [key, n] : section.samples) {
      std::smatch m;
      REQUIRE(std::regex_match(key, m, std::regex(R"((.*\S) +(\d+):.*)")));
      const std::string comm = m[1], pid = m[2];
      INFO("perf: " << comm << " " << pid << ": " << n);
      std::vector<std::string> candidates;
      for (const auto& [name, count] : rows)
        if (name.starts_with(comm) && name.ends_with(" [" + pid + "]")) candidates.push_back(name);
      REQUIRE(candidates.size() == 1);
      CHECK(rows[candidates[0]] == n);
      ++matched;
    }
    CHECK(matched == rows.size());
    for (const json& row : t["rows"]) {
      INFO(row["name"]);
      CHECK(row["events"][event]["percent"].get<double>() ==
            Approx(100.0 * double(row["events"][event]["period"].get<std::uint64_t>()) / double(section.event_count)));
    }
  }
  // sha1sum and yes run as processes of their own names, after their
  // timeouts forked them (as "timeout").
  bool sha1sum = false, yes = false;
  for (const json& row : t["rows"]) {
    const std::string name = row["name"];
    sha1sum = sha1sum || name.starts_with("sha1sum [");
    yes = yes || name.starts_with("yes [");
  }
  CHECK(sha1sum);
  CHECK(yes);

  // The same capture cut in its data: warned, marked, and --strict fails.
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::uint64_t data_offset = 0, data_size = 0;
  std::memcpy(&data_offset, bytes.data() + 40, 8);
  std::memcpy(&data_size, bytes.data() + 48, 8);
  const std::string cut = temp("processes-cut.data");
  std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(data_offset + data_size / 2 + 3));
  const RunResult truncated = run_tagop("report " + cut + " --json --by process");
  INFO(truncated.err);
  REQUIRE(truncated.exit_code == 0);
  CHECK_THAT(truncated.err, Catch::Contains("warning") && Catch::Contains("truncated"));
  const json tj = json::parse(truncated.out);
  CHECK(tj["truncated"] == true);
  CHECK(tj["skipped"]["count"] == 1);
  CHECK(tj["samples"].get<std::uint64_t>() < t["samples"].get<std::uint64_t>());
  const RunResult strict = run_tagop("report " + cut + " --strict");
  CHECK(strict.exit_code == 1);
  CHECK_THAT(strict.err, Catch::Contains("--strict") && Catch::Contains("truncated"));
  fs::remove(cut);
  fs::remove(file);
}

namespace {

// perf report's sections in its order (two events may share a name): each
// event's name, event count and samples (the sum of its rows' -n column).
struct OrderedSection {
  std::string event;
  std::uint64_t event_count = 0, samples = 0;
};

std::vector<OrderedSection> perf_sections_in_order(const std::string& out) {
  std::vector<OrderedSection> sections;
  const std::regex event(R"(^# Samples: .* of events? '(.*)'$)"), count(R"(^# Event count \(approx.\): (\d+)$)");
  const std::regex row(R"(^ +[\d.]+% +(\d+)  .*$)");
  std::istringstream lines(out);
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_match(line, m, event)) sections.push_back({m[1], 0, 0});
    else if (!sections.empty() && std::regex_match(line, m, count)) sections.back().event_count = std::stoull(m[1]);
    else if (!sections.empty() && std::regex_match(line, m, row)) sections.back().samples += std::stoull(m[1]);
  }
  return sections;
}

}  // namespace

TEST_CASE("a leader-sampled group and two events of one name: perf report's counts of each", "[report][perf]") {
  if (!perf_can_record()) {
    WARN("perf cannot record here: the comparison with perf report is not run");
    return;
  }
  // The group's samples carry both counters (PERF_SAMPLE_READ); perf counts
  // a page-faults sample for each that read a moved counter. `ls` faults
  // pages in, so that there are some.
  struct Case {
    std::string name, events;
    std::vector<std::string> tagop_names;
  };
  for (const Case& c : {Case{"group", "-e '{cpu-clock,page-faults}:S'", {"cpu-clock", "page-faults"}},
                        Case{"same-name", "-e cpu-clock -e cpu-clock", {"cpu-clock", "cpu-clock#2"}}}) {
    INFO(c.name);
    const std::string file = temp(c.name + ".data");
    const RunResult rec = run_shell(fmt::format("perf record -q -o {} {} -c 100000 -- sh -c 'i=0; while [ $i -lt "
                                                "100000 ]; do i=$((i+1)); done; ls -R /usr/share/doc > /dev/null'",
                                                file, c.events));
    INFO(rec.err);
    REQUIRE(rec.exit_code == 0);
    const RunResult perf = run_shell("perf report -i " + file + " --stdio -n --sort comm --no-group");
    REQUIRE(perf.exit_code == 0);
    const std::vector<OrderedSection> sections = perf_sections_in_order(perf.out);
    REQUIRE(sections.size() == 2);
    const json t = tagop_json(file + " --by process");
    REQUIRE(t["events"] == json(c.tagop_names));
    for (std::size_t e = 0; e < 2; ++e) {
      INFO(c.tagop_names[e]);
      CHECK(sections[e].samples > 0);
      CHECK(t["event_totals"][c.tagop_names[e]]["samples"] == sections[e].samples);
      CHECK(t["event_totals"][c.tagop_names[e]]["period"] == sections[e].event_count);
    }
    if (c.name == "same-name")
      CHECK_THAT(t["warnings"].dump(), Catch::Contains("named cpu-clock") && Catch::Contains("cpu-clock#2"));
    fs::remove(file);
  }
}

TEST_CASE("call graphs: perf report --children and -g caller, on frame-pointer chains", "[report][perf]") {
  if (!perf_can_record()) {
    WARN("perf cannot record here: the comparison with perf report is not run");
    return;
  }
  const std::string file = record_fixture("callchain.data", "-e cpu-clock:u -c 100000 -g", 300);
  const std::string event = "cpu-clock:u";

  // Children and self, per function.
  const RunResult perf = run_shell("perf report -i " + file + " --stdio --children -g none -n --sort sym");
  REQUIRE(perf.exit_code == 0);
  const PerfSection s = perf_sections(perf.out, true).at(event);
  const json t = tagop_json(file + " --children");
  std::map<std::string, const json*> rows;
  for (const json& row : t["rows"]) rows[row["name"]] = &row;
  for (const char* function : {"main", "middle_a", "middle_b", "leaf", "__libc_start_call_main"}) {
    INFO(function);
    const std::string key = std::string("[.] ") + function;
    REQUIRE(s.percent.count(key));
    REQUIRE(rows.count(function));
    const json& row = *rows[function];
    // Both round to two decimals the same fractions of the same samples.
    CHECK(fmt::format("{:.2f}", row["children"][event]["percent"].get<double>()) == fmt::format("{:.2f}", s.percent.at(key)));
    CHECK(fmt::format("{:.2f}", row["events"][event]["percent"].get<double>()) == fmt::format("{:.2f}", s.self.at(key)));
    CHECK(row["events"][event]["samples"] == s.samples.at(key));
  }
  CHECK(rows["leaf"]->at("events")[event]["samples"].get<std::uint64_t>() > 100);
  CHECK(rows["main"]->at("children")[event]["samples"] >= rows["leaf"]->at("events")[event]["samples"]);

  // Whole chains, callers first: perf's folded call graph of each symbol.
  // perf's chains that end in leaf, and tagop's, with `options` (--max-stack).
  const auto perf_leaf_chains = [&](const std::string& options) {
    const RunResult folded = run_shell("perf report -i " + file +
                                       " --stdio --no-children -g folded,0,caller,count --sort sym " + options);
    REQUIRE(folded.exit_code == 0);
    std::map<std::string, std::uint64_t> chains;
    std::istringstream lines(folded.out);
    std::smatch m;
    for (std::string line; std::getline(lines, line);)
      if (std::regex_match(line, m, std::regex(R"(^(\d+) (\S*;leaf)$)"))) chains[m[2]] += std::stoull(m[1]);
    return chains;
  };
  const auto tagop_leaf_chains = [&](const json& report) {
    std::map<std::string, std::uint64_t> chains;
    for (const json& row : report["rows"]) {
      const std::string name = row["name"];
      if (name.ends_with(";leaf")) chains[name] = row["events"][event]["samples"];
    }
    return chains;
  };
  const std::map<std::string, std::uint64_t> perf_chains = perf_leaf_chains("");
  REQUIRE(perf_chains.count("__libc_start_call_main;main;middle_a;leaf"));
  REQUIRE(perf_chains.count("__libc_start_call_main;main;middle_b;leaf"));
  const json chains = tagop_json(file + " --by callchain");
  CHECK(tagop_leaf_chains(chains) == perf_chains);
  // Chains cut to their first frames from the sample outward, as perf cuts
  // them in callee order (in caller order perf keeps the outermost).
  const RunResult callee = run_shell("perf report -i " + file +
                                     " --stdio --no-children -g folded,0,callee,count --sort sym --max-stack 2");
  REQUIRE(callee.exit_code == 0);
  std::map<std::string, std::uint64_t> perf_short;  // caller first, as tagop names them
  std::istringstream callee_lines(callee.out);
  std::smatch m;
  for (std::string line; std::getline(callee_lines, line);)
    if (std::regex_match(line, m, std::regex(R"(^(\d+) leaf;(\S+)$)"))) perf_short[std::string(m[2]) + ";leaf"] += std::stoull(m[1]);
  REQUIRE(perf_short.count("middle_a;leaf"));
  CHECK(tagop_leaf_chains(tagop_json(file + " --by callchain --max-stack 2")) == perf_short);
  // The same with any number of threads.
  CHECK(tagop_json(file + " --by callchain --threads 3")["rows"] == chains["rows"]);
  CHECK(tagop_json(file + " --children --threads 3")["rows"] == t["rows"]);
  // By process a row's callees are its own: children are self, as perf --sort pid --children says
  // (the output once read the engine's empty Row::children there, and crashed).
  const json by_process = tagop_json(file + " --children --by process");
  REQUIRE(!by_process["rows"].empty());
  for (const json& row : by_process["rows"]) CHECK(row["children"] == row["events"]);
  CHECK(run_tagop("report " + file + " --children --by process --format csv").exit_code == 0);
  fs::remove(file);
}

namespace {

// The DWARF fixture (built without frame pointers: main -> outer -> middle
// -> inner) as perf report --children and -g folded see `file`, against
// tagop report: each function's children share, and the chains that end
// in inner. perf unwinds with libunwind here and tagop with libdw: they
// may part on a sample or two, no more.
void compare_dwarf_chains(const std::string& file) {
  const std::string event = "cpu-clock:u";
  const RunResult perf = run_shell("perf report -i " + file + " --stdio --children --no-inline -g none -n --sort sym");
  REQUIRE(perf.exit_code == 0);
  const PerfSection s = perf_sections(perf.out, true).at(event);
  const json t = tagop_json(file + " --children");
  // Samples in [vdso] (the fixture reads the clock) have no file to
  // unwind from here: a warning may say so.
  std::map<std::string, const json*> rows;
  for (const json& row : t["rows"]) rows[row["name"]] = &row;
  for (const char* function : {"main", "outer", "middle", "inner"}) {
    INFO(function);
    const std::string key = std::string("[.] ") + function;
    REQUIRE(s.percent.count(key));
    REQUIRE(rows.count(function));
    CHECK(std::abs(rows[function]->at("children")[event]["percent"].get<double>() - s.percent.at(key)) < 3);
  }
  // The frame-pointer chain alone gives outer nothing.
  CHECK(s.percent.at("[.] outer") > 50);

  // Whole chains, callers first (perf's inline frames left out: tagop
  // names functions by the symbol tables).
  const RunResult folded = run_shell("perf report -i " + file +
                                     " --stdio --no-children --no-inline -g folded,0,caller,count --sort sym");
  REQUIRE(folded.exit_code == 0);
  std::map<std::string, std::uint64_t> perf_chains, tagop_chains;
  std::istringstream lines(folded.out);
  std::smatch m;
  for (std::string line; std::getline(lines, line);)
    if (std::regex_match(line, m, std::regex(R"(^(\d+) (\S*;inner)$)"))) perf_chains[m[2]] += std::stoull(m[1]);
  const json by_chain = tagop_json(file + " --by callchain");
  for (const json& row : by_chain["rows"]) {
    const std::string name = row["name"];
    if (name.ends_with(";inner")) tagop_chains[name] = row["events"][event]["samples"];
  }
  std::uint64_t total = 0;
  for (const auto& [chain, n] : perf_chains) total += n;
  REQUIRE(total > 0);
  const std::string main_chain = "__libc_start_call_main;main;outer;middle;inner";
  bool main_seen = false;
  for (const auto& [chain, n] : perf_chains) {
    if (n * 20 < total) continue;  // the main chains: 5% of inner's samples or more
    INFO(chain << ": perf " << n);
    REQUIRE(tagop_chains.count(chain));
    CHECK(std::abs(static_cast<double>(tagop_chains[chain]) - static_cast<double>(n)) <= std::max(2.0, 0.02 * total));
    main_seen = main_seen || chain.ends_with(main_chain);
  }
  CHECK(main_seen);
}

// Records the DWARF fixture for `milliseconds` with `program`'s record
// (perf or tagop) and --call-graph dwarf: the capture's path.
std::string record_dwarf_fixture(const std::string& name, bool with_tagop, int milliseconds) {
  const char* fixture = std::getenv("TAGOP_DWARF_FIXTURE");
  REQUIRE(fixture);
  const std::string file = temp(name);
  const RunResult rec =
      with_tagop ? run_tagop(fmt::format("record -o {} -e cpu-clock:u --call-graph dwarf -- {} {}", file, fixture, milliseconds))
                 : run_shell(fmt::format("perf record -q -o {} -e cpu-clock:u --call-graph dwarf -- {} {}", file, fixture,
                                         milliseconds));
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);
  return file;
}

}  // namespace

TEST_CASE("DWARF user stacks of perf record are unwound as perf report unwinds them", "[report][perf]") {
  if (!perf_can_record()) {
    WARN("perf cannot record here: the comparison with perf report is not run");
    return;
  }
  const std::string file = record_dwarf_fixture("dwarf.data", false, 300);
  compare_dwarf_chains(file);

  // The same samples with their registers' ABI made 32-bit: nothing is
  // unwound, and the report says how many and why.
  struct RegsAt : tagop::perf_data::RecordHandler {
    const std::byte* base = nullptr;
    std::vector<std::size_t> abi_at;
    void sample(const tagop::perf_data::SampleRecord& r) override {
      if (!r.regs_user.empty()) abi_at.push_back(static_cast<std::size_t>(r.regs_user.data() - base) - 8);
    }
  } regs;
  {
    tagop::perf_data::PerfDataReader reader(file);
    regs.base = reader.bytes().data();
    reader.read(regs);
  }
  REQUIRE(!regs.abi_at.empty());
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (const std::size_t at : regs.abi_at) {
    REQUIRE(bytes[at] == static_cast<char>(PERF_SAMPLE_REGS_ABI_64));
    bytes[at] = static_cast<char>(PERF_SAMPLE_REGS_ABI_32);
  }
  const std::string damaged = temp("dwarf-32.data");
  std::ofstream(damaged, std::ios::binary) << bytes;
  const RunResult r = run_tagop("report " + damaged + " --children --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains(fmt::format("{} samples with user stacks", regs.abi_at.size())) &&
                        Catch::Contains("a 32-bit process"));
  const json report = json::parse(r.out);
  for (const json& row : report["rows"])
    if (row["name"] == "outer") CHECK(row["children"]["cpu-clock:u"]["samples"] == 0);
  fs::remove(damaged);
  fs::remove(file);
}

TEST_CASE("tagop record --call-graph dwarf: perf report and tagop report unwind it alike", "[report][perf]") {
  if (!perf_can_record()) {
    WARN("perf cannot record here: the comparison with perf report is not run");
    return;
  }
  const std::string file = record_dwarf_fixture("tagop-dwarf.data", true, 300);
  compare_dwarf_chains(file);
  // perf's limit on the stack copy, and its message's sense.
  const RunResult big = run_tagop("record -o " + temp("big.data") + " -e cpu-clock:u --call-graph dwarf,70000 -- true");
  CHECK(big.exit_code != 0);
  CHECK_THAT(big.err, Catch::Contains("65528"));
  fs::remove(file);
}
