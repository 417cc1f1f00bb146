// DWARF unwinding of sampled user stacks (tagop/user_stack_unwind.hpp):
// the chains of `perf record --call-graph dwarf` samples of a program
// without frame pointers, compared sample by sample with perf script's;
// CFI from .debug_frame and from a separate debug file under --symfs; a
// sample made by hand (no perf needed) and damaged copies of it, which must
// give a reason and no crash.

#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <tagop/error.hpp>
#include <tagop/module_symbols.hpp>
#include <tagop/perf_data_reader.hpp>
#include <tagop/process_table.hpp>
#include <tagop/user_stack_unwind.hpp>

#include "run_command.hpp"
#include "splitmix.hpp"

namespace fs = std::filesystem;
using namespace tagop;

namespace {

// The test's files, removed at exit.
struct TempDir {
  fs::path path = fs::temp_directory_path() / fmt::format("tagop-unwind-test-{}", ::getpid());
  TempDir() { fs::create_directories(path); }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

std::string temp(const std::string& name) {
  static const TempDir dir;
  return (dir.path / name).string();
}

bool perf_can_record() {
  static const bool can = [] {
    const std::string file = temp("probe.data");
    const bool ok = run_shell("perf record -q -o " + file + " --call-graph dwarf -e cpu-clock -- true").exit_code == 0;
    fs::remove(file);
    return ok;
  }();
  return can;
}

std::string fixture(const char* variable) {
  const char* path = std::getenv(variable);
  REQUIRE(path);
  return path;
}

// Records `program` for `milliseconds` with DWARF call graphs, once per
// name (Catch runs a test case again for each of its sections).
std::string record(const std::string& program, const std::string& name, int milliseconds) {
  const std::string file = temp(name);
  if (fs::exists(file)) return file;
  const RunResult rec = run_shell(fmt::format("perf record -q -o {}.part --call-graph dwarf -e cpu-clock -- {} {}",
                                              file, program, milliseconds));
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);
  fs::rename(file + ".part", file);
  return file;
}

// A sample kept past the read: its user registers and stack copied.
struct Kept {
  std::uint32_t pid = 0, tid = 0;
  std::uint64_t time = 0;
  std::uint64_t abi = 0, mask = 0, dyn_size = 0;
  std::vector<std::byte> regs, stack;
  UserStack view() const { return {abi, mask, regs, stack, dyn_size}; }
};

struct Capture {
  ProcessTable table;
  std::vector<Kept> samples;
  std::string arch;
};

std::unique_ptr<Capture> read_capture(const std::string& path) {
  perf_data::PerfDataReader reader(path);
  auto c = std::make_unique<Capture>();
  c->arch = reader.info().arch;
  c->table.add_build_ids(reader.info().build_ids);
  struct Handler final : perf_data::RecordHandler {
    Capture* c = nullptr;
    void sample(const perf_data::SampleRecord& s) override {
      const UserStack u = UserStack::of(s);
      c->samples.push_back({s.id.pid, s.id.tid, s.id.time, u.regs_abi, u.regs_mask, u.stack_dyn_size,
                            {u.regs.begin(), u.regs.end()}, {u.stack.begin(), u.stack.end()}});
    }
    void mmap(const perf_data::MmapRecord& r) override { c->table.mmap(r); }
    void comm(const perf_data::CommRecord& r) override { c->table.comm(r); }
    void task(const perf_data::TaskRecord& r) override { c->table.task(r); }
  } h;
  h.c = c.get();
  reader.read(h);
  return c;
}

// Function names of user addresses, as perf names them: a return address
// by the call before it.
class Names {
 public:
  std::string of(const ProcessTable& table, std::uint32_t pid, std::uint64_t address, bool return_address) {
    if (return_address) --address;
    const Mapping* m = table.find(pid, address);
    if (!m) return "[unknown]";
    const std::string& file = table.modules()[m->module].filename;
    auto [it, added] = modules_.try_emplace(file);
    if (added) {
      try {
        it->second = ModuleSymbols::open(file);
      } catch (const Error&) {
      }
    }
    if (!it->second) return "[unknown]";
    const auto loc = it->second->lookup(m->file_offset(address));
    return loc && !loc->function.empty() ? loc->function : "[unknown]";
  }
  std::vector<std::string> of(const ProcessTable& table, std::uint32_t pid, const std::vector<std::uint64_t>& frames) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < frames.size(); ++i) out.push_back(of(table, pid, frames[i], i > 0));
    return out;
  }

 private:
  std::map<std::string, std::unique_ptr<ModuleSymbols>> modules_;
};

