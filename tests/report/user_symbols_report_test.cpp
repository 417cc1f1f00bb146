// Symbols of user modules where perf finds them: a library copied under
// --symfs (the capture's path is not on this machine), checked against
// nm's reading of the same file; and the [vdso] image that perf record
// keeps in its build-id cache, checked against perf report on the same
// capture.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <span>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <tagop/perf_data_writer.hpp>
#include <tagop/report/symbols.hpp>
#include <tagop/symbol_files.hpp>

#include "../run_command.hpp"
#include "../software_event_attr.hpp"

using json = nlohmann::json;
namespace fs = std::filesystem;
using namespace tagop::perf_data;

namespace {

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("tagop-usym-" + std::to_string(::getpid()) + "-" + name)).string();
}

// A library of this machine with dynamic symbols and no debug file in
// /usr/lib/debug (which would name it whatever --symfs says: perf reads it
// too), and its build-id.
std::pair<std::string, std::string> library_without_debug_file() {
  for (const char* name : {"libz.so.1", "libpfm.so.4", "libfmt.so.9", "libcapstone.so.4", "libzstd.so.1"}) {
    const std::string path = std::string("/usr/lib/x86_64-linux-gnu/") + name;
    std::string problem;
    const auto id = tagop::file_build_id(path, problem);
    if (!id || id->size() < 4) continue;
    if (fs::exists("/usr/lib/debug/.build-id/" + id->substr(0, 2) + "/" + id->substr(2) + ".debug")) continue;
    return {path, *id};
  }
  return {};
}

// A function of `lib` that nm lists alone at its address (no alias that
// a reader could pick instead), and its address.
std::pair<std::string, std::uint64_t> lone_function(const std::string& lib) {
  const RunResult nm = run_shell("nm -D --defined-only -S " + lib);
  REQUIRE(nm.exit_code == 0);
  std::map<std::uint64_t, std::vector<std::string>> by_address;
  std::map<std::uint64_t, std::uint64_t> size;
  std::istringstream lines(nm.out);
  for (std::string l; std::getline(lines, l);) {
    std::istringstream words(l);
    std::string address, bytes, type, name;
    if (!(words >> address >> bytes >> type >> name) || (type != "T" && type != "t")) continue;
    const std::uint64_t at = std::stoull(address, nullptr, 16);
    by_address[at].push_back(name.substr(0, name.find('@')));
    size[at] = std::stoull(bytes, nullptr, 16);
  }
  for (const auto& [at, names] : by_address)
    if (names.size() == 1 && size[at] >= 64) return {names.front(), at};
  FAIL("no function of " << lib << " stands alone at its address");
  return {};
}

// The rows of `perf report --stdio -n` that `row` matches: its samples
// (group 1) by name (group 2).
std::map<std::string, std::uint64_t> perf_report_counts(const std::string& out, const std::regex& row) {
  std::map<std::string, std::uint64_t> counts;
  std::istringstream lines(out);
  std::smatch m;
  for (std::string l; std::getline(lines, l);)
    if (std::regex_match(l, m, row)) counts[m[2]] += std::stoull(m[1]);
  return counts;
}

// tagop with perf's build-id cache at `cache` (perf record fills the real
// one, ~/.debug, with this machine's libraries).
RunResult run_with_cache(const std::string& cache, const std::string& args) {
  return run_shell("PERF_BUILDID_DIR=" + cache + " " + tagop_exe() + " " + args);
}

