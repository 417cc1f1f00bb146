// Call chains through the range API and addresses named by the
// Symbolizer, on captures written here with known chains and mappings:
// the expected frames and names are set by construction (the chains by
// hand; the probe's file offset from this process's own /proc/self/maps,
// not from the symbol reader under test).

#include <catch2/catch.hpp>

#include <linux/perf_event.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <tagop/call_chain.hpp>
#include <tagop/perf_data_reader.hpp>
#include <tagop/perf_data_writer.hpp>
#include <tagop/report/symbolizer.hpp>
#include <tagop/samples_range.hpp>

#include "software_event_attr.hpp"

namespace fs = std::filesystem;
namespace perf_data = tagop::perf_data;
using tagop::ChainFrame;
using tagop::FrameContext;

extern "C" [[gnu::noinline]] int tagop_symbolizer_probe(int x) { return x * 3 + 1; }

namespace {

constexpr std::uint64_t kernel_marker = static_cast<std::uint64_t>(PERF_CONTEXT_KERNEL);
constexpr std::uint64_t user_marker = static_cast<std::uint64_t>(PERF_CONTEXT_USER);

struct TempFile {
  fs::path path = fs::temp_directory_path() / ("tagop_chains_" + std::to_string(::getpid()) + ".data");
  ~TempFile() { fs::remove(path); }
};

perf_event_attr chain_attr() {
  perf_event_attr a = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000);
  a.sample_type |= PERF_SAMPLE_CALLCHAIN;
  return a;
}

// The record's own fields: what a tool writer's decoder for a software event does.
bool record_fields(const perf_data::SampleRecord& r, tagop::Sample& s) {
  s.ip = r.ip;
  s.pid = r.id.pid;
  s.tid = r.id.tid;
  s.time = r.id.time;
  return true;
}

// The file offset of this process's code at `address`, from /proc/self/maps.
std::uint64_t own_file_offset(std::uintptr_t address) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::uintptr_t start = 0, end = 0, pgoff = 0;
    char dash = 0;
    std::string perms;
    fields >> std::hex >> start >> dash >> end >> perms >> pgoff;
    if (address >= start && address < end) return address - start + pgoff;
  }
  FAIL("the probe is in no mapping of /proc/self/maps");
  return 0;
}

}  // namespace

TEST_CASE("a sample's chain has its frames without the context markers, each with its context", "[callchain]") {
  TempFile file;
  // A kernel frame then user frames; a chain without markers takes its
  // context from the sample's cpumode; a sample without a chain has none.
  const std::vector<std::uint64_t> mixed = {kernel_marker, 0xffffffff81000010, 0xffffffff81000020,
                                            user_marker,   0x401010,           0x401020};
  const std::vector<std::uint64_t> bare = {0x402000, 0x402100};
  const std::vector<std::uint64_t> markers_only = {kernel_marker, user_marker};
  {
    perf_data::PerfDataWriter w(file.path.string(), {{.attr = chain_attr(), .ids = {1}, .name = "cpu-clock"}});
    w.comm(7, 7, "chains", true, {.pid = 7, .tid = 7});
    w.sample(0, {.ip = 0xffffffff81000010, .pid = 7, .tid = 7, .time = 10, .callchain = mixed,
                 .misc = perf_data::misc_kernel});
    w.sample(0, {.ip = 0x402000, .pid = 7, .tid = 7, .time = 20, .callchain = bare});
    w.sample(0, {.ip = 0x403000, .pid = 7, .tid = 7, .time = 30, .callchain = markers_only});
    w.sample(0, {.ip = 0x404000, .pid = 7, .tid = 7, .time = 40});
    w.finish();
  }
  perf_data::PerfDataReader reader(file.path.string());
  std::vector<std::vector<ChainFrame>> chains;
  std::vector<std::uint64_t> ips;
  for (const tagop::Sample& s : tagop::samples(reader, record_fields)) {
    chains.emplace_back(s.chain.begin(), s.chain.end());  // copied: the span lives until the next ++
    ips.push_back(s.ip);
  }
  REQUIRE(chains.size() == 4);
  CHECK(chains[0] == std::vector<ChainFrame>{{0xffffffff81000010, FrameContext::kernel},
                                             {0xffffffff81000020, FrameContext::kernel},
                                             {0x401010, FrameContext::user},
                                             {0x401020, FrameContext::user}});
  CHECK(chains[0].front().address == ips[0]);  // the ip first, as the kernel writes it
  CHECK(chains[1] == std::vector<ChainFrame>{{0x402000, FrameContext::user}, {0x402100, FrameContext::user}});
  CHECK(chains[2].empty());
  CHECK(chains[3].empty());
}

