// make-symbol-capture OUTPUT --elf PATH [--samples N] [--addresses K] ...
//
// An IBS capture of a program that spends its time inside a real ELF on
// this machine, as a new user's capture of a real program would: its
// samples fall on K distinct addresses inside the ELF's functions, the
// functions drawn by a Zipf law (the rank-r function gets 1/r^s of the
// samples), with the MMAP2 record of the ELF's executable segment and its
// build-id, so that perf and tagop both name the functions. Op samples get
// kinds by their instruction's class (loads that miss the data cache now
// and then, branches that are mispredicted now and then ...), a quarter of
// the samples are fetches. Memory does not grow with N.
//
// It prints the distinct addresses and functions it used (to stdout).

#include <fcntl.h>   // open
#include <gelf.h>    // the ELF's symbols and segments
#include <libelf.h>  // elf_begin
#include <unistd.h>  // close

#include <algorithm>  // std::sort, std::upper_bound
#include <cmath>      // std::pow
#include <cstdio>     // std::printf
#include <cstdlib>    // std::strtoull
#include <cstring>    // std::strcmp
#include <string>     // std::string
#include <vector>     // std::vector

#include <tagop/amd_ibs/layout.hpp>        // field_table
#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCaptureWriter
#include <tagop/error.hpp>                 // Error
#include <tagop/module_symbols.hpp>        // ModuleSymbols: the build-id

namespace {

using namespace tagop::amd_ibs;

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A uniform draw in [0, 1).
double uniform(std::uint64_t& state) { return static_cast<double>(splitmix(state) >> 11) * 0x1.0p-53; }

struct Segment {
  std::uint64_t vaddr = 0, offset = 0, memsz = 0;
};

struct Function {
  std::uint64_t vaddr = 0, size = 0;
};

// The executable segment and the functions in it.
void read_elf(const std::string& path, Segment& text, std::vector<Function>& functions) {
  elf_version(EV_CURRENT);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw tagop::Error(path + ": cannot open");
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!elf || elf_kind(elf) != ELF_K_ELF) throw tagop::Error(path + ": not an ELF file");
  std::size_t phnum = 0;
  elf_getphdrnum(elf, &phnum);
  for (std::size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
      text = {ph.p_vaddr, ph.p_offset, ph.p_memsz};
  }
  if (text.memsz == 0) throw tagop::Error(path + ": no executable segment");
  // .symtab when the file has one, else .dynsym.
  for (int want : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type != static_cast<unsigned>(want)) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      for (std::size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(data, static_cast<int>(i), &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC) continue;
        if (sym.st_size < 16 || sym.st_value < text.vaddr || sym.st_value + sym.st_size > text.vaddr + text.memsz) continue;
        functions.push_back({sym.st_value, sym.st_size});
      }
    }
    if (!functions.empty()) break;
  }
  elf_end(elf);
  ::close(fd);
  std::sort(functions.begin(), functions.end(), [](const Function& a, const Function& b) { return a.vaddr < b.vaddr; });
  functions.erase(std::unique(functions.begin(), functions.end(),
                              [](const Function& a, const Function& b) { return a.vaddr == b.vaddr; }),
                  functions.end());
  if (functions.empty()) throw tagop::Error(path + ": no function symbols");
}

class RegisterSetter {
 public:
  RegisterSetter(unsigned family, unsigned model) : family_(family), model_(model) {}
  // Sets a field by its name in the layout table, if this processor has it.
  void operator()(IbsRegisters& r, std::string_view name, std::uint64_t value) const {
    for (const FieldSpec& f : field_table()) {
      if (f.name != name || !f.exists_on(family_, model_)) continue;
      r.set(f.reg, (r.get(f.reg) & ~f.mask()) | ((value << f.lsb) & f.mask()));
      return;
    }
  }

 private:
  unsigned family_, model_;
};

