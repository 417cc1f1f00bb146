// make-ibs-example OUTPUT [--samples N]: writes the IBS capture of the
// model in ibs_example_model.hpp (see examples/README.md) as perf.data.
// Without --samples it writes the model once: examples/ibs-example.perf.data.
// With --samples N it repeats the model until N samples are written (the
// benchmark's large captures); memory use does not depend on N.

#include <cstdio>   // std::fprintf
#include <cstdlib>  // std::strtoull
#include <cstring>  // std::strcmp
#include <string>   // std::string
#include <vector>   // std::vector

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCaptureWriter
#include <tagop/error.hpp>                 // Error

#include "ibs_example_model.hpp"

namespace {

using namespace tagop::amd_ibs;
using namespace ibs_example;

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t address(Module m, std::uint64_t offset) {
  return m == program_module ? program_start + offset - program_pgoff : libc_start + offset - libc_pgoff;
}

std::uint64_t b(bool v, unsigned at) { return std::uint64_t{v} << at; }

IbsRegisters op_registers(const OpKind& k, std::uint64_t n) {
  IbsRegisters r;
  r.unit = IbsUnit::op;
  const bool memory = k.load || k.store;
  r.set(IbsRegister::IbsOpRip, address(functions[k.function].module, k.offset));
  // IbsOpData: CompToRetCtr 15:0, TagToRetCtr 31:16, return 34, taken 35, mispredicted 36, retired branch 37.
  r.set(IbsRegister::IbsOpData, std::uint64_t{k.comp_to_retire} | std::uint64_t{k.tag_to_retire} << 16 | b(k.ret, 34) |
                                    b(k.taken, 35) | b(k.mispredicted, 36) | b(k.branch, 37));
  // IbsOpData2: NbIbsReqSrc 2:0, NbIbsReqDstProc 4.
  r.set(IbsRegister::IbsOpData2, std::uint64_t{k.nb_source} | b(k.remote, 4));
  // IbsOpData3: load 0, store 1, L1/L2 DTLB miss 2/3, DC miss 7, linear/physical address valid 17/18, latency 47:32.
  r.set(IbsRegister::IbsOpData3, b(k.load, 0) | b(k.store, 1) | b(k.dtlb_l1_miss, 2) | b(k.dtlb_l2_miss, 3) |
                                     b(k.dc_miss, 7) | b(memory, 17) | b(memory, 18) |
                                     std::uint64_t{k.dc_miss_latency} << 32);
  r.set(IbsRegister::IbsDcLinAd, memory ? 0x7fffe0000000 + (n * 64 & 0xFFFFFFF) : 0);
  r.set(IbsRegister::IbsDcPhysAd, memory ? 0x100000000 + (n * 64 & 0xFFFFFFF) : 0);
  return r;
}

IbsRegisters fetch_registers(const FetchKind& k) {
  IbsRegisters r;
  r.unit = IbsUnit::fetch;
  // IbsFetchCtl: latency 47:32, completed 50, IC miss 51, physical address valid 52, L1/L2 ITLB miss 55/56.
  r.set(IbsRegister::IbsFetchCtl, std::uint64_t{k.latency} << 32 | b(k.completed, 50) | b(k.ic_miss, 51) |
                                      b(!k.killed, 52) | b(k.itlb_l1_miss, 55) | b(k.itlb_l2_miss, 56));
  const std::uint64_t ip = address(functions[k.function].module, k.offset);
  r.set(IbsRegister::IbsFetchLinAd, ip);
  r.set(IbsRegister::IbsFetchPhysAd, k.killed ? 0 : 0x20000000 + (ip & 0xFFFFF));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string output;
  std::uint64_t samples = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--samples") == 0 && i + 1 < argc) {
      samples = std::strtoull(argv[++i], nullptr, 10);
    } else if (output.empty() && argv[i][0] != '-') {
      output = argv[i];
    } else {
      std::fprintf(stderr, "usage: make-ibs-example OUTPUT [--samples N]\n");
      return 2;
    }
  }
  if (output.empty()) {
    std::fprintf(stderr, "usage: make-ibs-example OUTPUT [--samples N]\n");
    return 2;
  }
  try {
    // The samples of the model in a fixed shuffled order: kind indexes,
    // fetch kinds after the op kinds.
    std::vector<std::uint16_t> order;
    for (std::size_t k = 0; k < std::size(op_kinds); ++k) order.insert(order.end(), op_kinds[k].count, k);
    for (std::size_t k = 0; k < std::size(fetch_kinds); ++k)
      order.insert(order.end(), fetch_kinds[k].count, static_cast<std::uint16_t>(std::size(op_kinds) + k));
    std::uint64_t state = 1;
    for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[splitmix(state) % (i + 1)]);
    if (samples == 0) samples = order.size();

    IbsCaptureWriter w(output, {.family = family, .model = model, .stepping = stepping, .fetch_type = 8, .op_type = 9,
                                .fetch_period = period, .op_period = period, .op_counts_dispatched = true,
                                .capabilities = std::nullopt});
    w.perf().features().hostname = "ibs-example";
    w.perf().comm(pid, pid, comm, true, {.pid = pid, .tid = pid, .cpu = 0, .time = 1000});
    w.perf().mmap2(pid, pid, program_start, program_len, program_pgoff, program, {}, {.pid = pid, .tid = pid, .cpu = 0, .time = 1001});
    w.perf().mmap2(pid, pid, libc_start, libc_len, libc_pgoff, libc, {}, {.pid = pid, .tid = pid, .cpu = 0, .time = 1002});
    w.perf().fork(pid, pid, pid + 1, pid, 1003);  // the second thread
    for (std::uint64_t n = 0; n < samples; ++n) {
      const std::uint16_t k = order[n % order.size()];
      const IbsRegisters regs =
          k < std::size(op_kinds) ? op_registers(op_kinds[k], n) : fetch_registers(fetch_kinds[k - std::size(op_kinds)]);
      w.sample(regs, pid, pid + static_cast<std::uint32_t>(n % threads), static_cast<std::uint32_t>(n / 7 % cpus),
               2000 + n * 1000);
    }
    w.finish();
  } catch (const tagop::Error& e) {
    std::fprintf(stderr, "make-ibs-example: %s\n", e.what());
    return 1;
  }
  return 0;
}
