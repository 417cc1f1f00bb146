// Kernel symbols in `tagop report`: a capture real `perf record` writes
// here, named as perf report names it and as /proc/kallsyms says (read by
// the test itself); a synthetic capture named by a --kallsyms file (and
// perf's build-id cache) at hand-placed addresses; and the warnings when
// no symbols fit (another kernel's build-id, --symfs, hidden addresses).

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <tagop/kernel_symbols.hpp>
#include <tagop/perf_data_reader.hpp>
#include <tagop/perf_data_writer.hpp>
#include <tagop/report/columns.hpp>
#include <tagop/report/export.hpp>
#include <tagop/report/kernel_symbol_source.hpp>
#include <tagop/report/report.hpp>

#include "../run_command.hpp"
#include "../software_event_attr.hpp"

using json = nlohmann::json;
namespace fs = std::filesystem;
using namespace tagop::perf_data;

namespace {

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("tagop-ksym-" + std::to_string(::getpid()) + "-" + name)).string();
}

json report_json(const std::string& args, RunResult* keep = nullptr) {
  const RunResult r = run_tagop("report " + args + " --json --top 0");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  if (keep) *keep = r;
  return json::parse(r.out);
}

// name -> samples of the rows in the kernel's map.
std::map<std::string, std::uint64_t> kernel_rows(const json& report, const std::string& event) {
  std::map<std::string, std::uint64_t> rows;
  for (const json& row : report["rows"])
    if (row["module"] == "[kernel.kallsyms]") rows[row["name"]] += row["events"][event]["samples"].get<std::uint64_t>();
  return rows;
}

// The kernel image's symbols in a kallsyms text (module symbols left out):
// start -> names.
// A library report's cpu-clock samples of the kernel's map, by function.
std::map<std::string, std::uint64_t> kernel_rows(const tagop::report::Report& report) {
  const tagop::report::Column samples = tagop::report::resolve_event_column(report.query_names(), "cpu-clock");
  std::map<std::string, std::uint64_t> named;
  for (std::uint32_t id : report.select(samples, 0)) {
    const tagop::report::Row row = report.row(id);
    if (row.module == "[kernel.kallsyms]") named[row.name] += row.results.at(0).count;
  }
  return named;
}

std::map<std::uint64_t, std::set<std::string>> kallsyms_starts(const std::string& path) {
  std::map<std::uint64_t, std::set<std::string>> starts;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string address, type, name, module;
    words >> address >> type >> name >> module;
    if (!module.empty() || name.empty()) continue;
    starts[std::stoull(address, nullptr, 16)].insert(name);
  }
  return starts;
}

constexpr std::uint64_t text = 0xffffffff81000000;

// A cpu-clock capture of kernel samples at hand-placed addresses, whose
// kernel had the build-id `kernel_id` (20 bytes of 0xaa: no real kernel's).
const std::string kernel_id(40, 'a');
// The kernel's map as perf names it, "[kernel.kallsyms]_text" (its pgoff
// _text's address), or without the symbol ("[kernel.kallsyms]").
std::string synthetic_capture(const std::string& name = "synthetic.data", const std::string& build_id = kernel_id,
                              std::uint64_t text = ::text, const std::string& map = "[kernel.kallsyms]_text") {
  const std::string path = temp(name);
  PerfDataWriter w(path,
                   {{.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {7}, .name = "cpu-clock"}},
                   {.build_ids = {{.pid = -1, .cpumode = misc_kernel, .build_id = build_id,
                                   .filename = "[kernel.kallsyms]"}},
                    .hostname = "elsewhere"});
  w.mmap(static_cast<std::uint32_t>(-1), 0, text, 0x2000, text, map);
  w.comm(10, 10, "worker");
  // alpha: 0x100..0x200; beta: 0x200..0x400; gamma: 0x400.._etext (0x1000).
  const std::pair<std::uint64_t, int> samples[] = {{0x150, 3}, {0x200, 2}, {0x3ff, 1}, {0x400, 1}, {0xfff, 3}};
  std::uint64_t time = 1;
  for (const auto& [offset, n] : samples)
    for (int i = 0; i < n; ++i)
      w.sample(0, {.ip = text + offset, .pid = 10, .tid = 10, .time = time++, .period = 1000, .misc = misc_kernel});
  w.finish();
  return path;
}