// perf script's user frames of each sample, by the sample's time in ns:
// each frame's address in its file (perf's map-relative ip: a return
// address less one, as libdw's callers are looked up) and name. The inline
// frames perf adds share their frame's address: one frame each.
struct PerfFrame {
  std::uint64_t address = 0;
  std::string name;
};
std::map<std::uint64_t, std::vector<PerfFrame>> perf_user_chains(const std::string& file) {
  const RunResult r = run_shell("perf script -i " + file + " -F time,ip,sym,dso --ns");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::map<std::uint64_t, std::vector<PerfFrame>> out;
  std::vector<PerfFrame>* current = nullptr;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line.front() != '\t') {  // "   36363.134881870: "
      const std::size_t dot = line.find('.'), colon = line.find(':');
      REQUIRE(dot != std::string::npos);
      REQUIRE(colon == dot + 10);
      const std::uint64_t ns = std::stoull(line.substr(0, dot)) * 1'000'000'000ull + std::stoull(line.substr(dot + 1, 9));
      current = &out[ns];
      continue;
    }
    REQUIRE(current);
    // "\t    1169 inner (/path/fixture)", "\t  27304 __libc_start_main_impl (inlined)"
    const std::size_t start = line.find_first_not_of(" \t"), space = line.find(' ', start), dso = line.rfind(" (");
    REQUIRE(space != std::string::npos);
    REQUIRE(dso != std::string::npos);
    if (line.substr(dso + 2) == "[kernel.kallsyms])") continue;
    const std::uint64_t address = std::stoull(line.substr(start, space - start), nullptr, 16);
    if (!current->empty() && current->back().address == address) continue;  // an inline frame's caller
    current->push_back({address, line.substr(space + 1, dso - space - 1)});
  }
  return out;
}

std::string joined(const std::vector<std::string>& names) { return fmt::format("{}", fmt::join(names, " <- ")); }

}  // namespace

namespace {

// Unwinds every sample of `program`'s capture and compares the chains with
// perf script's, frame by frame.
void compare_with_perf_script(const std::string& program, const std::string& name) {
  const std::string file = record(program, name, 120);
  const auto capture = read_capture(file);
  const auto perf = perf_user_chains(file);
  REQUIRE(UserStackUnwinder::supports(capture->arch));
  UserStackUnwinder unwinder({.arch = capture->arch});
  Names names;
  std::size_t compared = 0, same = 0, through_outer = 0;
  std::vector<std::string> differences;
  for (const Kept& s : capture->samples) {
    std::vector<std::uint64_t> frames;
    unwinder.unwind(capture->table, s.pid, s.tid, s.view(), 127, frames);
    const auto it = perf.find(s.time);
    if (it == perf.end()) continue;
    ++compared;
    const std::vector<std::string> ours = names.of(capture->table, s.pid, frames);
    // The frames as perf prints them: in-file addresses, callers' less one.
    std::vector<std::uint64_t> ours_in_file, perfs;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const Mapping* m = capture->table.find(s.pid, frames[i]);
      ours_in_file.push_back(m ? m->file_offset(frames[i]) - (i > 0 ? 1 : 0) : frames[i]);
    }
    std::vector<std::string> perf_names;
    for (const PerfFrame& f : it->second) {
      perfs.push_back(f.address);
      perf_names.push_back(f.name);
    }
    if (ours_in_file == perfs) ++same;
    else if (differences.size() < 5)
      differences.push_back(fmt::format("tagop {} [{:x}]\n perf {} [{:x}]", joined(ours), fmt::join(ours_in_file, " "),
                                        joined(perf_names), fmt::join(perfs, " ")));
    if (std::find(ours.begin(), ours.end(), "outer") != ours.end()) ++through_outer;
  }
  INFO(fmt::format("{} samples, {} compared, {} the same; first differences:\n{}", capture->samples.size(), compared,
                   same, fmt::join(differences, "\n")));
  REQUIRE(compared >= 20);
  CHECK(same >= compared * 95 / 100);
  // The fixture spends its time under outer(): without unwinding no chain
  // would name it (the frame-pointer chain stops at the ip).
  CHECK(through_outer >= compared * 80 / 100);
  // One process, one session, each file it maps reported once at most.
  std::size_t files = 0;
  for (const MappedModule& m : capture->table.modules()) files += !m.kernel;
  CHECK(unwinder.stats().sessions == 1);
  CHECK(unwinder.stats().modules <= files);
  CHECK(unwinder.stats().samples == capture->samples.size());
}

}  // namespace

TEST_CASE("user stacks unwound by their CFI give perf script's chains", "[unwind]") {
  if (!perf_can_record()) {
    WARN("perf cannot record --call-graph dwarf here: the comparison with perf script is not run");
    return;
  }
  compare_with_perf_script(fixture("TAGOP_DWARF_FIXTURE"), "eh_frame.data");
}