json report_json(const std::string& args, const std::string& cache = "") {
  const RunResult r = cache.empty() ? run_tagop("report " + args + " --json --top 0")
                                    : run_with_cache(cache, "report " + args + " --json --top 0");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("--symfs: a library recorded at a path this machine lacks is named from its copy", "[report][symbols]") {
  const auto [lib, id] = library_without_debug_file();
  if (lib.empty()) {
    WARN("every candidate library has a debug file here: --symfs is not tested");
    return;
  }
  const auto [function, address] = lone_function(lib);
  INFO(lib << ": " << function << " at " << std::hex << address);

  // A shared library's text is mapped at its own file offset (p_offset ==
  // p_vaddr), so the address nm gives is the offset perf records.
  const std::string recorded = "/tagop-gone/lib/" + fs::path(lib).filename().string();
  const std::string capture = temp("symfs.data");
  const std::uint64_t start = 0x7f0000000000;
  {
    PerfDataWriter w(capture,
                     {{.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {7}, .name = "cpu-clock"}});
    w.comm(10, 10, "worker");
    w.mmap2(10, 10, start, 0x400000, 0, recorded, id);
    for (int i = 0; i < 3; ++i) w.sample(0, {.ip = start + address + 4, .pid = 10, .tid = 10});
    w.finish();
  }
  const std::string symfs = temp("symfs");
  fs::create_directories(symfs + "/tagop-gone/lib");
  fs::copy_file(lib, symfs + recorded);

  // No copy, and an empty build-id cache: the module and offset, as perf
  // shows it.
  const std::string cache = temp("cache");
  fs::create_directories(cache);
  const json bare = report_json(capture, cache);
  REQUIRE(bare["rows"].size() == 1);
  CHECK(bare["rows"][0]["name"] != function);

  const json named = report_json(capture + " --symfs " + symfs, cache);
  REQUIRE(named["rows"].size() == 1);
  CHECK(named["rows"][0]["name"] == function);
  CHECK(named["rows"][0]["events"]["cpu-clock"]["samples"] == 3);

  // A copy with another build-id is not used, and the report says why.
  fs::remove(symfs + recorded);
  fs::copy_file("/bin/sh", symfs + recorded, fs::copy_options::overwrite_existing);
  const RunResult other = run_with_cache(cache, "report " + capture + " --symfs " + symfs);
  CHECK(other.exit_code == 0);
  CHECK_THAT(other.err, Catch::Contains("not the recorded " + id));
  CHECK(other.out.find(function) == std::string::npos);
  fs::remove_all(symfs);
  fs::remove_all(cache);
  fs::remove(capture);
}

TEST_CASE("[vdso]: named from the image perf record keeps in its build-id cache, as perf report names it",
          "[report][symbols][perf]") {
  if (run_shell("perf record -q -o /dev/null -e cpu-clock -- true").exit_code != 0) {
    WARN("perf cannot record here: [vdso] is not compared with perf report");
    return;
  }
  const std::string capture = temp("vdso.data");
  // clock_gettime in a loop spends its time in the vdso.
  const RunResult rec = run_shell("perf record -q -o " + capture +
                                  " -e cpu-clock -c 100000 -- python3 -c 'import time\n"
                                  "for i in range(1500000): time.clock_gettime(0)'");
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);
  // "    16.72%           159  [vdso]  [.] __vdso_clock_gettime"
  const RunResult perf = run_shell("perf report -i " + capture + " --stdio -n --sort dso,sym 2>/dev/null");
  REQUIRE(perf.exit_code == 0);
  const auto perf_rows = perf_report_counts(perf.out, std::regex(R"(^ +[\d.]+% +(\d+) +\[vdso\] +\[.\] (\S+) *$)"));
  if (perf_rows.empty() || perf_rows.begin()->first.starts_with("0x")) {
    WARN("perf names no [vdso] function in this capture: nothing to compare");
    fs::remove(capture);
    return;
  }
  std::map<std::string, std::uint64_t> tagop_rows;
  const json report = report_json(capture);
  for (const json& row : report["rows"])
    if (row["module"] == "[vdso]") tagop_rows[row["name"]] += row["events"]["cpu-clock"]["samples"].get<std::uint64_t>();
  CHECK(tagop_rows == perf_rows);
  fs::remove(capture);
}

