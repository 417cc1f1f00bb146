// make-mem-capture OUTPUT --elf PATH [--samples N] [--objects K] [--seed X]
//
// A `perf mem record` capture (Intel's cpu/mem-loads,ldlat=30/P, as perf
// 6.1 asks for it on x86) of a program that spends its time inside a real
// ELF on this machine: each sample's ip falls in one of the ELF's
// functions, its data address in one of K of the ELF's data objects
// (STT_OBJECT symbols of its writable segment), a tenth on the heap and a
// tenth on the stack; its data source is one of the values Skylake's
// pebs_data_source table (arch/x86/events/intel/ds.c) gives a load, its
// weight a latency that grows with the level. The MMAP2 records of the
// ELF's executable and writable segments carry its build-id, so that perf
// and tagop both name the functions and the objects. The objects and
// functions are drawn by a Zipf law; memory does not grow with N.

#include <fcntl.h>   // open
#include <gelf.h>    // the ELF's symbols and segments
#include <libelf.h>  // elf_begin
#include <linux/perf_event.h>  // PERF_MEM_*, PERF_SAMPLE_*
#include <unistd.h>  // close

#include <algorithm>  // std::sort, std::upper_bound
#include <array>      // std::array
#include <cmath>      // std::pow
#include <cstdio>     // std::printf
#include <cstdlib>    // std::strtoull
#include <string>     // std::string
#include <vector>     // std::vector

#include <tagop/error.hpp>              // Error
#include <tagop/module_symbols.hpp>     // ModuleSymbols: the build-id
#include <tagop/perf_data_writer.hpp>   // PerfDataWriter

namespace {

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double uniform(std::uint64_t& state) { return static_cast<double>(splitmix(state) >> 11) * 0x1.0p-53; }

struct Segment {
  std::uint64_t vaddr = 0, offset = 0, memsz = 0;
};

struct Symbol {
  std::uint64_t vaddr = 0, size = 0;
};

struct ElfFile {
  Segment text, data;
  std::vector<Symbol> functions, objects;
};

// The executable and the writable segments, and the symbols in each.
ElfFile read_elf(const std::string& path) {
  elf_version(EV_CURRENT);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw tagop::Error(path + ": cannot open");
  ::Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!elf || elf_kind(elf) != ELF_K_ELF) throw tagop::Error(path + ": not an ELF file");
  ElfFile out;
  std::size_t phnum = 0;
  elf_getphdrnum(elf, &phnum);
  for (std::size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf, static_cast<int>(i), &ph) || ph.p_type != PT_LOAD) continue;
    if (ph.p_flags & PF_X) out.text = {ph.p_vaddr, ph.p_offset, ph.p_memsz};
    else if (ph.p_flags & PF_W) out.data = {ph.p_vaddr, ph.p_offset, ph.p_memsz};
  }
  if (out.text.memsz == 0 || out.data.memsz == 0) throw tagop::Error(path + ": no executable or no writable segment");
  auto inside = [](const Segment& s, const GElf_Sym& sym) {
    return sym.st_value >= s.vaddr && sym.st_value + sym.st_size <= s.vaddr + s.memsz;
  };
  for (int want : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type != static_cast<unsigned>(want)) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      for (std::size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(data, static_cast<int>(i), &sym) || sym.st_size < 8) continue;
        if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && inside(out.text, sym)) out.functions.push_back({sym.st_value, sym.st_size});
        if (GELF_ST_TYPE(sym.st_info) == STT_OBJECT && inside(out.data, sym)) out.objects.push_back({sym.st_value, sym.st_size});
      }
    }
    if (!out.functions.empty() && !out.objects.empty()) break;
  }
  elf_end(elf);
  ::close(fd);
  for (auto* v : {&out.functions, &out.objects}) {
    std::sort(v->begin(), v->end(), [](const Symbol& a, const Symbol& b) { return a.vaddr < b.vaddr; });
    v->erase(std::unique(v->begin(), v->end(), [](const Symbol& a, const Symbol& b) { return a.vaddr == b.vaddr; }),
             v->end());
  }
  if (out.functions.empty() || out.objects.empty()) throw tagop::Error(path + ": no function or no object symbols");
  return out;
}

// A load's data sources as Skylake's pebs_data_source[] composes them
// (arch/x86/events/intel/ds.c, Linux 6.1: OP_LH is OP LOAD | LVL HIT), with
// the share of loads each gets and a typical latency in cycles.
struct Source {
  std::uint64_t data_src;
  double share;
  std::uint64_t latency;
};
constexpr std::uint64_t op_lh = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT);
constexpr std::uint64_t tlb_hit = PERF_MEM_S(TLB, HIT) | PERF_MEM_S(TLB, L1) | PERF_MEM_S(TLB, L2);
const std::array<Source, 6> sources{{
    {op_lh | PERF_MEM_S(LVL, L1) | PERF_MEM_S(LVLNUM, L1) | PERF_MEM_S(SNOOP, NONE) | tlb_hit, 0.70, 35},
    {op_lh | PERF_MEM_S(LVL, LFB) | PERF_MEM_S(LVLNUM, LFB) | PERF_MEM_S(SNOOP, NONE) | tlb_hit, 0.08, 60},
    {op_lh | PERF_MEM_S(LVL, L2) | PERF_MEM_S(LVLNUM, L2) | PERF_MEM_S(SNOOP, NONE) | tlb_hit, 0.10, 45},
    {op_lh | PERF_MEM_S(LVL, L3) | PERF_MEM_S(LVLNUM, L3) | PERF_MEM_S(SNOOP, NONE) | tlb_hit, 0.06, 90},
    {op_lh | PERF_MEM_S(LVL, L3) | PERF_MEM_S(LVLNUM, L3) | PERF_MEM_S(SNOOP, HITM) | tlb_hit, 0.02, 180},
    {PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, MISS) | PERF_MEM_S(LVL, LOC_RAM) | PERF_MEM_S(LVLNUM, RAM) |
         PERF_MEM_S(SNOOP, MISS) | tlb_hit,
     0.04, 300},
}};