const char* synthetic_kallsyms =
    "ffffffff81000000 T _text\n"
    "ffffffff81000100 T alpha\n"
    "ffffffff81000200 t beta\n"
    "ffffffff81000400 T gamma\n"
    "ffffffff81001000 T _etext\n";

// The same kernel laid out at `at` (another boot's KASLR).
std::string kallsyms_at(std::uint64_t at) {
  std::string out;
  for (const auto& [offset, type, name] : {std::tuple{0x0, 'T', "_text"}, {0x100, 'T', "alpha"}, {0x200, 't', "beta"},
                                           {0x400, 'T', "gamma"}, {0x1000, 'T', "_etext"}})
    out += fmt::format("{:016x} {} {}\n", at + offset, type, name);
  return out;
}

}  // namespace

TEST_CASE("kernel samples of a perf record capture: perf report's names and /proc/kallsyms'", "[report][kernel]") {
  if (run_shell("perf record -q -o /dev/null -e cpu-clock -- true").exit_code != 0) {
    WARN("perf cannot record here: the kernel symbols are not compared with perf report");
    return;
  }
  const auto starts = kallsyms_starts("/proc/kallsyms");
  if (starts.empty() || starts.begin()->first == 0) {
    WARN("/proc/kallsyms hides its addresses from this user (kptr_restrict): kernel symbols are not compared");
    return;
  }
  // dd's system calls: most of its time is in the kernel.
  const std::string file = temp("dd.data");
  const RunResult rec = run_shell("perf record -q -o " + file +
                                  " -e cpu-clock -c 200000 -- dd if=/dev/zero of=/dev/null bs=512 count=300000");
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);

  RunResult run;
  const json by_function = report_json(file, &run);
  CHECK_THAT(run.err, !Catch::Contains("kernel"));  // the running kernel's build-id: no warning
  const auto tagop = kernel_rows(by_function, "cpu-clock");
  REQUIRE(tagop.size() >= 3);

  // perf report's [k] rows of the kernel's map.
  const RunResult perf = run_shell("perf report -i " + file + " --stdio --no-children -g none -n --sort dso,sym");
  REQUIRE(perf.exit_code == 0);
  std::map<std::string, std::uint64_t> expected;
  const std::regex row(R"(^ +[\d.]+% +(\d+) +\[kernel\.kallsyms\] +\[k\] (.*\S) *$)");
  std::istringstream lines(perf.out);
  std::smatch m;
  for (std::string line; std::getline(lines, line);)
    if (std::regex_match(line, m, row)) expected[m[2]] += std::stoull(m[1]);
  REQUIRE(expected.size() >= 3);
  CHECK(tagop == expected);

  // A library report names them too, with no symbol source given
  // (Options::kernel_symbols): before, its kernel rows were unnamed.
  {
    PerfDataReader reader(file);
    const tagop::report::Report library(reader, {.by = tagop::report::GroupBy::function});
    CHECK(kernel_rows(library) == expected);
  }

  // Each symbol source is told first of the modules perf's build-id table
  // lists (as perf buildid-list prints them), the kernel's among them, and
  // whether it may read on a thread of its own; with one thread the
  // kernel's symbols are read after the walk, and name the same rows.
  {
    struct Told : tagop::report::SymbolSource {
      std::set<std::pair<std::string, std::string>> modules;  // path, build-id
      int calls = 0;
      bool background = false;
      std::unique_ptr<tagop::report::SymbolTable> open(const tagop::report::ModuleRef&, std::string&) override {
        return nullptr;
      }
      void prepare(std::span<const tagop::report::ModuleRef> sampled, bool in_background) override {
        ++calls;
        background = in_background;
        for (const auto& m : sampled) modules.emplace(m.path, m.build_id);
      }
    };
    const RunResult listed = run_shell("perf buildid-list -i " + file);
    REQUIRE(listed.exit_code == 0);
    std::set<std::pair<std::string, std::string>> perf_lists;
    std::istringstream ids(listed.out);
    for (std::string id, path; ids >> id >> path;) perf_lists.emplace(path, id);
    REQUIRE(perf_lists.count({"[kernel.kallsyms]", tagop::running_kernel_build_id()}) == 1);
    for (const std::size_t threads : {0, 1, 2}) {
      INFO("threads " << threads);
      auto told = std::make_shared<Told>();
      PerfDataReader reader(file);
      const tagop::report::Report library(reader, {.by = tagop::report::GroupBy::function, .threads = threads,
                                                   .symbol_sources = {told}});
      CHECK(told->calls == 1);
      // 0: as two_cpus_idle() says at the time, which the load decides.
      if (threads != 0) CHECK(told->background == (threads > 1));
      CHECK(told->modules == perf_lists);
      CHECK(kernel_rows(library) == expected);
    }
  }

  // Each address, named by the test's own reading of /proc/kallsyms: the
  // symbol that starts at or before it (any of the names at that start).
  const json by_address = report_json(file + " --by address");
  std::map<std::uint64_t, std::uint64_t> at_start;  // symbol start -> samples
  std::uint64_t kernel_samples = 0;
  for (const json& r : by_address["rows"]) {
    if (r["module"] != "[kernel.kallsyms]") continue;
    const std::uint64_t address = std::stoull(r["offset"].get<std::string>(), nullptr, 16);
    auto it = starts.upper_bound(address);
    REQUIRE(it != starts.begin());
    const std::uint64_t n = r["events"]["cpu-clock"]["samples"];
    at_start[std::prev(it)->first] += n;
    kernel_samples += n;
  }
  std::uint64_t named = 0;
  for (const auto& [name, n] : tagop) {
    INFO(name);
    std::uint64_t sum = 0;
    for (const auto& [start, samples] : at_start)
      if (starts.at(start).count(name)) sum += samples;
    CHECK(n == sum);
    named += n;
  }
  CHECK(named == kernel_samples);
  fs::remove(file);
}

