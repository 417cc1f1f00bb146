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
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <linux/perf_event.h>  // PERF_SAMPLE_REGS_ABI_*

#include <tagop/perf_data_reader.hpp>
#include <tagop/report/call_graph.hpp>
#include <tagop/report/report.hpp>
#include <tagop/perf_data_writer.hpp>

#include "../run_command.hpp"
#include "../software_event_attr.hpp"

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
  // timeouts forked them (as "timeout"): where perf names them, tagop must.
  // Some kernels (6.18 with two inherited events) give no sample after the
  // exec at all, so perf's rows, not the script, say whether they ran.
  for (const std::string program : {"sha1sum", "yes"}) {
    bool in_perf = false, in_tagop = false;
    for (const auto& [event, section] : sections)
      for (const auto& [key, n] : section.samples) in_perf = in_perf || key.starts_with(program + " ");
    for (const json& row : t["rows"]) in_tagop = in_tagop || row["name"].get<std::string>().starts_with(program + " [");
    INFO(program);
    CHECK(in_tagop == in_perf);
    if (!in_perf) WARN("perf record saw no sample of " << program << " after its exec: its COMM is not compared");
  }

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

TEST_CASE("call graphs drawn under each function as perf report -g caller and callee draws them", "[report][perf]") {
  if (!perf_can_record()) {
    WARN("perf cannot record here: the comparison with perf report is not run");
    return;
  }
  // leaf's time comes two thirds through middle_a, a third through
  // middle_b: two branches of different shares, under one stem.
  const std::string file = record_fixture("graph.data", "-e cpu-clock:u -c 100000 -g", 300);
  // The lines drawn under a function's row, without trailing blanks.
  const auto graph_under = [](const std::string& out, const std::regex& row) {
    std::vector<std::string> lines;
    bool in = false;
    std::istringstream text(out);
    for (std::string line; std::getline(text, line);) {
      if (std::regex_search(line, row)) {
        in = true;
        continue;
      }
      if (!in) continue;
      if (line.empty() || line.front() != ' ' || std::regex_search(line, std::regex(R"(^\s+[\d.]+%  )"))) break;
      lines.push_back(line.substr(0, line.find_last_not_of(' ') + 1));
    }
    return lines;
  };
  // With --children, every function of the chains has a graph: main's
  // holds its callees' chains, from main on.
  for (const char* children : {"--no-children", "--children"})
    for (const char* order : {"caller", "callee"})
      for (const char* function : {"leaf", "main"}) {
        if (std::string(children) == "--no-children" && std::string(function) == "main") continue;
        INFO(children << " " << order << " " << function);
        const RunResult perf =
            run_shell(fmt::format("perf report -i {} --stdio {} -g {} --sort dso,sym", file, children, order));
        REQUIRE(perf.exit_code == 0);
        const std::vector<std::string> expected =
            graph_under(perf.out, std::regex(fmt::format(R"(%\s+\S+\s+\[\.\] {}$)", function)));
        REQUIRE(expected.size() > 2);
        const RunResult ours = run_tagop(fmt::format("report {} {} -g {}", file, children, order));
        INFO(ours.err);
        REQUIRE(ours.exit_code == 0);
        CHECK(graph_under(ours.out, std::regex(fmt::format(R"(%  {}  \()", function))) == expected);
      }

  // The library's graph: one stem (perf's "---") into main, then the two
  // branches with perf's shares of the total.
  const RunResult perf = run_shell("perf report -i " + file + " --stdio --no-children -g caller --sort dso,sym");
  std::smatch m;
  REQUIRE(std::regex_search(perf.out, m, std::regex(R"(--([\d.]+)%--middle_a)")));
  const std::string middle_a = m[1];
  REQUIRE(std::regex_search(perf.out, m, std::regex(R"(--([\d.]+)%--middle_b)")));
  const std::string middle_b = m[1];
  tagop::perf_data::PerfDataReader reader(file);
  const tagop::report::Report chains(reader, {.by = tagop::report::GroupBy::callchain, .kernel_symbols = false});
  const auto graphs = tagop::report::call_graphs(chains);
  REQUIRE(!graphs.empty());
  const tagop::report::CallGraph& leaf = graphs.front();
  CHECK(chains.row(leaf.function).name == "leaf");
  REQUIRE(leaf.roots.size() == 1);
  std::vector<std::string> stem;
  for (std::uint32_t f : leaf.roots[0].frames) stem.push_back(chains.row(f).name);
  CHECK(stem == std::vector<std::string>{"__libc_start_call_main", "main"});
  REQUIRE(leaf.roots[0].children.size() == 2);
  CHECK(chains.row(leaf.roots[0].children[0].frames[0]).name == "middle_a");
  CHECK(fmt::format("{:.2f}", leaf.roots[0].children[0].percent) == middle_a);
  CHECK(fmt::format("{:.2f}", leaf.roots[0].children[1].percent) == middle_b);
  // Branches below the threshold are left out: none is above 100%.
  CHECK(tagop::report::call_graphs(chains, {.min_percent = 100})[0].roots.empty());
  CHECK_THROWS_AS(tagop::report::call_graphs(tagop::report::Report(reader, {})), tagop::Error);

  // What --call-graph cannot do is said.
  CHECK(run_tagop("report " + file + " -g sideways").exit_code == 2);
  CHECK(run_tagop("report " + file + " -g caller --by module").exit_code == 2);
  CHECK(run_tagop("report " + file + " -g caller --json").exit_code == 2);
  fs::remove(file);
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

// A PLT stub's row without the stub's name ("@plt"): the one known
// difference of names. perf 6.1 names stubs in the order of their
// relocations, which is not their order in libc (the ifuncs' stubs come
// first, their relocations last): a sample in libc's PLT (rare; seen under
// the sanitizers, in libc's start calling ld.so's tunables) is another
// stub's there, or "@plt". tagop reads the slot from the jump
// (lib/plt_stubs.hpp); module_symbols checks its stubs' names against
// objdump's.
std::string without_plt_name(const std::string& part) { return part.ends_with("@plt") ? "@plt" : part; }

// Rows of several keys, as "part|part|...": perf's, from a key of
// perf_sections (its columns, split at spaces: no part here has one, with
// --no-demangle), with `part(i, column)` making each of tagop's parts
// from perf's columns; a symbol perf did not name (0x...) is left out, as
// tagop names it module+offset, and counted in `unnamed`.
template <typename Part>
std::map<std::string, std::uint64_t> perf_rows(const PerfSection& section, Part part, std::uint64_t& unnamed) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [key, n] : section.samples) {
    std::istringstream in(key);
    std::vector<std::string> columns;
    for (std::string c; in >> c;) columns.push_back(c);
    if (columns.size() >= 2 && columns[columns.size() - 2].starts_with("[") && columns.back().starts_with("0x")) {
      unnamed += n;
      continue;
    }
    std::string row;
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (std::string p = without_plt_name(part(i, columns[i])); !p.empty() || i == 0) row += (i ? "|" : "") + p;
    out[row] += n;
  }
  return out;
}

