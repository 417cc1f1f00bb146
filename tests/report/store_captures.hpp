#pragma once
// Captures the store's tests ingest: synthetic IBS captures written here
// (every condition true in some samples and false in others), and perf
// record -g captures of the call-graph fixture.

#include <filesystem>  // std::filesystem
#include <string>      // std::string

#include <unistd.h>  // getpid

#include <fmt/format.h>  // fmt::format

#include <linux/perf_event.h>  // perf_event_attr

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCaptureWriter
#include <tagop/perf_data_writer.hpp>      // PerfDataWriter

#include "run_command.hpp"
#include "splitmix.hpp"

namespace tagop::test {

inline std::string temp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / fmt::format("tagop-store-{}-{}", ::getpid(), name)).string();
}

// perf mem record's event on a Skylake server: cpu/mem-loads,ldlat=30/P,
// its samples with an address, a weight and a data source; perf's
// PERF_SAMPLE_* and union perf_mem_data_src (include/uapi/linux/perf_event.h).
inline perf_data::PerfDataWriter perf_mem_writer(const std::string& file) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_RAW;
  a.config = 0x1cd;
  a.config1 = 30;
  a.sample_period = 2000;
  a.precise_ip = 2;
  a.sample_id_all = 1;
  a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
                  PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
  return perf_data::PerfDataWriter(file, {{.attr = a, .ids = {11}, .name = "cpu/mem-loads,ldlat=30/P"}},
                                   {.cpuid = "GenuineIntel,6,85,4"});
}

// A Zen 4 capture of 23 processes whose IbsOpData/2/3 and IbsFetchCtl are
// random words: every condition of the family true in some samples and
// false in others, latencies of every size. Sampled every `period` fetches
// and ops (cycles where not `counts_ops`), ops with L3MissOnly where
// `l3_miss_only` (perf record -e ibs_op/l3missonly=1/).
inline std::string zen_capture(const std::string& name, std::uint64_t seed, std::uint64_t period = 0x10000,
                               bool counts_ops = true, bool l3_miss_only = false) {
  const std::string file = temp(name);
  amd_ibs::IbsCaptureWriter w(file, {.family = 0x19, .model = 0x11, .stepping = 1, .fetch_period = period,
                                     .op_period = period, .op_counts_dispatched = counts_ops,
                                     .op_l3_miss_only = l3_miss_only});
  std::uint64_t state = seed, t = 1000;
  for (std::uint32_t pid = 200; pid < 223; ++pid) {
    w.perf().comm(pid, pid, "worker", false, {.pid = pid, .tid = pid, .cpu = 0, .time = t++});
    for (std::uint32_t i = 0; i < 40 + 7 * (pid - 200); ++i) {
      amd_ibs::IbsRegisters op;
      op.unit = amd_ibs::IbsUnit::op;
      op.set(amd_ibs::IbsRegister::IbsOpRip, 0x401000 + (splitmix(state) & 0xFFF));
      op.set(amd_ibs::IbsRegister::IbsOpData, splitmix(state));
      op.set(amd_ibs::IbsRegister::IbsOpData2, splitmix(state));
      op.set(amd_ibs::IbsRegister::IbsOpData3, splitmix(state));
      w.sample(op, pid, pid, pid % 4, t++);
      if (i % 3 == 0) {
        amd_ibs::IbsRegisters fetch;
        fetch.unit = amd_ibs::IbsUnit::fetch;
        fetch.set(amd_ibs::IbsRegister::IbsFetchCtl, splitmix(state) & ~0xFFFFull);
        fetch.set(amd_ibs::IbsRegister::IbsFetchLinAd, 0x401000 + (splitmix(state) & 0xFFF));
        w.sample(fetch, pid, pid, pid % 4, t++);
      }
    }
  }
  w.finish();
  return file;
}

// perf record -g of the call-graph fixture (TAGOP_CALLCHAIN_FIXTURE) with
// two events, cpu-clock and task-clock, for `milliseconds`; "" (after a
// warning) where perf cannot record here. On one CPU, so that no sample
// comes before its process's MMAP record in the file (ingest now names
// those as the local report does: store_names_test checks it apart).
inline std::string perf_capture(const std::string& name, int milliseconds = 200) {
  const std::string file = temp(name);
  const RunResult r = run_shell(fmt::format("taskset -c 0 perf record -q -N -g -e cpu-clock,task-clock -o {} -- {} {}", file,
                                            std::getenv("TAGOP_CALLCHAIN_FIXTURE"), milliseconds));
  if (r.exit_code != 0) {
    fmt::print(stderr, "SKIP: perf record cannot record here: {}\n", r.err);
    return "";
  }
  return file;
}

// perf record -g of the call-graph fixture, user frames only (ingest names
// no kernel function: its frames would be module+offset in the store where
// the local report reads kallsyms), two events, cpu-clock:u and
// task-clock:u; "" (after a warning) where perf cannot record here.
inline std::string user_chain_capture(const std::string& name, int milliseconds) {
  const std::string file = temp(name);
  const RunResult r = run_shell(fmt::format("taskset -c 0 perf record -q -N -g -e cpu-clock:u,task-clock:u -o {} -- {} {}",
                                            file, std::getenv("TAGOP_CALLCHAIN_FIXTURE"), milliseconds));
  if (r.exit_code != 0) {
    fmt::print(stderr, "SKIP: perf record cannot record here: {}\n", r.err);
    return "";
  }
  return file;
}

}  // namespace tagop::test