TEST_CASE("kernel symbols from --kallsyms and the build-id cache, at hand-placed addresses", "[report][kernel]") {
  const std::string file = synthetic_capture();
  const std::string kallsyms = temp("copy.kallsyms");
  std::ofstream(kallsyms) << synthetic_kallsyms;
  const std::string empty_cache = temp("empty-cache");
  fs::create_directories(empty_cache);
  const std::string env = "PERF_BUILDID_DIR=" + empty_cache + " ";
  const std::map<std::string, std::uint64_t> named = {{"alpha", 3}, {"beta", 3}, {"gamma", 4}};

  SECTION("--kallsyms names them, with perf's module name") {
    RunResult r;
    const json j = report_json("--kallsyms " + kallsyms + " " + file, &r);
    CHECK(r.err.empty());
    CHECK(kernel_rows(j, "cpu-clock") == named);
    // Sorted by samples, then by name.
    REQUIRE(j["rows"].size() == 3);
    CHECK(j["rows"][0]["name"] == "gamma");
    CHECK(j["rows"][1]["name"] == "alpha");
    CHECK(j["rows"][2]["name"] == "beta");
    const RunResult text = run_tagop("report --kallsyms " + kallsyms + " " + file);
    CHECK_THAT(text.out, Catch::Contains("gamma") && Catch::Contains("[kernel.kallsyms]"));
    CHECK_THAT(text.out, !Catch::Contains("_text+"));
  }
  SECTION("another kernel's build-id: not this machine's kallsyms, and said so once") {
    const RunResult r = run_shell(env + tagop_exe() + " report " + file + " --json --top 0");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("[kernel.kallsyms]") && Catch::Contains("not the recorded " + kernel_id) &&
                          Catch::Contains("--kallsyms"));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    const json j = json::parse(r.out);
    std::map<std::string, std::uint64_t> expected = {{"[kernel.kallsyms]+0xffffffff81000150", 3},
                                                     {"[kernel.kallsyms]+0xffffffff81000200", 2},
                                                     {"[kernel.kallsyms]+0xffffffff810003ff", 1},
                                                     {"[kernel.kallsyms]+0xffffffff81000400", 1},
                                                     {"[kernel.kallsyms]+0xffffffff81000fff", 3}};
    CHECK(kernel_rows(j, "cpu-clock") == expected);
    REQUIRE(j["warnings"].size() == 1);
  }
  SECTION("perf's build-id cache: ~/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms") {
    const std::string cache = temp("cache");
    fs::create_directories(cache + "/[kernel.kallsyms]/" + kernel_id);
    fs::copy_file(kallsyms, cache + "/[kernel.kallsyms]/" + kernel_id + "/kallsyms");
    const RunResult r =
        run_shell("PERF_BUILDID_DIR=" + cache + " " + tagop_exe() + " report " + file + " --json --top 0");
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(kernel_rows(json::parse(r.out), "cpu-clock") == named);
    fs::remove_all(cache);
  }
  SECTION("a kallsyms of another boot (KASLR) is moved by the capture's _text, as perf moves it") {
    const std::string moved = temp("moved.kallsyms");
    std::ofstream(moved) << kallsyms_at(text + 0x2a00000);
    RunResult r;
    CHECK(kernel_rows(report_json("--kallsyms " + moved + " " + file, &r), "cpu-clock") == named);
    CHECK(r.err.empty());
    // The JSON lines name each sample by the same moved table.
    const std::string lines = temp("moved.jsonl");
    REQUIRE(run_tagop("report --kallsyms " + moved + " " + file + " --format jsonl -o " + lines).exit_code == 0);
    std::map<std::string, std::uint64_t> line_named;
    std::ifstream in(lines);
    for (std::string line; std::getline(in, line);) ++line_named[json::parse(line)["symbol"].get<std::string>()];
    CHECK(line_named == named);
    fs::remove(lines);
    // perf report's names (kallsyms__delta), where it can read the capture.
    const RunResult perf = run_shell("perf report -i " + file + " --kallsyms " + moved +
                                     " --stdio --no-children -g none -n --sort sym 2>/dev/null");
    if (perf.exit_code == 0) {
      std::map<std::string, std::uint64_t> perf_named;
      const std::regex row(R"(^ +[\d.]+% +(\d+) +\[k\] (.*\S) *$)");
      std::istringstream lines(perf.out);
      std::smatch m;
      for (std::string line; std::getline(lines, line);)
        if (std::regex_match(line, m, row)) perf_named[m[2]] += std::stoull(m[1]);
      CHECK(perf_named == named);
    } else {
      WARN("perf report cannot read the synthetic capture: the moved names are not compared with perf's");
    }
    fs::remove(moved);
  }
  SECTION("--symfs without a vmlinux there") {
    const RunResult r = run_shell(env + tagop_exe() + " report --symfs " + empty_cache + " " + file);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("--symfs") && Catch::Contains("no kernel symbols"));
  }
  SECTION("a kallsyms whose addresses are hidden says kptr_restrict") {
    const std::string hidden = temp("hidden.kallsyms");
    std::ofstream(hidden) << "0000000000000000 T _text\n0000000000000000 T alpha\n";
    const RunResult r = run_tagop("report --kallsyms " + hidden + " " + file);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("kptr_restrict"));
    fs::remove(hidden);
  }
  SECTION("a --vmlinux that is not an ELF file is refused, by name") {
    const RunResult r = run_shell(env + tagop_exe() + " report --vmlinux " + kallsyms + " " + file);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains(kallsyms));
  }
  fs::remove_all(empty_cache);
  fs::remove(kallsyms);
  fs::remove(file);
}