TEST_CASE("chains stay right across the range's batches", "[callchain]") {
  TempFile file;
  // More samples than a batch holds (4096), each chain of its own length.
  constexpr std::uint64_t count = 10000;
  {
    perf_data::PerfDataWriter w(file.path.string(), {{.attr = chain_attr(), .ids = {1}, .name = "cpu-clock"}});
    for (std::uint64_t i = 0; i < count; ++i) {
      std::vector<std::uint64_t> chain = {user_marker};
      for (std::uint64_t f = 0; f <= i % 5; ++f) chain.push_back(0x400000 + i * 16 + f);
      w.sample(0, {.ip = 0x400000 + i * 16, .pid = 1, .tid = 1, .time = i, .callchain = chain});
    }
    w.finish();
  }
  perf_data::PerfDataReader reader(file.path.string());
  std::uint64_t seen = 0, wrong = 0;
  for (const tagop::Sample& s : tagop::samples(reader, record_fields)) {
    const std::uint64_t i = seen++;
    bool right = s.chain.size() == i % 5 + 1;
    for (std::size_t f = 0; right && f < s.chain.size(); ++f)
      right = s.chain[f] == ChainFrame{0x400000 + i * 16 + f, FrameContext::user};
    wrong += !right;
  }
  CHECK(seen == count);
  CHECK(wrong == 0);
}

TEST_CASE("the symbolizer names an address by the module mapped there at that time", "[callchain][symbols]") {
  TempFile file;
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  int (*volatile probe)(int) = &tagop_symbolizer_probe;
  const std::uint64_t probe_offset = own_file_offset(reinterpret_cast<std::uintptr_t>(probe));
  // This executable mapped whole at a chosen address in process 9 at time
  // 100; process 9 exists (its COMM) from time 50.
  constexpr std::uint64_t base = 0x10000000;
  const std::uint64_t size = fs::file_size(self);
  {
    perf_data::PerfDataWriter w(file.path.string(), {{.attr = chain_attr(), .ids = {1}, .name = "cpu-clock"}});
    w.comm(9, 9, "prober", true, {.pid = 9, .tid = 9, .time = 50});
    w.mmap2(9, 9, base, size, 0, self, {}, {.pid = 9, .tid = 9, .time = 100});
    w.finish();
  }
  perf_data::PerfDataReader reader(file.path.string());
  tagop::report::Symbolizer symbolizer(reader);

  const tagop::report::Frame at_start = symbolizer.name(9, base + probe_offset, 200);
  CHECK(at_start.mapped);
  CHECK(at_start.module == self);
  CHECK(at_start.module_offset == probe_offset);
  CHECK(at_start.function == "tagop_symbolizer_probe");
  CHECK(at_start.function_offset == 0);
  CHECK(symbolizer.comm(9, 200) == "prober");
  // Debug builds have the line: the probe's definition is in this file.
  if (!at_start.file.empty()) CHECK(fs::path(at_start.file).filename() == "call_chains_test.cpp");

  const tagop::report::Frame inside = symbolizer.name(9, base + probe_offset + 3, 200);
  CHECK(inside.function == "tagop_symbolizer_probe");
  CHECK(inside.function_offset == 3);

  // Before its mapping, the same address is unknown (an earlier time after a later one: replayed).
  const tagop::report::Frame before = symbolizer.name(9, base + probe_offset, 99);
  CHECK_FALSE(before.mapped);
  CHECK(before.module == "[unknown]");
  CHECK(before.function.empty());
  // Another process never mapped it.
  CHECK_FALSE(symbolizer.name(10, base + probe_offset, 200).mapped);
  // And at the mapping's own time it is mapped.
  CHECK(symbolizer.name(9, base + probe_offset, 100).function == "tagop_symbolizer_probe");
}

TEST_CASE("the symbolizer names a kernel frame by a --kallsyms file, whatever the process", "[callchain][symbols]") {
  TempFile file;
  const fs::path kallsyms = fs::path(file.path.string() + ".kallsyms");
  std::ofstream(kallsyms) << "ffffffff81000000 T _text\n"
                             "ffffffff81000100 T alpha\n"
                             "ffffffff81000200 t beta\n"
                             "ffffffff81001000 T _etext\n";
  constexpr std::uint64_t text = 0xffffffff81000000;
  {
    perf_data::PerfDataWriter w(file.path.string(), {{.attr = chain_attr(), .ids = {1}, .name = "cpu-clock"}});
    w.mmap(static_cast<std::uint32_t>(-1), 0, text, 0x1000, text, "[kernel.kallsyms]_text");
    w.comm(9, 9, "prober", true, {.pid = 9, .tid = 9, .time = 50});
    w.finish();
  }
  perf_data::PerfDataReader reader(file.path.string());
  tagop::report::SymbolizerOptions options;
  options.kernel.kallsyms = kallsyms.string();
  options.files.build_id_dir = "";  // nothing of this machine's cache
  tagop::report::Symbolizer symbolizer(reader, options);
  const tagop::report::Frame beta = symbolizer.name(9, text + 0x234, 100);
  CHECK(beta.mapped);
  CHECK(beta.module == "[kernel.kallsyms]");
  CHECK(beta.module_offset == text + 0x234);  // the kernel map's offsets are addresses
  CHECK(beta.function == "beta");
  CHECK(beta.function_offset == 0x34);
  CHECK(symbolizer.name(4242, text + 0x100, 100).function == "alpha");
  CHECK(symbolizer.name(9, text + 0x50, 100).function == "_text");
  fs::remove(kallsyms);
}