// tagop's rows of a --json report of several keys, the same way: a row
// named module+offset left out, and counted in `unnamed`.
template <typename Part>
std::map<std::string, std::uint64_t> tagop_rows(const json& report, const std::string& event, Part part,
                                                std::uint64_t& unnamed) {
  std::map<std::string, std::uint64_t> out;
  for (const json& row : report["rows"]) {
    const std::uint64_t n = row["events"][event]["samples"];
    if (row.contains("offset")) {
      unnamed += n;
      continue;
    }
    // One key: no parts, the name.
    const json parts = row.contains("parts") ? row["parts"] : json::array({row["name"]});
    std::string key;
    for (std::size_t i = 0; i < parts.size(); ++i)
      key += (i ? "|" : "") + without_plt_name(part(i, parts[i].get<std::string>()));
    out[key] += n;
  }
  return out;
}

std::string before_colon(const std::string& s) { return s.substr(0, s.find(':')); }

}  // namespace

TEST_CASE("several keys: perf report --sort pid and comm and cpu with dso and sym", "[report][perf]") {
  if (!perf_can_record()) {
    WARN("perf cannot record here: the comparison with perf report is not run");
    return;
  }
  // The fixture in three: two threads of one process, and a child process
  // of the same name (forked). With each sample's CPU (--sample-cpu).
  const char* fixture = std::getenv("TAGOP_CALLCHAIN_FIXTURE");
  REQUIRE(fixture);
  const std::string file = temp("keys.data");
  const RunResult rec =
      run_shell(fmt::format("perf record -q -o {} -e cpu-clock:u -c 250000 --sample-cpu -- {} 300 split", file, fixture));
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);
  const std::string event = "cpu-clock:u";
  const auto perf_report = [&](const std::string& sort) {
    const RunResult perf =
        run_shell("perf report -i " + file + " --stdio --no-children -g none -n --no-demangle --sort " + sort);
    REQUIRE(perf.exit_code == 0);
    return perf_sections(perf.out, false).at(event);
  };
  const auto same = [](std::size_t, const std::string& s) { return s; };
  // perf's columns: pid (tid:comm), dso, [.], sym; tagop's parts: thread
  // (tid:comm), module, function. The tid alone: perf cuts a comm to its
  // column's width.
  const auto perf_thread = [](std::size_t i, const std::string& s) { return i == 0 ? before_colon(s) : i == 2 ? "" : s; };
  const auto tagop_thread = [](std::size_t i, const std::string& s) { return i == 0 ? before_colon(s) : s; };
  std::uint64_t perf_unnamed = 0, tagop_unnamed = 0;
  const auto perf_threads = perf_rows(perf_report("pid,dso,sym"), perf_thread, perf_unnamed);
  CHECK(perf_threads.size() >= 3);
  const json by_thread = tagop_json(file + " --by thread,module,function --no-demangle");
  CHECK(by_thread["keys"] == json::array({"thread", "module", "function"}));
  CHECK(tagop_rows(by_thread, event, tagop_thread, tagop_unnamed) == perf_threads);
  CHECK(tagop_unnamed == perf_unnamed);
  // Three threads in leaf, of two processes.
  std::set<std::uint32_t> tids, pids;
  for (const json& row : by_thread["rows"])
    if (row["parts"][2] == "leaf") tids.insert(row["tid"].get<std::uint32_t>()), pids.insert(row["pid"].get<std::uint32_t>());
  CHECK(tids.size() == 3);
  CHECK(pids.size() == 2);
  // The library's rows are the command's.
  {
    tagop::perf_data::PerfDataReader reader(file);
    using tagop::report::GroupBy;
    const tagop::report::Report r(reader, {.keys = {GroupBy::thread, GroupBy::module, GroupBy::function}, .demangle = false});
    const tagop::report::Column samples = tagop::report::resolve_event_column(r.query_names(), event);
    std::map<std::string, std::uint64_t> library;
    for (std::uint32_t id : r.select(samples, 0)) {
      const tagop::report::Row row = r.row(id);
      REQUIRE(row.parts.size() == 3);
      REQUIRE(row.tid);
      CHECK(row.parts[0] == fmt::format("{}:{}", *row.tid, row.comm));
      if (!row.has_offset)
        library[fmt::format("{}|{}|{}", *row.tid, row.parts[1], without_plt_name(row.parts[2]))] += row.results.at(0).count;
    }
    CHECK(library == perf_threads);
  }

  // perf's comm rows are all the processes of one name: tagop's process
  // rows summed by their comm.
  const auto perf_comm = [](std::size_t i, const std::string& s) { return i == 2 ? "" : s; };
  const auto tagop_comm = [](std::size_t i, const std::string& s) { return i == 0 ? s.substr(0, s.rfind(" [")) : s; };
  perf_unnamed = tagop_unnamed = 0;
  const json by_process = tagop_json(file + " --by process,module,function --no-demangle");
  CHECK(tagop_rows(by_process, event, tagop_comm, tagop_unnamed) ==
        perf_rows(perf_report("comm,dso,sym"), perf_comm, perf_unnamed));
  CHECK(tagop_unnamed == perf_unnamed);

  // By CPU (perf's 000), and by CPU and thread.
  const auto perf_cpu = [](std::size_t i, const std::string& s) { return i == 0 ? std::to_string(std::stoul(s)) : before_colon(s); };
  perf_unnamed = tagop_unnamed = 0;
  const auto perf_cpus = perf_rows(perf_report("cpu"), perf_cpu, perf_unnamed);
  CHECK(perf_cpus.size() >= 1);
  CHECK(tagop_rows(tagop_json(file + " --by cpu"), event, same, tagop_unnamed) == perf_cpus);
  const auto tids_only = [](std::size_t, const std::string& s) { return before_colon(s); };
  CHECK(tagop_rows(tagop_json(file + " --by cpu,thread"), event, tids_only, tagop_unnamed) ==
        perf_rows(perf_report("cpu,pid"), perf_cpu, perf_unnamed));
  // The same with any number of threads.
  CHECK(tagop_json(file + " --by cpu,thread,module,function --threads 3")["rows"] ==
        tagop_json(file + " --by cpu,thread,module,function --threads 1")["rows"]);
  fs::remove(file);

  // A thread that names itself: its row has its name, as perf's pid rows.
  const std::string named = temp("named.data");
  const RunResult named_rec =
      run_shell(fmt::format("perf record -q -o {} -e cpu-clock:u -c 250000 -- {} 200 named", named, fixture));
  INFO(named_rec.err);
  REQUIRE(named_rec.exit_code == 0);
  const RunResult perf_named = run_shell("perf report -i " + named + " --stdio --no-children -g none -n --sort pid");
  REQUIRE(perf_named.exit_code == 0);
  std::map<std::string, std::uint64_t> perf_threads_named, tagop_threads_named;
  const auto named_sections = perf_sections(perf_named.out, false);
  for (const auto& [key, n] : named_sections.at(event).samples) {
    std::string name = key.substr(key.find_first_not_of(' '));
    perf_threads_named[name] = n;
  }
  const json named_report = tagop_json(named + " --by thread");
  for (const json& row : named_report["rows"])
    tagop_threads_named[row["name"]] = row["events"][event]["samples"];
  CHECK(perf_threads_named == tagop_threads_named);
  CHECK(std::count_if(tagop_threads_named.begin(), tagop_threads_named.end(),
                      [](const auto& row) { return row.first.ends_with(":second"); }) == 1);
  fs::remove(named);
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
  // Without chains, outer's children share is its own samples only (a
  // sample now and then lands in outer's loop itself).
  for (const json& row : report["rows"])
    if (row["name"] == "outer") CHECK(row["children"]["cpu-clock:u"] == row["events"]["cpu-clock:u"]);
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