TEST_CASE("the running kernel's capture: perf's build-id cache copy of its kallsyms, moved to the capture's _text; "
          "without a _text, /proc/kallsyms", "[report][kernel]") {
  const std::string running = tagop::running_kernel_build_id();
  const auto starts = kallsyms_starts("/proc/kallsyms");
  if (running.empty() || starts.empty() || starts.begin()->first == 0) {
    WARN("no running kernel's build-id, or /proc/kallsyms hides its addresses: the choice is not checked");
    return;
  }
  // The capture's kernel is where /proc/kallsyms says it is now; the
  // cache's copy was kept in another boot, 0x2a00000 higher.
  const std::optional<tagop::KernelText> now = tagop::running_kernel_text();
  REQUIRE(now);
  const std::string cache = temp("running-cache");
  fs::create_directories(cache + "/[kernel.kallsyms]/" + running);
  std::ofstream(cache + "/[kernel.kallsyms]/" + running + "/kallsyms") << kallsyms_at(now->start + 0x2a00000);
  const std::string env = "PERF_BUILDID_DIR=" + cache + " ";

  const std::string with_text = synthetic_capture("running.data", running, now->start);
  RunResult r = run_shell(env + tagop_exe() + " report " + with_text + " --json --top 0");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  const std::map<std::string, std::uint64_t> named = {{"alpha", 3}, {"beta", 3}, {"gamma", 4}};
  CHECK(kernel_rows(json::parse(r.out), "cpu-clock") == named);

  // A capture that does not say where its kernel was cannot be moved: the
  // copy may be another boot's, so the running kernel's names, as the
  // test reads them from /proc/kallsyms (any name at the start below).
  const std::string without_text = synthetic_capture("no-text.data", running, now->start, "[kernel.kallsyms]");
  r = run_shell(env + tagop_exe() + " report " + without_text + " --json --top 0 --by address");
  REQUIRE(r.exit_code == 0);
  const json by_address = json::parse(r.out);
  r = run_shell(env + tagop_exe() + " report " + without_text + " --json --top 0");
  REQUIRE(r.exit_code == 0);
  std::map<std::string, std::uint64_t> proc_named;
  for (const auto& [name, n] : kernel_rows(json::parse(r.out), "cpu-clock")) {
    CHECK(named.count(name) == 0);
    proc_named[name] += n;
  }
  std::uint64_t checked = 0;
  for (const json& row : by_address["rows"]) {
    const std::uint64_t address = std::stoull(row["offset"].get<std::string>(), nullptr, 16);
    const auto it = starts.upper_bound(address);
    REQUIRE(it != starts.begin());
    bool found = false;
    for (const std::string& name : std::prev(it)->second) found |= proc_named.count(name) > 0;
    CHECK(found);
    checked += row["events"]["cpu-clock"]["samples"].get<std::uint64_t>();
  }
  CHECK(checked == 10);
  fs::remove_all(cache);
  fs::remove(with_text);
  fs::remove(without_text);
}