TEST_CASE("user stacks of a program linked by lld give perf script's chains", "[unwind]") {
  // lld packs the segments: the code's addresses are a page past its file
  // offsets, and its mapping's first page also holds the read-only data's end.
  const char* program = std::getenv("TAGOP_DWARF_LLD_FIXTURE");
  if (!program) {
    WARN("no lld here: the unwinding of an lld-linked program is not checked");
    return;
  }
  if (!perf_can_record()) {
    WARN("perf cannot record --call-graph dwarf here: the comparison with perf script is not run");
    return;
  }
  // What makes the case: the code segment's address is not its offset
  // ("LOAD 0x000900 0x0000000000001900 ... R E 0x1000").
  const RunResult headers = run_shell(fmt::format("readelf -lW {}", program));
  if (headers.exit_code == 0) {
    INFO(headers.out);
    bool moved = false;
    std::istringstream in(headers.out);
    for (std::string type, offset, vaddr, rest; in >> type;) {
      std::getline(in, rest);
      std::istringstream fields(rest);
      if (type == "LOAD" && fields >> offset >> vaddr && rest.find(" R E ") != std::string::npos)
        moved = std::stoull(offset, nullptr, 16) != std::stoull(vaddr, nullptr, 16);
    }
    REQUIRE(moved);
  }
  compare_with_perf_script(program, "lld.data");
}

TEST_CASE("user stacks unwind by .debug_frame and by a separate debug file under symfs", "[unwind]") {
  if (!perf_can_record()) {
    WARN("perf cannot record --call-graph dwarf here: the .debug_frame unwinding is not checked");
    return;
  }
  const std::string program = fixture("TAGOP_DWARF_DEBUG_FRAME_FIXTURE");
  const std::string file = record(program, "debug_frame.data", 120);
  const auto capture = read_capture(file);
  Names names;
  // The share of samples in inner() whose chain is inner <- middle <- outer
  // <- main, as the source says (perf's own unwinding loses these chains).
  const auto share = [&](UserStackUnwinder& unwinder) {
    std::size_t in_inner = 0, whole = 0;
    for (const Kept& s : capture->samples) {
      std::vector<std::uint64_t> frames;
      unwinder.unwind(capture->table, s.pid, s.tid, s.view(), 127, frames);
      const std::vector<std::string> ours = names.of(capture->table, s.pid, frames);
      if (ours.empty() || ours.front() != "inner") continue;
      ++in_inner;
      whole += ours.size() >= 4 && ours[1] == "middle" && ours[2] == "outer" && ours[3] == "main";
    }
    REQUIRE(in_inner >= 20);
    return static_cast<double>(whole) / static_cast<double>(in_inner);
  };
  SECTION("the program's own .debug_frame") {
    UserStackUnwinder unwinder({.search = {.build_id_dir = ""}, .arch = capture->arch});
    CHECK(share(unwinder) >= 0.95);
  }
  SECTION("a stripped copy under symfs: its debug file has the CFI") {
    const RunResult have = run_shell("command -v objcopy");
    if (have.exit_code != 0) {
      WARN("no objcopy here: the separate debug file is not checked");
      return;
    }
    const std::string symfs = temp("symfs");
    fs::create_directories(symfs + fs::path(program).parent_path().string());
    fs::create_directories(symfs + "/usr/lib/debug" + fs::path(program).parent_path().string());
    const std::string stripped = symfs + program, debug = symfs + "/usr/lib/debug" + program + ".debug";
    REQUIRE(run_shell(fmt::format("objcopy --strip-debug {} {}", program, stripped)).exit_code == 0);
    {
      // Without its debug file the copy has no CFI for inner(): no caller.
      UserStackUnwinder unwinder({.search = {.symfs = symfs, .build_id_dir = ""}, .arch = capture->arch});
      CHECK(share(unwinder) <= 0.05);
    }
    REQUIRE(run_shell(fmt::format("objcopy --only-keep-debug {} {}", program, debug)).exit_code == 0);
    UserStackUnwinder unwinder({.search = {.symfs = symfs, .build_id_dir = ""}, .arch = capture->arch});
    CHECK(share(unwinder) >= 0.95);
  }
}

namespace {

// The address of a function in a program, by nm; 0 without nm.
std::uint64_t function_address(const std::string& program, const std::string& name) {
  const RunResult r = run_shell("nm " + program);
  if (r.exit_code != 0) return 0;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (line.ends_with(" T " + name)) return std::stoull(line.substr(0, line.find(' ')), nullptr, 16);
  return 0;
}

}  // namespace