void usage() {
  std::fprintf(stderr,
               "usage: make-symbol-capture OUTPUT --elf PATH [--samples N] [--addresses K] [--zipf S] "
               "[--family F] [--model M] [--seed X]\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string output, elf_path;
  std::uint64_t samples = 1000000, addresses = 10000, seed = 1;
  double zipf = 1.0;
  unsigned family = 0x19, model = 0x01;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool value = i + 1 < argc;
    if (a == "--elf" && value) elf_path = argv[++i];
    else if (a == "--samples" && value) samples = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--addresses" && value) addresses = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--zipf" && value) zipf = std::strtod(argv[++i], nullptr);
    else if (a == "--family" && value) family = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 0));
    else if (a == "--model" && value) model = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 0));
    else if (a == "--seed" && value) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (output.empty() && a[0] != '-') output = a;
    else return usage(), 2;
  }
  if (output.empty() || elf_path.empty() || addresses == 0) return usage(), 2;
  try {
    Segment text;
    std::vector<Function> all;
    read_elf(elf_path, text, all);
    const auto symbols = tagop::ModuleSymbols::open(elf_path);
    const std::string build_id = symbols->build_id();

    // The functions, in a random order of rank; about three addresses
    // each, spread over the function, until there are K.
    std::uint64_t state = seed;
    for (std::size_t i = all.size() - 1; i > 0; --i) std::swap(all[i], all[splitmix(state) % (i + 1)]);
    const std::size_t used = std::min<std::size_t>(all.size(), (addresses + 2) / 3);
    std::vector<std::vector<std::uint64_t>> places(used);  // vaddrs, by rank
    std::size_t distinct = 0;
    for (std::size_t f = 0; f < used; ++f) {
      const std::uint64_t want = addresses / used + (f < addresses % used ? 1 : 0);
      const std::uint64_t n = std::min<std::uint64_t>(want, all[f].size);
      for (std::uint64_t j = 0; j < n; ++j) places[f].push_back(all[f].vaddr + j * all[f].size / n);
      distinct += places[f].size();
    }
    std::vector<double> cdf(used);
    double sum = 0;
    for (std::size_t f = 0; f < used; ++f) cdf[f] = sum += 1.0 / std::pow(static_cast<double>(f + 1), zipf);
    for (double& c : cdf) c /= sum;

    const std::uint32_t pid = 31337;
    const std::uint64_t base = 0x7f1200000000ull;
    const std::uint64_t page = 4096;
    const std::uint64_t map_start = base + (text.vaddr & ~(page - 1));
    const std::uint64_t map_pgoff = text.offset & ~(page - 1);
    const std::uint64_t map_len = ((text.vaddr & (page - 1)) + text.memsz + page - 1) & ~(page - 1);
    auto ip_of = [&](std::uint64_t vaddr) { return base + vaddr; };  // vaddr - p_vaddr + p_offset == file offset

    IbsCaptureWriter w(output, {.family = family, .model = model, .stepping = 0, .fetch_type = 8, .op_type = 9,
                                .fetch_period = 0x10000, .op_period = 0x10000, .op_counts_dispatched = true,
                                .capabilities = std::nullopt});
    w.perf().features().hostname = "symbol-capture";
    w.perf().features().build_ids.push_back({.pid = -1, .cpumode = tagop::perf_data::misc_user, .build_id = build_id,
                                             .filename = elf_path});
    w.perf().comm(pid, pid, "llvm-user", true, {.pid = pid, .tid = pid, .cpu = 0, .time = 1000});
    w.perf().mmap2(pid, pid, map_start, map_len, map_pgoff, elf_path, build_id, {.pid = pid, .tid = pid, .cpu = 0, .time = 1001});
    const RegisterSetter set(family, model);
    for (std::uint64_t n = 0; n < samples; ++n) {
      const std::size_t f = static_cast<std::size_t>(std::upper_bound(cdf.begin(), cdf.end(), uniform(state)) - cdf.begin());
      const auto& p = places[std::min(f, used - 1)];
      const std::uint64_t vaddr = p[splitmix(state) % p.size()];
      const std::uint64_t ip = ip_of(vaddr);
      const std::uint64_t r = splitmix(state);
      IbsRegisters regs;
      if (r % 4 == 0) {
        regs.unit = IbsUnit::fetch;
        set(regs, "IbsFetchLinAd", ip);
        set(regs, "IbsFetchLat", 2 + (r >> 8) % 60);
        const bool itlb_miss = (r >> 16) % 100 == 0;
        set(regs, "IbsFetchComp", (r >> 24) % 100 < 97);
        set(regs, "IbsIcMiss", (r >> 32) % 100 < 3);
        set(regs, "IbsL1TlbMiss", itlb_miss);
        set(regs, "IbsPhyAddrValid", !itlb_miss);
        if (!itlb_miss) set(regs, "IbsFetchPhysAd", 0x100000000ull + (ip & 0xFFFFFFF));
      } else {
        regs.unit = IbsUnit::op;
        set(regs, "IbsOpRip", ip);
        set(regs, "IbsTagToRetCtr", 1 + (r >> 8) % 60);
        set(regs, "IbsCompToRetCtr", 1 + (r >> 16) % 20);
        // The instruction's class, from its address: 30% loads, 10% stores, 20% branches.
        const std::uint64_t cls = (vaddr * 0x9E3779B97F4A7C15ull >> 40) % 10;
        const std::uint64_t chance = (r >> 24) % 1000;
        if (cls < 4) {
          const bool load = cls < 3, miss = chance < (load ? 80 : 50), tlb = (r >> 34) % 100 < 3;
          set(regs, load ? "IbsLdOp" : "IbsStOp", 1);
          set(regs, "IbsDcMiss", miss);
          set(regs, "IbsDcL1tlbMiss", tlb);
          set(regs, "IbsDcL2tlbMiss", tlb && (r >> 42) % 3 == 0);
          set(regs, "IbsDcLinAddrValid", 1);
          set(regs, "IbsDcPhyAddrValid", 1);
          if (miss && load) set(regs, "IbsDcMissLat", 100 + (r >> 48) % 300);
          set(regs, "IbsDcLinAd", 0x7ffe00000000ull + ((r >> 12) & 0xFFFFFC0));
          set(regs, "IbsDcPhysAd", 0x200000000ull + ((r >> 12) & 0xFFFFFC0));
        } else if (cls < 6) {
          set(regs, "IbsOpBrnRet", 1);
          set(regs, "IbsOpBrnTaken", chance < 600);
          set(regs, "IbsOpBrnMisp", chance % 25 == 0);
          set(regs, "IbsOpReturn", cls == 5 && (vaddr & 0x30) == 0);
        }
      }
      w.sample(regs, pid, pid, static_cast<std::uint32_t>(n / 1000 % 16), 1000000 + n * 1000);
    }
    w.finish();
    std::printf("%zu distinct addresses in %zu functions of %s (build-id %s)\n", distinct, used, elf_path.c_str(),
                build_id.c_str());
  } catch (const tagop::Error& e) {
    std::fprintf(stderr, "make-symbol-capture: %s\n", e.what());
    return 1;
  }
  return 0;
}