TEST_CASE("JSON lines: samples met while the kernel's symbols are still read are held, then named in order",
          "[report][kernel][jsonl]") {
  const std::string file = synthetic_capture("held.data");
  const std::string kallsyms = temp("held.kallsyms");
  std::ofstream(kallsyms) << synthetic_kallsyms;
  // The kernel's source, said to be still reading for its first `busy`
  // questions (SymbolSource::reading): the lines of those samples are
  // written without their symbol and held.
  struct Slow : tagop::report::SymbolSource {
    std::shared_ptr<tagop::report::SymbolSource> source;
    int busy = 0;
    mutable int asked = 0;
    std::unique_ptr<tagop::report::SymbolTable> open(const tagop::report::ModuleRef& m, std::string& problem) override {
      return source->open(m, problem);
    }
    bool reading(const tagop::report::ModuleRef& m) const override { return m.kernel && ++asked <= busy; }
  };
  const auto lines_with = [&](int busy, std::size_t threads) {
    auto slow = std::make_shared<Slow>();
    slow->source = tagop::report::kernel_symbol_source({.kallsyms = kallsyms});
    slow->busy = busy;
    tagop::perf_data::PerfDataReader reader(file);
    std::ostringstream out;
    CHECK(tagop::report::write_sample_lines(reader, {.threads = threads, .symbol_sources = {slow}}, out) == 10);
    if (busy > 0) CHECK(slow->asked > 0);
    return out.str();
  };
  const std::string unheld = lines_with(0, 1);
  std::map<std::string, std::uint64_t> named;
  std::istringstream in(unheld);
  for (std::string line; std::getline(in, line);) ++named[json::parse(line)["symbol"].get<std::string>()];
  CHECK(named == std::map<std::string, std::uint64_t>{{"alpha", 3}, {"beta", 3}, {"gamma", 4}});
  // Held for the first few samples, or to the end (named when the walk is
  // done), written here or on a thread of their own: the same lines.
  for (const int busy : {3, 1000})
    for (const std::size_t threads : {1u, 2u}) {
      INFO("busy " << busy << ", threads " << threads);
      CHECK(lines_with(busy, threads) == unheld);
    }
  fs::remove(kallsyms);
  fs::remove(file);
}