TEST_CASE("C++ names: perf report's (no parameter lists) and --signatures for the full ones", "[report][perf]") {
  if (!perf_can_record()) {
    WARN("perf cannot record here: the comparison with perf report is not run");
    return;
  }
  // Overloads, templates, a namespace, an operator and a lambda, each kept
  // out of line and busy for a while.
  const std::string source = temp("names.cpp"), program = temp("names"), file = temp("names.data");
  std::ofstream(source) << R"(#include <chrono>
namespace ns {
template <typename T> struct Box { T v; __attribute__((noinline)) T spin(long n) const {
  volatile T s = v; for (long i = 0; i < n; ++i) s = s * 3 + T(i); return s; } };
}
__attribute__((noinline)) long work(long n) { volatile long s = 0; for (long i = 0; i < n; ++i) s = s + i; return s; }
__attribute__((noinline)) double work(double n) { volatile double s = 0; for (long i = 0; i < long(n); ++i) s = s + 0.5; return s; }
struct V { long x; __attribute__((noinline)) V operator+(const V& o) const {
  volatile long s = x; for (long i = 0; i < o.x; ++i) s = s + i; return V{s}; } };
int main() {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(250);
  volatile long sink = 0;
  auto lam = [](long n) __attribute__((noinline)) { volatile long s = 1; for (long i = 0; i < n; ++i) s = s + i; return long(s); };
  while (std::chrono::steady_clock::now() < end)
    sink = sink + work(100000L) + long(work(100000.0)) + ns::Box<long>{3}.spin(100000) +
           long(ns::Box<double>{1}.spin(100000)) + (V{2} + V{100000}).x + lam(100000);
}
)";
  const RunResult cc = run_shell("c++ -O1 -fno-omit-frame-pointer -o " + program + " " + source);
  if (cc.exit_code != 0) {
    WARN("no C++ compiler here: C++ names are not compared with perf's\n" << cc.err);
    fs::remove(source);
    return;
  }
  const RunResult rec = run_shell(fmt::format("perf record -q -o {} -e cpu-clock -- {}", file, program));
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);
  const std::string dso = fs::path(program).filename().string();
  const RunResult perf =
      run_shell("perf report -i " + file + " --stdio --no-children -n --sort sym --dsos " + dso + " 2>/dev/null");
  REQUIRE(perf.exit_code == 0);
  // Rows by name: the sample counts of each row of that name (overloads
  // are two rows of one name in perf report).
  std::map<std::string, std::multiset<std::uint64_t>> perf_rows, tagop_rows, full_rows;
  std::istringstream lines(perf.out);
  const std::regex row(R"(^ +[\d.]+% +(\d+)  \[\.\] (.*\S) *$)");
  std::smatch m;
  for (std::string line; std::getline(lines, line);)
    if (std::regex_match(line, m, row)) perf_rows[m[2]].insert(std::stoull(m[1]));
  const json t = tagop_json(file);
  for (const json& r : t["rows"])
    if (r["module"] == program) tagop_rows[r["name"]].insert(r["samples"].get<std::uint64_t>());
  CHECK(tagop_rows == perf_rows);
  CHECK(perf_rows.count("work"));
  CHECK(perf_rows.count("ns::Box<long>::spin"));
  CHECK(perf_rows.count("V::operator+"));
  CHECK(perf_rows.count("main::{lambda(long)#1}::operator()"));
  // With parameter lists: the overloads apart by name, as C++ writes them.
  const json full = tagop_json(file + " --signatures");
  for (const json& r : full["rows"])
    if (r["module"] == program) full_rows[r["name"]].insert(r["samples"].get<std::uint64_t>());
  CHECK(full_rows.count("work(long)"));
  CHECK(full_rows.count("work(double)"));
  CHECK(full_rows.count("ns::Box<long>::spin(long) const"));
  CHECK(full_rows.count("V::operator+(V const&) const"));
  CHECK(full_rows.count("main::{lambda(long)#1}::operator()(long) const"));
  for (const std::string& f : {source, program, file}) fs::remove(f);
}