TEST_CASE("a sample made by hand unwinds from the stack copy", "[unwind]") {
  // The fixture mapped at a base of our choosing, the ip inside inner(): a
  // leaf that never moves its stack pointer (no push, no call), so its
  // caller's address is the word at the stack pointer, the first of the copy.
  const std::string program = fixture("TAGOP_DWARF_FIXTURE");
  const std::uint64_t inner = function_address(program, "inner"), middle = function_address(program, "middle");
  if (!inner || !middle) {
    WARN("no nm here, or no symbols in the fixture: the sample made by hand is not checked");
    return;
  }
  const std::uint64_t base = 0x555555554000, ip = base + inner + 4, caller = base + middle + 5, sp = 0x7ffd12340000;
  ProcessTable table;
  perf_data::MmapRecord m;
  m.pid = m.tid = 42;
  m.start = base;
  m.len = 0x10000;
  m.filename = program;
  m.misc = perf_data::misc_user;
  table.mmap(m);
  Kept good;
  good.pid = good.tid = 42;
  good.abi = PERF_SAMPLE_REGS_ABI_64;
  good.mask = x86_64_user_regs_mask;
  good.regs.resize(20 * 8);
  std::memcpy(good.regs.data() + 8 * 8, &ip, 8);  // IP: bit 8, the 9th value
  std::memcpy(good.regs.data() + 7 * 8, &sp, 8);  // SP: bit 7
  good.stack.resize(512);
  std::memcpy(good.stack.data(), &caller, 8);
  good.dyn_size = good.stack.size();

  UserStackUnwinder unwinder({.search = {.build_id_dir = ""}, .arch = "x86_64"});
  const auto unwind = [&](const Kept& k, std::vector<std::uint64_t>& frames, std::size_t max = 127) {
    return unwinder.unwind(table, k.pid, k.tid, k.view(), max, frames);
  };
  std::vector<std::uint64_t> frames;
  INFO(unwind(good, frames));
  REQUIRE(frames.size() >= 2);
  CHECK(frames[0] == ip);
  CHECK(frames[1] == caller);
  frames.clear();

  SECTION("no registers") {
    Kept k = good;
    k.abi = 0;
    k.regs.clear();
    CHECK(unwind(k, frames).find("no user registers") != std::string::npos);
    CHECK(frames.empty());
  }
  SECTION("fewer registers than the mask says") {
    Kept k = good;
    k.regs.resize(k.regs.size() - 8);
    CHECK(unwind(k, frames).find("bytes of user registers") != std::string::npos);
    CHECK(frames.empty());
  }
  SECTION("no stack pointer among them") {
    Kept k = good;
    k.mask &= ~(std::uint64_t{1} << 7);
    k.regs.erase(k.regs.begin() + 7 * 8, k.regs.begin() + 8 * 8);
    CHECK(unwind(k, frames).find("stack pointer") != std::string::npos);
    CHECK(frames.empty());
  }
  SECTION("a stack copy whose size field lies") {
    Kept k = good;
    k.dyn_size = k.stack.size() + 8;
    CHECK(unwind(k, frames).find("more than its") != std::string::npos);
    CHECK(frames.empty());
  }
  SECTION("a 32-bit process, another architecture") {
    Kept k = good;
    k.abi = 1;
    CHECK(unwind(k, frames).find("32-bit") != std::string::npos);
    UserStackUnwinder arm({.arch = "aarch64"});
    CHECK_FALSE(UserStackUnwinder::supports("aarch64"));
    CHECK(arm.unwind(table, good.pid, good.tid, good.view(), 127, frames).find("aarch64") !=
          std::string::npos);
    CHECK(frames.empty());
  }
  SECTION("a stack pointer outside the copy, garbage in the copy, an ip in no file") {
    Kept k = good;
    for (const std::uint64_t bad_sp : {std::uint64_t{0}, sp - 4096, sp + (1u << 20), ~std::uint64_t{0} - 3}) {
      std::memcpy(k.regs.data() + 7 * 8, &bad_sp, 8);
      frames.clear();
      unwind(k, frames);
      REQUIRE_FALSE(frames.empty());
      CHECK(frames.front() == ip);
      CHECK(frames.size() <= 127);
    }
    k = good;
    std::uint64_t state = 7;
    for (int round = 0; round < 20; ++round) {
      for (std::size_t i = 0; i + 8 <= k.stack.size(); i += 8) {
        const std::uint64_t v = splitmix(state);
        std::memcpy(k.stack.data() + i, &v, 8);
      }
      frames.clear();
      unwind(k, frames);
      REQUIRE_FALSE(frames.empty());
      CHECK(frames.front() == ip);
      CHECK(frames.size() <= 127);
    }
    k = good;
    const std::uint64_t nowhere = 0x10;
    std::memcpy(k.regs.data() + 8 * 8, &nowhere, 8);
    frames.clear();
    CHECK(unwind(k, frames).find("no mapped file") != std::string::npos);
    CHECK(frames == std::vector<std::uint64_t>{nowhere});
  }
  SECTION("at most max_frames") {
    CHECK(unwind(good, frames, 2).empty());
    CHECK(frames.size() == 2);
    frames.clear();
    CHECK(unwind(good, frames, 0).empty());
    CHECK(frames.empty());
  }
}