TEST_CASE("no debuginfod server is asked for a module's debug file unless TAGOP_DEBUGINFOD=1, as perf does",
          "[report][symbols]") {
  // A library with a build-id and no local debug file: libdw's last resort
  // for its debug file is the servers of DEBUGINFOD_URLS. A local HTTP
  // server that answers 404 logs what it is asked.
  const auto [lib, id] = library_without_debug_file();
  if (lib.empty()) {
    WARN("every candidate library has a debug file here: debuginfod is not tested");
    return;
  }
  const auto [function, address] = lone_function(lib);
  const std::string capture = temp("debuginfod.data");
  const std::uint64_t start = 0x7f0000000000;
  {
    PerfDataWriter w(capture,
                     {{.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {7}, .name = "cpu-clock"}});
    w.comm(10, 10, "worker");
    w.mmap2(10, 10, start, 0x400000, 0, lib, id);
    w.sample(0, {.ip = start + address + 4, .pid = 10, .tid = 10});
    w.finish();
  }
  const std::string log = temp("debuginfod.log"), port_file = temp("debuginfod.port");
  const std::string server =
      "import http.server, sys\n"
      "class H(http.server.BaseHTTPRequestHandler):\n"
      "    def do_GET(self):\n"
      "        open(sys.argv[1], 'a').write(self.path + '\\n')\n"
      "        self.send_response(404); self.end_headers()\n"
      "    def log_message(self, *a): pass\n"
      "s = http.server.HTTPServer(('127.0.0.1', 0), H)\n"
      "open(sys.argv[2], 'w').write(str(s.server_address[1]))\n"
      "s.serve_forever()\n";
  const std::string script = temp("debuginfod.py");
  std::ofstream(script) << server;
  const RunResult started = run_shell("python3 " + script + " " + log + " " + port_file +
                                      " > /dev/null 2>&1 & echo $!");
  const std::string pid = started.out.substr(0, started.out.find('\n'));
  std::string port;
  for (int i = 0; i < 100 && port.empty(); ++i) {
    run_shell("sleep 0.05");
    std::ifstream(port_file) >> port;
  }
  REQUIRE(!port.empty());
  auto requests = [&] {
    std::ifstream in(log);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) n += line.find(id) != std::string::npos;
    return n;
  };
  // Its own cache: the client would not ask again for a build-id it was
  // refused in the last ten minutes (cache_miss_s).
  const std::string cache = temp("debuginfod-cache");
  const std::string urls = "DEBUGINFOD_CACHE_PATH=" + cache + " DEBUGINFOD_URLS=http://127.0.0.1:" + port + " ";
  const RunResult plain = run_shell(urls + tagop_exe() + " report " + capture + " --json --top 0");
  CHECK(plain.exit_code == 0);
  CHECK(json::parse(plain.out)["rows"][0]["name"] == function);  // from its .dynsym
  CHECK(requests() == 0);
  // The same asked for: the server sees the build-id (so the check above can fail).
  const RunResult asked = run_shell(urls + "TAGOP_DEBUGINFOD=1 " + tagop_exe() + " report " + capture + " --json");
  CHECK(asked.exit_code == 0);
  CHECK(requests() >= 1);
  run_shell("kill " + pid);
  for (const std::string& f : {capture, log, port_file, script}) fs::remove(f);
  fs::remove_all(cache);
}

namespace {

// Samples in the first stubs of `lib`'s PLT, stub k with k + 1 of them,
// 6 bytes in (past the jump's first instruction), so that the counts tell
// the stubs apart; a shared library's text is mapped at its file offset.
// objdump names each stub from the relocation its jump goes through
// ("0000000000003030 <crc32_z@plt>:"); the header of .plt has no name of
// its own ("<crc32_z@plt-0x10>"). Returns tagop's rows and objdump's names
// with their counts, and leaves the capture in `capture`.
struct PltRows {
  std::map<std::string, std::uint64_t> tagop, objdump;
};
PltRows plt_rows(const std::string& lib, const std::string& id, const std::string& section, const std::string& capture,
                 const std::string& cache) {
  const RunResult dump = run_shell("objdump -d -j " + section + " " + lib);
  REQUIRE(dump.exit_code == 0);
  const std::regex label(R"(^([0-9a-f]+) <([^<>@]+)@plt>:$)");
  std::vector<std::pair<std::uint64_t, std::string>> stubs;
  std::istringstream dumped(dump.out);
  std::smatch m;
  for (std::string l; std::getline(dumped, l);)
    if (std::regex_match(l, m, label)) stubs.emplace_back(std::stoull(m[1], nullptr, 16), m[2]);
  REQUIRE(stubs.size() >= 2);
  stubs.resize(std::min<std::size_t>(stubs.size(), 12));
  PltRows rows;
  const std::uint64_t start = 0x7f0000000000;
  {
    PerfDataWriter w(capture,
                     {{.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {7}, .name = "cpu-clock"}});
    w.comm(10, 10, "worker");
    w.mmap2(10, 10, start, 0x400000, 0, lib, id);
    for (std::size_t k = 0; k < stubs.size(); ++k) {
      for (std::size_t n = 0; n <= k; ++n) w.sample(0, {.ip = start + stubs[k].first + 6, .pid = 10, .tid = 10});
      rows.objdump[stubs[k].second + "@plt"] = k + 1;
    }
    w.finish();
  }
  const json report = report_json(capture, cache);
  for (const json& row : report["rows"])
    rows.tagop[row["name"]] += row["events"]["cpu-clock"]["samples"].get<std::uint64_t>();
  return rows;
}

}  // namespace