TEST_CASE("perf record -a: events without samples (dummy:HG) hidden in text and CSV as perf report hides them",
          "[report][perf]") {
  const std::string file = temp("system-wide.data");
  const RunResult rec = run_shell("perf record -q -a -o " + file + " -e cpu-clock -- sleep 0.2");
  if (!perf_can_record() || rec.exit_code != 0) {
    WARN("perf cannot record system-wide here: not compared with perf report\n" << rec.err);
    fs::remove(file);
    return;
  }
  const RunResult perf = run_shell("perf report -i " + file + " --stdio -n --sort comm 2>/dev/null");
  REQUIRE(perf.exit_code == 0);
  std::vector<std::string> perf_events;
  for (const OrderedSection& s : perf_sections_in_order(perf.out)) perf_events.push_back(s.event);
  CHECK(perf_events == std::vector<std::string>{"cpu-clock"});
  // The capture holds both: JSON keeps each event, with its zero.
  const json t = tagop_json(file + " --by process");
  REQUIRE(t["events"] == json::array({"cpu-clock", "dummy:HG"}));
  CHECK(t["event_totals"]["dummy:HG"]["samples"] == 0);
  const RunResult text = run_tagop("report " + file + " --by process --top 1");
  REQUIRE(text.exit_code == 0);
  std::string header;
  for (std::istringstream lines(text.out); std::getline(lines, header);)
    if (header.starts_with("process ")) break;
  CHECK_THAT(header, Catch::Contains("cpu-clock overhead") && !Catch::Contains("dummy"));
  CHECK_THAT(text.out, Catch::Contains("dummy:HG 0 (not shown: no samples"));
  const RunResult csv = run_tagop("report " + file + " --by process --top 1 --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out, Catch::StartsWith("process,cpu-clock percent,cpu-clock samples,cpu-clock period\n"));
  fs::remove(file);
}

TEST_CASE("garbage in call chains and processes without COMM: named as perf report names them", "[report][perf]") {
  if (run_shell("perf --version").exit_code != 0) {
    WARN("no perf here: not compared with perf report");
    return;
  }
  // Written here, read by both: in /nonexistent/liba.so (no symbols),
  // 4 samples with a sound user chain, 3 whose chain holds a non-canonical
  // address (garbage a user stack walk read), 2 whose chain holds -1; one
  // sample of a pid without COMM, one of pid -1.
  using namespace tagop::perf_data;
  const std::string file = temp("garbage.data");
  {
    perf_event_attr attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000);
    attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
    PerfDataWriter w(file, {{.attr = attr, .ids = {7}, .name = "cpu-clock"}});
    w.comm(10, 10, "prog");
    w.mmap2(10, 10, 0x10000000, 0x10000, 0, "/nonexistent/liba.so", {}, {}, misc_user);
    const std::uint64_t sound[] = {PERF_CONTEXT_USER, 0x10000100, 0x10000200};
    const std::uint64_t garbage[] = {PERF_CONTEXT_USER, 0x10000100, 0x8000123456789abcull, 0x10000300};
    const std::uint64_t minus_one[] = {PERF_CONTEXT_USER, 0x10000100, ~std::uint64_t{0}, 0x10000400};
    const std::uint64_t elsewhere[] = {PERF_CONTEXT_USER, 0x30000100};
    std::uint64_t t = 1;
    auto put = [&](int n, std::uint32_t pid, std::uint64_t ip, std::span<const std::uint64_t> chain) {
      for (int i = 0; i < n; ++i)
        w.sample(0, {.ip = ip, .pid = pid, .tid = pid, .time = t++, .period = 1000, .callchain = chain});
    };
    put(4, 10, 0x10000100, sound);
    put(3, 10, 0x10000100, garbage);
    put(2, 10, 0x10000100, minus_one);
    put(1, 32478, 0x30000100, elsewhere);
    put(1, 0xFFFFFFFFu, 0x30000100, elsewhere);
    w.finish();
  }
  // Processes: perf's comm column is what tagop names a process without
  // COMM (":pid", pid -1 signed).
  const RunResult comms = run_shell("perf report -i " + file + " --stdio -n --no-children -g none --sort comm 2>/dev/null");
  REQUIRE(comms.exit_code == 0);
  const std::map<std::string, std::uint64_t> perf_comms = perf_sections(comms.out, false)["cpu-clock"].samples;
  CHECK(perf_comms == std::map<std::string, std::uint64_t>{{"prog", 9}, {":32478", 1}, {":-1", 1}});
  std::map<std::string, std::uint64_t> tagop_comms;
  const json processes = tagop_json(file + " --by process");
  for (const json& row : processes["rows"])
    tagop_comms[row["name"] == "prog [10]" ? "prog" : row["name"].get<std::string>()] = row["samples"];
  CHECK(tagop_comms == perf_comms);
  // Addresses with their callers: perf's children by dso and address. The
  // garbage address is [unknown]'s; the chains with -1 are discarded
  // (nothing of 0x10000400), their samples kept.
  const RunResult perf = run_shell("perf report -i " + file + " --stdio -n --children -g none --sort dso,sym 2>/dev/null");
  REQUIRE(perf.exit_code == 0);
  const PerfSection section = perf_sections(perf.out, true)["cpu-clock"];
  const std::string garbage_row = "[unknown]         [.] 0x8000123456789abc";
  REQUIRE(section.percent.count(garbage_row));
  CHECK(section.percent.at(garbage_row) == Approx(100.0 * 3 / 11).margin(0.006));
  for (const auto& [key, percent] : section.percent) CHECK_THAT(key, !Catch::Contains("10000400"));
  const RunResult t = run_tagop("report " + file + " --by address --children --json --top 0");
  INFO(t.err);
  REQUIRE(t.exit_code == 0);
  CHECK_THAT(t.err, Catch::Contains("2 samples had a corrupt call chain"));
  std::map<std::string, json> rows;
  const json addresses = json::parse(t.out);
  for (const json& row : addresses["rows"]) rows[row["name"]] = row;
  REQUIRE(rows.count("[unknown]+0x8000123456789abc"));
  CHECK(rows["[unknown]+0x8000123456789abc"]["module"] == "[unknown]");
  CHECK(rows["[unknown]+0x8000123456789abc"]["children"]["cpu-clock"]["percent"].get<double>() ==
        Approx(section.percent.at(garbage_row)).margin(0.006));
  CHECK(rows.count("liba.so+0x400") == 0);
  CHECK(rows["liba.so+0x100"]["samples"] == section.samples.at("liba.so           [.] 0x0000000000000100"));
  fs::remove(file);
}