void usage() {
  std::fprintf(stderr, "usage: make-mem-capture OUTPUT --elf PATH [--samples N] [--objects K] [--seed X]\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string output, elf_path;
  std::uint64_t samples = 1000000, objects = 2000, seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool value = i + 1 < argc;
    if (a == "--elf" && value) elf_path = argv[++i];
    else if (a == "--samples" && value) samples = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--objects" && value) objects = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--seed" && value) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (output.empty() && a[0] != '-') output = a;
    else return usage(), 2;
  }
  if (output.empty() || elf_path.empty() || objects == 0) return usage(), 2;
  try {
    ElfFile elf = read_elf(elf_path);
    const std::string build_id = tagop::ModuleSymbols::open(elf_path)->build_id();
    std::uint64_t state = seed;
    for (auto* v : {&elf.functions, &elf.objects})
      for (std::size_t i = v->size() - 1; i > 0; --i) std::swap((*v)[i], (*v)[splitmix(state) % (i + 1)]);
    const std::size_t used = std::min<std::size_t>(elf.objects.size(), objects);
    auto zipf_cdf = [](std::size_t n) {
      std::vector<double> cdf(n);
      double sum = 0;
      for (std::size_t r = 0; r < n; ++r) cdf[r] = sum += 1.0 / static_cast<double>(r + 1);
      for (double& c : cdf) c /= sum;
      return cdf;
    };
    const std::vector<double> object_cdf = zipf_cdf(used), function_cdf = zipf_cdf(elf.functions.size());
    auto draw = [&](const std::vector<double>& cdf) {
      return std::min<std::size_t>(cdf.size() - 1, static_cast<std::size_t>(std::upper_bound(cdf.begin(), cdf.end(),
                                                                                              uniform(state)) -
                                                                             cdf.begin()));
    };

    const std::uint32_t pid = 4242;
    const std::uint64_t base = 0x7f3400000000ull, page = 4096;
    const std::uint64_t heap = 0x55d000000000ull, heap_len = 64 << 20;
    const std::uint64_t stack = 0x7ffd00000000ull, stack_len = 8 << 20;
    auto mapping = [&](const Segment& s, std::uint64_t& start, std::uint64_t& len, std::uint64_t& pgoff) {
      start = base + (s.vaddr & ~(page - 1));
      pgoff = s.offset & ~(page - 1);
      len = ((s.vaddr & (page - 1)) + s.memsz + page - 1) & ~(page - 1);
    };

    namespace pd = tagop::perf_data;
    pd::WriterEvent load{};
    load.attr.type = PERF_TYPE_RAW;
    load.attr.config = 0x1cd;  // MEM_TRANS_RETIRED.LOAD_LATENCY
    load.attr.config1 = 30;    // ldlat
    load.attr.sample_period = 4000;
    load.attr.precise_ip = 2;
    load.attr.sample_id_all = 1;
    load.attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                            PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT |
                            PERF_SAMPLE_DATA_SRC;
    load.ids = {1};
    load.name = "cpu/mem-loads,ldlat=30/P";
    pd::PerfDataWriter w(output, {load}, {.hostname = "mem-capture", .arch = "x86_64"});
    w.features().build_ids.push_back({.pid = -1, .cpumode = pd::misc_user, .build_id = build_id, .filename = elf_path});
    const pd::RecordWhere at{.pid = pid, .tid = pid, .cpu = 0, .time = 1000};
    w.comm(pid, pid, "mem-user", true, at);
    std::uint64_t start = 0, len = 0, pgoff = 0;
    mapping(elf.text, start, len, pgoff);
    w.mmap2(pid, pid, start, len, pgoff, elf_path, build_id, at);
    mapping(elf.data, start, len, pgoff);
    w.mmap2(pid, pid, start, len, pgoff, elf_path, build_id, at);
    w.mmap2(pid, pid, heap, heap_len, 0, "[heap]", {}, at);
    w.mmap2(pid, pid, stack, stack_len, 0, "[stack]", {}, at);

    for (std::uint64_t n = 0; n < samples; ++n) {
      const Symbol& f = elf.functions[draw(function_cdf)];
      const std::uint64_t r = splitmix(state);
      std::uint64_t addr;
      if (r % 10 == 0) addr = heap + ((r >> 8) % heap_len & ~7ull);
      else if (r % 10 == 1) addr = stack + stack_len - 8 - ((r >> 8) % 4096 & ~7ull);
      else {
        const Symbol& o = elf.objects[draw(object_cdf)];
        addr = base + o.vaddr + ((r >> 8) % o.size & ~7ull);
      }
      double u = uniform(state);
      const Source* s = &sources.back();
      for (const Source& c : sources)
        if ((u -= c.share) < 0) { s = &c; break; }
      w.sample(0, {.ip = base + f.vaddr + (r >> 40) % f.size, .pid = pid, .tid = pid, .time = 2000 + n * 1000,
                   .addr = addr, .cpu = static_cast<std::uint32_t>(n / 1000 % 4), .period = 4000,
                   .weight = s->latency + (r >> 56) % 16, .data_src = s->data_src});
    }
    w.finish();
    std::printf("%llu samples over %zu objects and %zu functions of %s (build-id %s)\n",
                static_cast<unsigned long long>(samples), used, elf.functions.size(), elf_path.c_str(), build_id.c_str());
  } catch (const tagop::Error& e) {
    std::fprintf(stderr, "make-mem-capture: %s\n", e.what());
    return 1;
  }
  return 0;
}