TEST_CASE("a sample in a PLT stub is named name@plt, as objdump labels the stub and perf report names it",
          "[report][symbols][perf]") {
  const auto [lib, id] = library_without_debug_file();
  if (lib.empty()) {
    WARN("every candidate library has a debug file here: PLT stubs are not tested");
    return;
  }
  INFO(lib);
  const std::string capture = temp("plt.data"), cache = temp("plt-cache");
  fs::create_directories(cache);
  const PltRows rows = plt_rows(lib, id, ".plt", capture, cache);
  CHECK(rows.tagop == rows.objdump);

  if (run_shell("command -v perf").exit_code == 0) {
    // "    10.26%             8  [.] gzseek64@plt"
    const RunResult perf = run_shell("PERF_BUILDID_DIR=" + cache + " perf report -i " + capture +
                                     " --stdio -n --sort sym 2>/dev/null");
    REQUIRE(perf.exit_code == 0);
    INFO(perf.out);
    CHECK(perf_report_counts(perf.out, std::regex(R"(^ +[\d.]+% +(\d+) +\[.\] (\S+) *$)")) == rows.objdump);
  } else {
    WARN("no perf here: PLT names are compared with objdump's only");
  }
  fs::remove_all(cache);
  fs::remove(capture);
}

TEST_CASE("libc's ifunc stubs come first in its PLT and are named by their resolvers' symbols", "[report][symbols]") {
  // libc's stubs are not in its relocations' order: those of ifuncs
  // (IRELATIVE relocations, no symbol) come first, their relocations last.
  // objdump labels them by the resolver's address ("*ABS*+0x9f550@plt");
  // the name is the function at that address, whichever of its aliases
  // perf's rule picks (with a debug file, often the sized __x_ifunc).
  const std::string lib = "/lib/x86_64-linux-gnu/libc.so.6";
  std::string problem;
  const auto id = tagop::file_build_id(lib, problem);
  if (!fs::exists(lib) || !id) {
    WARN("no x86-64 libc here: its PLT is not tested");
    return;
  }
  // The names at each address: of the dynamic symbols, and of the full
  // symbol table where a debug file has it.
  std::map<std::uint64_t, std::set<std::string>> names_at;
  const std::string debug = "/usr/lib/debug/.build-id/" + id->substr(0, 2) + "/" + id->substr(2) + ".debug";
  for (const std::string& listing : {"nm -D --defined-only " + lib, fs::exists(debug) ? "nm --defined-only " + debug : ""}) {
    if (listing.empty()) continue;
    const RunResult nm = run_shell(listing);
    REQUIRE(nm.exit_code == 0);
    std::istringstream listed(nm.out);
    for (std::string l; std::getline(listed, l);) {
      std::istringstream words(l);
      std::string address, type, name;
      if (words >> address >> type >> name)
        names_at[std::stoull(address, nullptr, 16)].insert(name.substr(0, name.find('@')));
    }
  }
  const std::string capture = temp("libc-plt.data"), cache = temp("libc-plt-cache");
  fs::create_directories(cache);
  const PltRows rows = plt_rows(lib, *id, ".plt", capture, cache);
  std::string tagop_names;
  for (const auto& [name, count] : rows.tagop) tagop_names += name + " ";
  INFO("tagop: " << tagop_names);
  std::size_t ifuncs = 0;
  for (const auto& [label, count] : rows.objdump) {
    INFO(label);
    if (!label.starts_with("*ABS*+0x")) {
      CHECK(rows.tagop.count(label) == 1);
      continue;
    }
    ++ifuncs;
    const std::uint64_t resolver = std::stoull(label.substr(8), nullptr, 16);
    REQUIRE(names_at.count(resolver) == 1);
    std::uint64_t named = 0;
    for (const std::string& alias : names_at[resolver])
      if (const auto it = rows.tagop.find(alias + "@plt"); it != rows.tagop.end()) named += it->second;
    CHECK(named >= count);  // its samples (and any other alias's stub)
  }
  CHECK(ifuncs > 0);
  std::uint64_t all = 0;
  for (const auto& [name, count] : rows.tagop) all += count;
  CHECK(all == (rows.objdump.size() * (rows.objdump.size() + 1)) / 2);
  fs::remove_all(cache);
  fs::remove(capture);
}

