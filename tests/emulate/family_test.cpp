// A program's whole family under tagop's own Valgrind tool: a forked child,
// an exec'd program and threads each counted on their own, checked against
// Valgrind's Cachegrind run on the same command with --trace-children=yes
// (one cachegrind.out file per process, its "summary:" line the process's
// counts of the events its "events:" line names: Ir, and with the cache
// and branch simulations I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim).
// Cachegrind counts a process's events whatever tagop does, so the two
// agree only if tagop splits the family's trace by process as the
// processes ran, and gives each process its own caches and predictor.

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <tagop/emulate/emulator.hpp>
#include <tagop/emulate/microarchitecture.hpp>
#include <tagop/emulate/tool_trace.hpp>
#include <tagop/emulate/valgrind_tool.hpp>

#include "../run_command.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tagop::emulate;

std::string program(const char* name) {
  const char* path = std::getenv(name);
  if (!path) throw std::runtime_error(std::string(name) + " is not set: run the tests with 'meson test'");
  return path;
}

struct Folder {
  fs::path path;
  explicit Folder(const std::string& name)
      : path(fs::temp_directory_path() / ("tagop-family-" + std::to_string(::getpid()) + "-" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
};

struct CachegrindProcess {
  std::string cmd;
  std::uint64_t instructions = 0;
  std::map<std::string, std::uint64_t> events;  ///< the summary, by Cachegrind's event name
};

// Cachegrind's options for the geometry of `model`'s L1I, L1D and last
// level (its L3, else its L2), its cache and branch simulations on.
std::vector<std::string> simulating(const MicroarchSpec& model) {
  auto cache = [](const char* option, const CacheSpec& c) {
    return fmt::format("--{}={},{},{}", option, c.size, c.ways, c.line);
  };
  return {"--cache-sim=yes", "--branch-sim=yes", "--vex-guest-chase=no", cache("I1", model.l1i), cache("D1", model.l1d),
          cache("LL", model.l3.size ? model.l3 : model.l2)};
}

// Cachegrind's count of each process of `command`'s family. Run as tagop
// runs Valgrind (no shell between, the same environment, VALGRIND_LIB a
// folder of the same name length): the dynamic linker's start-up work
// depends on the environment and LD_PRELOAD (Valgrind's core preload, from
// that folder), so only a like run counts exactly the same instructions.
// `simulations`: Cachegrind's options for them (default: none, Ir alone).
std::vector<CachegrindProcess> cachegrind(const std::vector<std::string>& command, const fs::path& folder,
                                          const std::vector<std::string>& simulations = {"--cache-sim=no"}) {
  const ValgrindToolDir tool_dir(valgrind_tool_path(), valgrind_core_folder("valgrind"));
  for (const fs::directory_entry& f : fs::directory_iterator(folder))
    if (f.path().filename().string().starts_with("cg.")) fs::remove(f.path());
  std::vector<std::string> args{"valgrind", "-q", "--tool=cachegrind", "--trace-children=yes",
                                "--cachegrind-out-file=" + (folder / "cg.%p").string()};
  args.insert(args.end(), simulations.begin(), simulations.end());
  args.insert(args.end(), command.begin(), command.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::setenv("VALGRIND_LIB", tool_dir.path().c_str(), 1);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::vector<CachegrindProcess> out;
  for (const fs::directory_entry& f : fs::directory_iterator(folder)) {
    if (!f.path().filename().string().starts_with("cg.")) continue;
    std::ifstream in(f.path());
    CachegrindProcess p;
    std::vector<std::string> names;
    for (std::string line; std::getline(in, line);) {
      if (line.starts_with("cmd: ")) p.cmd = line.substr(5);
      if (line.starts_with("events: ")) {
        std::istringstream words(line.substr(8));
        for (std::string w; words >> w;) names.push_back(w);
      }
      if (line.starts_with("summary: ")) {
        std::istringstream numbers(line.substr(9));
        for (const std::string& name : names) numbers >> p.events[name];
        p.instructions = p.events["Ir"];
      }
    }
    out.push_back(p);
  }
  return out;
}

// `tagop emulate --as zen3 [--as MORE]... --exact-cachegrind`: the caches
// and the predictor as Cachegrind's, REP MOVS/STOS an op per iteration.
EmulateResult emulate_zen3(const std::vector<std::string>& command, const fs::path& capture,
                           std::vector<const MicroarchSpec*> more = {}) {
  EmulateOptions o;
  o.models = {find_microarchitecture("zen3")};
  o.models.insert(o.models.end(), more.begin(), more.end());
  o.period = 256;
  o.output = capture.string();
  o.command = command;
  o.cache = {.prefetchers = false, .victim_l3 = false, .cachegrind_branches = true};
  o.fast_strings = false;
  o.valgrind_options = {"--vex-guest-chase=no"};
  return emulate(o);
}

// Model `m`'s counts of a process in Cachegrind's event names.
std::map<std::string, std::uint64_t> cachegrind_events(const CoreCounts& c) {
  return {{"Ir", c.instructions},          {"I1mr", c.i1_misses},
          {"ILmr", c.il_misses},           {"Dr", c.data_reads},
          {"D1mr", c.d1_read_misses},      {"DLmr", c.ll_read_misses},
          {"Dw", c.data_writes},           {"D1mw", c.d1_write_misses},
          {"DLmw", c.ll_write_misses},     {"Bc", c.conditional_branches},
          {"Bcm", c.conditional_mispredicts}, {"Bi", c.indirect_branches},
          {"Bim", c.indirect_mispredicts}};
}

// Each process's (its last program's) counts under model `index` of `r`
// equal those of the Cachegrind file with its instruction count.
void check_counts(const EmulateResult& r, std::size_t index, const std::vector<CachegrindProcess>& cg) {
  for (std::size_t i = 0; i < r.processes.size(); ++i) {
    bool replaced = false;
    for (std::size_t k = i + 1; k < r.processes.size(); ++k) replaced |= r.processes[k].pid == r.processes[i].pid;
    if (replaced) continue;
    const ProcessResult& p = r.processes[i];
    INFO("pid " << p.pid << " " << p.program << ", model " << r.models.at(index).spec->name);
    REQUIRE(p.models.size() == r.models.size());
    const auto file = std::find_if(cg.begin(), cg.end(), [&](const CachegrindProcess& c) {
      return c.instructions == p.instructions;
    });
    REQUIRE(file != cg.end());
    // The events that differ, each "name: ours (Cachegrind's)": none. Bc
    // among them: the conditional exits that VEX's optimiser removed before
    // Cachegrind saw them (the start-up's `mov $52,%ecx; rep stosq` in ld.so
    // begins its first run without the exit on rcx == 0) are left out as
    // the tool's trace says (TraceInstruction::valgrind_exits).
    std::string differ;
    const auto ours = cachegrind_events(p.models[index]);
    for (const auto& [name, count] : file->events) {
      const auto it = ours.find(name);
      const std::uint64_t n = it == ours.end() ? 0 : it->second;
      if (n != count) differ += fmt::format("{}: {} ({}) ", name, n, count);
    }
    INFO(differ);
    CHECK(differ.empty());
    CHECK(file->events.size() == ours.size());
  }
}

// What each process ran last: Cachegrind writes its file when a process
// exits, so an exec'd program's file is the only one of its pid.
std::vector<std::uint64_t> last_programs(const EmulateResult& r) {
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < r.processes.size(); ++i) {
    bool replaced = false;
    for (std::size_t k = i + 1; k < r.processes.size(); ++k) replaced |= r.processes[k].pid == r.processes[i].pid;
    if (!replaced) out.push_back(r.processes[i].instructions);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint64_t> counts(const std::vector<CachegrindProcess>& cg) {
  std::vector<std::uint64_t> out;
  for (const CachegrindProcess& p : cg) out.push_back(p.instructions);
  std::sort(out.begin(), out.end());
  return out;
}

// The rows of `tagop report CAPTURE --by WHAT`, by name.
nlohmann::json report_rows(const fs::path& capture, const std::string& by) {
  const RunResult r = run_tagop("report " + capture.string() + " --json --top 0 --by " + by);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out)["rows"];
}

}  // namespace

TEST_CASE("tagop's Valgrind tool is built and found", "[emulate][family]") {
  REQUIRE_FALSE(valgrind_tool_path().empty());
  REQUIRE_FALSE(valgrind_core_folder("valgrind").empty());
}

TEST_CASE("a forked child is its own process with Cachegrind's count", "[emulate][family]") {
  Folder folder("fork");
  // Each part a different size: 1000 turns before the fork, 30000 in the
  // child, 100000 in the parent after it.
  const std::vector<std::string> command{program("TAGOP_EMULATE_FAMILY_FORK"), "1000", "30000", "100000"};
  const MicroarchSpec& zen3 = *find_microarchitecture("zen3");
  const MicroarchSpec& goldmont = *find_microarchitecture("goldmont");
  const std::vector<CachegrindProcess> cg = cachegrind(command, folder.path, simulating(zen3));
  REQUIRE(cg.size() == 2);
  const std::vector<CachegrindProcess> cg_goldmont = cachegrind(command, folder.path, simulating(goldmont));
  const EmulateResult r = emulate_zen3(command, folder.path / "fork.data", {&goldmont});
  REQUIRE(r.engine.find("--tool=tagop") != std::string::npos);
  REQUIRE(r.processes.size() == 2);
  const ProcessResult& parent = r.processes[0];
  const ProcessResult& child = r.processes[1];
  CHECK_FALSE(parent.forked);
  CHECK(child.forked);
  CHECK(child.ppid == parent.pid);
  CHECK(child.pid != parent.pid);
  // The child's count goes on from its parent's at the fork, as Cachegrind's does.
  CHECK(child.inherited > 0);
  CHECK(child.inherited < parent.instructions);
  CHECK(last_programs(r) == counts(cg));
  CHECK(r.instructions == parent.instructions + child.instructions - child.inherited);
  // Each process's own misses and mispredicts, Cachegrind's: zen3's last
  // level is its L3 (32 MiB), which Cachegrind's LL stands for; goldmont's
  // its L2, which Cachegrind's LL is exactly (every L1 miss looks there).
  // zen3's L2 sees only the L1 misses, its L3 only the L2 misses: on a
  // program that never fills the 512 KiB L2 every miss below the L1 is a
  // first touch, so the L3 misses are Cachegrind's LL misses here too.
  check_counts(r, 0, cg);
  check_counts(r, 1, cg_goldmont);
  // The samples carry each process's pid: two rows by process.
  const nlohmann::json rows = report_rows(r.models[0].capture, "process");
  CHECK(rows.size() == 2);
}

TEST_CASE("an exec'd program is followed with Cachegrind's count", "[emulate][family]") {
  Folder folder("exec");
  const std::string chase = program("TAGOP_EMULATE_POINTER_CHASE");
  const std::vector<std::string> command{"sh", "-c", chase + " 8192 3000"};
  const std::vector<CachegrindProcess> cg = cachegrind(command, folder.path, simulating(*find_microarchitecture("zen3")));
  const auto ran_chase = std::count_if(cg.begin(), cg.end(), [&](const CachegrindProcess& p) { return p.cmd.starts_with(chase); });
  REQUIRE(ran_chase == 1);
  const EmulateResult r = emulate_zen3(command, folder.path / "exec.data");
  // The shell, then the chase in its place (or in a child of it, as the shell chooses).
  const auto chase_image = std::find_if(r.processes.begin(), r.processes.end(),
                                        [&](const ProcessResult& p) { return p.program == chase; });
  REQUIRE(chase_image != r.processes.end());
  CHECK(r.processes.front().program.find("sh") != std::string::npos);
  CHECK(last_programs(r) == counts(cg));
  for (const CachegrindProcess& p : cg)
    if (p.cmd.starts_with(chase)) CHECK(chase_image->instructions == p.instructions);
  // The exec'd program starts with cold caches and a fresh predictor, as
  // Cachegrind's new process does.
  check_counts(r, 0, cg);
}

TEST_CASE("a REP string whose count its superblock set is Cachegrind's count", "[emulate][family]") {
  // `mov $4096,%ecx; rep stosb` in one superblock: VEX's optimiser folds
  // the first run's exit on rcx == 0 away, and Cachegrind counts 4096
  // conditional branches at the rep for its 4097 runs, not 4097.
  Folder folder("fixed");
  const std::vector<std::string> command{program("TAGOP_EMULATE_STRING_OPS"), "stos-fixed"};
  const std::vector<CachegrindProcess> cg = cachegrind(command, folder.path, simulating(*find_microarchitecture("zen3")));
  REQUIRE(cg.size() == 1);
  const EmulateResult r = emulate_zen3(command, folder.path / "fixed.data");
  REQUIRE(r.processes.size() == 1);
  check_counts(r, 0, cg);
}

TEST_CASE("threads are counted and sampled each under its own tid", "[emulate][family]") {
  Folder folder("threads");
  const std::string tids_file = (folder.path / "tids").string();
  const std::vector<std::string> command{program("TAGOP_EMULATE_FAMILY_THREADS"), "3", "20000", tids_file};
  const std::vector<CachegrindProcess> cg = cachegrind(command, folder.path, {"--cache-sim=no", "--vex-guest-chase=no"});
  REQUIRE(cg.size() == 1);
  const EmulateResult r = emulate_zen3(command, folder.path / "threads.data");
  REQUIRE(r.processes.size() == 1);
  const ProcessResult& p = r.processes[0];
  // Not exactly: how long a thread's join waits (and so the instructions
  // of the wait) changes from run to run: Cachegrind's own counts of this
  // program differ by about a hundred between runs on a quiet machine, by
  // some five hundred (0.02%) on a loaded one under the sanitisers.
  CHECK(static_cast<double>(p.instructions) == Approx(static_cast<double>(cg[0].instructions)).epsilon(1e-3));
  // The main thread and three more, whose ids the program wrote itself.
  REQUIRE(p.threads.size() == 4);
  std::set<std::uint32_t> written;
  std::ifstream in(tids_file);
  for (std::uint32_t tid; in >> tid;) written.insert(tid);
  REQUIRE(written.size() == 3);
  std::uint64_t sum = 0;
  std::vector<std::uint64_t> workers;
  for (const ThreadResult& t : p.threads) {
    sum += t.instructions;
    if (t.tid == p.pid) continue;
    CHECK(written.contains(t.tid));
    workers.push_back(t.instructions);
  }
  CHECK(sum == p.instructions);
  // Thread k does k times the turns: three counts about one step of turns
  // apart each (a thread's start and exit take a few thousand instructions
  // more or less from run to run, as the threads happen to wait).
  REQUIRE(workers.size() == 3);
  std::sort(workers.begin(), workers.end());
  CHECK(workers[0] < workers[1]);
  CHECK(workers[1] < workers[2]);
  CHECK(static_cast<double>(workers[2] - workers[1]) == Approx(static_cast<double>(workers[1] - workers[0])).epsilon(0.1));
  // Samples under four tids.
  // Each thread's counts are what the process's core counted while it ran:
  // they add up to the process's (a process of its own, nothing inherited),
  // and the workers' reads step as their turns do, as their instructions.
  REQUIRE(p.models.size() == 1);
  CoreCounts total;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> worker_reads;  // instructions, reads
  for (const ThreadResult& t : p.threads) {
    REQUIRE(t.models.size() == 1);
    total += t.models[0];
    if (t.tid != p.pid) worker_reads.emplace_back(t.instructions, t.models[0].data_reads);
  }
  CHECK(cachegrind_events(total) == cachegrind_events(p.models[0]));
  std::sort(worker_reads.begin(), worker_reads.end());
  REQUIRE(worker_reads.size() == 3);
  CHECK(worker_reads[0].second < worker_reads[1].second);
  CHECK(worker_reads[1].second < worker_reads[2].second);
  CHECK(static_cast<double>(worker_reads[2].second - worker_reads[1].second) ==
        Approx(static_cast<double>(worker_reads[1].second - worker_reads[0].second)).epsilon(0.1));
  const nlohmann::json rows = report_rows(folder.path / "threads.data", "thread");
  CHECK(rows.size() == 4);
}

namespace {

// Frames written by hand from the format in tool_trace.hpp.
struct FrameWriter {
  std::string bytes;
  template <typename T>
  void put(T v) {
    bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void header(std::uint32_t pid, std::uint32_t tid) {
    put<std::uint32_t>(ToolTraceParser::magic);
    put<std::uint32_t>(0);  // the length, filled by end()
    put(pid);
    put(tid);
  }
  void instruction(std::uint64_t ip, std::uint8_t size) {
    put('I');
    put(size);
    put(ip);
  }
  void load(std::uint64_t address, std::uint16_t size) {
    put('L');
    put(size);
    put(address);
  }
  void thread(std::uint32_t tid) {
    put('T');
    put(tid);
  }
  void fork(std::uint32_t child) {
    put('F');
    put(child);
  }
  std::string end() {
    const auto n = static_cast<std::uint32_t>(bytes.size());
    std::memcpy(bytes.data() + 4, &n, 4);
    return std::exchange(bytes, {});
  }
};

struct Seen : ToolTraceSink {
  std::vector<std::string> events;
  void program(std::uint32_t pid, std::uint32_t, const std::string& path) override {
    events.push_back(fmt::format("program {} {}", pid, path));
  }
  void forked(std::uint32_t parent, std::uint32_t child) override {
    events.push_back(fmt::format("fork {} {}", parent, child));
  }
  void mapping(std::uint32_t pid, const CodeMapping& m) override {
    events.push_back(fmt::format("map {} {:x}", pid, m.start));
  }
  void instruction(std::uint32_t pid, std::uint32_t tid, const TraceInstruction& i) override {
    events.push_back(fmt::format("ins {} {} {:x} next {:x} accesses {}", pid, tid, i.ip, i.next_ip, i.access_count));
  }
};

}  // namespace

TEST_CASE("the tool trace parser follows each thread and holds a child until its fork", "[emulate][family]") {
  FrameWriter w;
  // Process 10: thread 10 runs two instructions, thread 11 one, then 10 again.
  w.header(10, 10);
  w.instruction(0x1000, 2);
  w.load(0x8000, 8);
  w.instruction(0x1002, 5);
  w.thread(11);
  w.instruction(0x2000, 3);
  w.thread(10);
  w.instruction(0x1010, 1);
  const std::string first = w.end();
  // The child 20's frame arrives before its parent's fork record.
  w.header(20, 20);
  w.instruction(0x1011, 1);
  const std::string child = w.end();
  w.header(10, 10);
  w.fork(20);
  w.instruction(0x1011, 1);
  const std::string fork = w.end();
  const std::string stream = first + child + fork;

  Seen seen;
  ToolTraceParser parser(10);
  // Fed a few bytes at a time: frames cut anywhere.
  for (std::size_t at = 0; at < stream.size(); at += 7)
    parser.feed(std::span<const char>(stream.data() + at, std::min<std::size_t>(7, stream.size() - at)), seen);
  parser.finish(seen);
  const std::vector<std::string> expected{
      "ins 10 10 1000 next 1002 accesses 1",
      "ins 10 10 1002 next 1010 accesses 0",  // where thread 10 went next, not thread 11
      "ins 10 10 1010 next 1011 accesses 0",  // the fork: it returns to the next instruction
      "fork 10 20",
      "ins 10 10 1011 next 0 accesses 0",     // the end: each thread's last, by pid and tid
      "ins 10 11 2000 next 0 accesses 0",
      "ins 20 20 1011 next 0 accesses 0",
  };
  // The child's instruction is handed on only at the end (its next one is unknown),
  // after its parent's fork.
  CHECK(seen.events == expected);
  CHECK(parser.instructions() == 6);
  CHECK(parser.bad_frames() == 0);
}

TEST_CASE("the tool trace's instruction record carries the exits its translation kept", "[emulate][family]") {
  // The size byte: the size in the low 5 bits, the conditional exits of
  // the instruction's translation in the top 3 (tool_trace.hpp).
  struct Kept : ToolTraceSink {
    std::vector<std::string> events;
    void program(std::uint32_t, std::uint32_t, const std::string&) override {}
    void forked(std::uint32_t, std::uint32_t) override {}
    void mapping(std::uint32_t, const CodeMapping&) override {}
    void instruction(std::uint32_t, std::uint32_t, const TraceInstruction& i) override {
      events.push_back(fmt::format("{:x} size {} exits {}", i.ip, i.size, i.valgrind_exits));
    }
  } kept;
  FrameWriter w;
  w.header(10, 10);
  w.instruction(0x1000, 0x0f);             // 15 bytes, no exit (a move)
  w.instruction(0x100f, 0x02 | 1 << 5);    // 2 bytes, 1 exit (a jcc)
  w.instruction(0x1011, 0x03 | 2 << 5);    // 3 bytes, 2 exits (a repe cmpsb)
  const std::string frame = w.end();
  ToolTraceParser parser(10);
  parser.feed(std::span<const char>(frame.data(), frame.size()), kept);
  parser.finish(kept);
  const std::vector<std::string> expected{"1000 size 15 exits 0", "100f size 2 exits 1", "1011 size 3 exits 2"};
  CHECK(kept.events == expected);
}