TEST_CASE("a library linked for indirect branch tracking has its stubs in .plt.sec, named as objdump names them",
          "[report][symbols]") {
  // Debian's toolchain does not make such libraries by default: one is
  // built here. perf before Linux 6.2 put the names on .plt's lazy-binding
  // entries instead, so perf is not the oracle for this one.
  const std::string source = temp("ibt.c"), lib = temp("libibt.so");
  std::ofstream(source) << "#include <stdio.h>\n#include <string.h>\n"
                           "int f(const char* s) { puts(s); return (int)strlen(s); }\n";
  const RunResult cc = run_shell("cc -shared -fPIC -O1 -fcf-protection -Wl,-z,ibtplt -Wl,--build-id -o " + lib + " " +
                                 source);
  if (cc.exit_code != 0 || run_shell("readelf -SW " + lib + " | grep -q '\\.plt\\.sec'").exit_code != 0) {
    WARN("no C compiler that links -z ibtplt here: .plt.sec is not tested\n" << cc.err);
    fs::remove(source);
    return;
  }
  std::string problem;
  const auto id = tagop::file_build_id(lib, problem);
  REQUIRE(id);
  const std::string capture = temp("ibt.data"), cache = temp("ibt-cache");
  fs::create_directories(cache);
  const PltRows rows = plt_rows(lib, *id, ".plt.sec", capture, cache);
  CHECK(rows.objdump.size() == 2);  // puts@plt, strlen@plt
  CHECK(rows.tagop == rows.objdump);
  fs::remove_all(cache);
  for (const std::string& f : {capture, source, lib}) fs::remove(f);
}

TEST_CASE("a sample waits for the round after its own: a mapping written later in the same round names it",
          "[report][symbols][perf]") {
  // perf record -a on a machine of many CPUs writes each CPU's buffer in
  // turn: a MMAP of CPU 127 can come 20,000 samples after a sample of CPU 0
  // that it precedes in time. perf report orders by FINISHED_ROUND; a queue
  // of 16k samples alone would name the sample before the mapping.
  const std::string busy = std::getenv("TAGOP_BUSY");
  const RunResult nm = run_shell("nm " + busy + " | grep ' tagop_busy_spin$'");
  REQUIRE(nm.exit_code == 0);
  const std::uint64_t spin = std::stoull(nm.out.substr(0, nm.out.find(' ')), nullptr, 16);
  const std::string capture = temp("rounds.data");
  const std::uint64_t start = 0x560000000000;
  {
    PerfDataWriter w(capture,
                     {{.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {7}, .name = "cpu-clock"}});
    w.comm(10, 10, "busy", true, {.pid = 10, .tid = 10, .cpu = 0, .time = 100});
    w.comm(20, 20, "other", true, {.pid = 20, .tid = 20, .cpu = 1, .time = 100});
    w.sample(0, {.ip = start + spin + 4, .pid = 10, .tid = 10, .time = 1000, .cpu = 0, .period = 1000});
    for (std::uint64_t i = 0; i < 20000; ++i)
      w.sample(0, {.ip = 0x1000 + i % 64, .pid = 20, .tid = 20, .time = 1001 + i, .cpu = 1, .period = 1000});
    w.mmap2(10, 10, start, 0x400000, 0, busy, {}, {.pid = 10, .tid = 10, .cpu = 127, .time = 500});
    w.finished_round();
    // Two more rounds, the last larger than the queue holds once the
    // first round's samples have left it: it grows with samples waiting.
    std::uint64_t time = 30000;
    for (const std::uint64_t round : {12000, 40000}) {
      for (std::uint64_t i = 0; i < round; ++i)
        w.sample(0, {.ip = 0x1000, .pid = 20, .tid = 20, .time = time++, .cpu = 1, .period = 1000});
      w.finished_round();
    }
    w.finish();
  }
  const RunResult perf = run_shell("perf report -i " + capture + " --stdio -n --sort sym 2>/dev/null");
  if (perf.exit_code != 0) WARN("perf cannot read it here: only tagop's answer is checked");
  else CHECK(std::regex_search(perf.out, std::regex(R"(%\s+1\s+\[\.\] tagop_busy_spin)")));
  const json rows = report_json(capture, "")["rows"];
  bool named = false;
  std::uint64_t samples = 0;
  for (const json& row : rows) {
    if (row["name"] == "tagop_busy_spin") named = row["events"]["cpu-clock"]["samples"] == 1;
    samples += row["events"]["cpu-clock"]["samples"].get<std::uint64_t>();
  }
  CHECK(named);
  // Every sample written counted once: 1 + 20,000 + 12,000 + 40,000.
  CHECK(samples == 72001);
  fs::remove(capture);
}

namespace {

// A symbol table of mangled names, each function's full name demangled by
// the C++ runtime (as the ELF tables give them).
class MangledTable final : public tagop::report::SymbolTable {
 public:
  explicit MangledTable(std::vector<std::string> symbols) : symbols_(std::move(symbols)) {}
  void functions(std::span<const std::uint64_t>, std::span<std::uint32_t> out) const override {
    for (std::uint32_t& f : out) f = none;
  }
  std::string function_name(std::uint32_t f) const override { return "full:" + symbols_[f]; }
  std::string symbol_name(std::uint32_t f) const override { return symbols_[f]; }

 private:
  std::vector<std::string> symbols_;
};

}  // namespace

TEST_CASE("short_function_name: C++ names without parameter lists, as c++filt -p and perf report print them",
          "[report][symbols]") {
  const std::vector<std::string> mangled = {"_ZN2ns3BoxIlE4spinEl", "_Z4workd",          "_ZNK1VplERKS_",
                                            "_ZZ4mainENKUllE_clEl", "_Z5twiceIdET_S0_", "_ZNSt6chrono3_V212steady_clock3nowEv"};
  const MangledTable table(mangled);
  const RunResult filt = run_shell("c++filt -p " + [&] {
    std::string all;
    for (const std::string& m : mangled) all += " " + m;
    return all;
  }());
  if (filt.exit_code != 0) {
    WARN("no c++filt here: short names are not compared with it");
  } else {
    std::istringstream lines(filt.out);
    for (std::uint32_t f = 0; f < mangled.size(); ++f) {
      std::string expected;
      REQUIRE(std::getline(lines, expected));
      INFO(mangled[f]);
      CHECK(table.short_function_name(f) == expected);
    }
  }
  // By hand: a PLT stub's suffix kept, a C name and a name that does not
  // demangle left to function_name().
  // A crafted name whose templates each repeat the one before twice (its
  // template arguments are the name's, not parameters: 1.7 GB written
  // out; module_symbols_test.cpp says how it is built): left as it is.
  std::string bomb = "_Z1fI1A1PIS0_S0_E";
  for (int level = 0; level < 26; ++level) {
    std::string n;
    for (int i = level + 2;; i /= 36) {
      n.insert(n.begin(), "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[i % 36]);
      if (i < 36) break;
    }
    bomb += "S1_IS" + n + "_S" + n + "_E";
  }
  bomb += "EvT_";
  const MangledTable more({"_Z4workl@plt", "memcpy", "_Zgarbage", bomb});
  CHECK(more.short_function_name(0) == "work@plt");
  CHECK(more.short_function_name(1) == "full:memcpy");
  CHECK(more.short_function_name(2) == "full:_Zgarbage");
  CHECK(more.short_function_name(3) == "full:" + bomb);
}
