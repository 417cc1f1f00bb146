#pragma once
// Writes perf.data files that perf itself reads (`perf report`, `perf
// script`, `perf buildid-list`): header, attributes with their ids, the data
// section, and the feature sections perf record writes about the machine:
// HEADER_BUILD_ID, HOSTNAME, OSRELEASE, ARCH, NRCPUS, CPUDESC, CPUID,
// TOTAL_MEM, CMDLINE, EVENT_DESC, PMU_MAPPINGS and PMU_CAPS, each where it is given.
// Records stream to the file as they are written. When a write fails (a
// full disk), finish() still leaves a file perf reads: the data up to the
// last record that reached the disk whole, the features and the header.
//
//   PerfDataWriter w("out.data", {{.attr = op_attr, .ids = {1}, .name = "ibs_op//"}},
//                    {.cpuid = "AuthenticAMD,16,4,2", .pmu_mappings = {{10, "ibs_op"}}});
//   w.comm(42, 42, "a.out", true);
//   w.sample(0, {.ip = 0x401000, .pid = 42, .tid = 42, .raw = payload});
//   w.finish();
//
// Thread safety: a PerfDataWriter is not thread-safe: one writing thread.

#include <linux/perf_event.h>  // perf_event_attr

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/perf_data_reader.hpp>  // PmuMapping, BuildIdEntry, SampleId

namespace tagop TAGOP_API {
namespace perf_data {

struct WriterEvent {
  perf_event_attr attr{};  ///< attr.size 0 is written as sizeof(perf_event_attr)
  std::vector<std::uint64_t> ids{};
  std::string name{};
};

/// A PMU's capabilities as /sys/bus/event_source/devices/PMU/caps lists
/// them ("zen4_ibs_extensions" = "1" for ibs_op on Zen 4).
struct PmuCaps {
  std::string pmu;
  std::vector<std::pair<std::string, std::string>> caps;
};

/// HEADER_NRCPUS: the CPUs the machine could have, and those online.
struct CpuCount {
  std::uint32_t available = 0, online = 0;
};

/// A NUMA node of HEADER_NUMA_TOPOLOGY: its CPUs as a list ("0-3,8").
struct NumaNode {
  std::uint32_t node = 0;           ///< the node's number
  std::uint64_t mem_total_kb = 0;   ///< its memory, kB
  std::uint64_t mem_free_kb = 0;    ///< of which free, kB
  std::string cpus{};               ///< its CPUs, "0-3,8"
};

/// The feature sections to write; an empty field is left out.
struct WriterFeatures {
  std::optional<std::string> cpuid{};
  std::vector<PmuMapping> pmu_mappings{};
  std::vector<PmuCaps> pmu_caps{};
  std::vector<BuildIdEntry> build_ids{};
  std::string hostname{};
  std::string os_release{};
  std::string arch{};             ///< HEADER_ARCH: uname's machine, "x86_64"
  std::optional<CpuCount> cpus{};  ///< HEADER_NRCPUS
  std::string cpu_description{};  ///< HEADER_CPUDESC: /proc/cpuinfo's model name
  std::uint64_t total_memory_kb = 0;  ///< HEADER_TOTAL_MEM: /proc/meminfo's MemTotal
  /// HEADER_CMDLINE: the recording command's words, the program's full path first.
  std::vector<std::string> cmdline{};
  /// HEADER_NUMA_TOPOLOGY: the machine's nodes (perf c2c report needs them).
  std::vector<NumaNode> numa_nodes{};
};

/// The fields `sample()` encodes: those of IDENTIFIER, IP, TID, TIME,
/// ADDR, ID, STREAM_ID, CPU, PERIOD, CALLCHAIN, RAW, WEIGHT (or
/// WEIGHT_STRUCT), DATA_SRC and PHYS_ADDR, as the event's sample_type
/// selects them (`perf mem record`'s samples). The id is the event's first.
struct SampleFields {
  std::uint64_t ip = 0;
  std::uint32_t pid = 0, tid = 0;
  std::uint64_t time = 0;
  std::uint64_t addr = 0;
  std::uint64_t stream_id = 0;
  std::uint32_t cpu = 0;
  std::uint64_t period = 0;
  std::span<const std::uint64_t> callchain{};  ///< addresses and PERF_CONTEXT_* markers, as the kernel writes them
  std::span<const std::byte> raw{};  ///< padded with zeros to 8-byte alignment
  /// WEIGHT's u64, or WEIGHT_STRUCT's var1_dw | var2_w << 32 | var3_w << 48
  /// (the load latency in var1_dw, as the kernel writes it).
  std::uint64_t weight = 0;
  std::uint64_t data_src = 0;  ///< union perf_mem_data_src, as the kernel writes it
  std::uint64_t phys_addr = 0;  ///< PHYS_ADDR: the data address's physical address
  std::uint16_t misc = misc_user | misc_exact_ip;
};

/// Where and when a non-sample record happened (its sample_id_all trailer).
struct RecordWhere {
  std::uint32_t pid = 0, tid = 0, cpu = 0;
  std::uint64_t time = 0;
};

class PerfDataWriter {
 public:
  /// Creates the file. With several events each needs an id and a
  /// sample_type with IDENTIFIER (or ID), or perf cannot tell them apart.
  PerfDataWriter(const std::string& path, std::vector<WriterEvent> events, WriterFeatures features = {});
  /// Finishes the file if finish() was not called.
  ~PerfDataWriter();
  PerfDataWriter(const PerfDataWriter&) = delete;
  PerfDataWriter& operator=(const PerfDataWriter&) = delete;

  void comm(std::uint32_t pid, std::uint32_t tid, std::string_view comm, bool exec = true, RecordWhere where = {});
  /// A MMAP2 record; with `build_id` (hex) in its build-id form.
  void mmap2(std::uint32_t pid, std::uint32_t tid, std::uint64_t start, std::uint64_t len, std::uint64_t pgoff,
             std::string_view filename, std::string_view build_id = {}, RecordWhere where = {},
             std::uint16_t cpumode = misc_user);
  /// A MMAP record: what perf synthesises for the kernel's text
  /// (pid -1, "[kernel.kallsyms]_text", pgoff the address of _text).
  void mmap(std::uint32_t pid, std::uint32_t tid, std::uint64_t start, std::uint64_t len, std::uint64_t pgoff,
            std::string_view filename, RecordWhere where = {}, std::uint16_t cpumode = misc_kernel);
  void fork(std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid, std::uint64_t time);
  void exit(std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid, std::uint64_t time);
  /// A sample of event `event`. Throws tagop::Error when its sample_type
  /// asks for a field SampleFields does not have.
  void sample(std::size_t event, const SampleFields& fields);
  /// Any record, its body written as given (size from the body).
  void record(std::uint32_t type, std::uint16_t misc, std::span<const std::byte> body);
  /// PERF_RECORD_AUXTRACE_INFO: the AUX trace's type (perf's enum
  /// auxtrace_type: 4 is Arm SPE) and its private u64s, as perf record
  /// writes them before any AUXTRACE record.
  void auxtrace_info(std::uint32_t type, std::span<const std::uint64_t> priv);
  /// PERF_RECORD_AUXTRACE: `data` (a piece of one AUX buffer), written after
  /// the record as perf does, padded with zeros to 8 bytes (the size field
  /// counts the padding, as perf record's). `offset` is where the piece
  /// begins in the AUX buffer's stream, `idx` the buffer's (mmap's) index,
  /// `tid` and `cpu` whose it is (-1 for "any", as perf writes them).
  void auxtrace(std::span<const std::byte> data, std::uint64_t offset, std::uint32_t idx, std::uint32_t tid,
                std::uint32_t cpu, std::uint64_t reference = 0);
  /// PERF_RECORD_FINISHED_ROUND: every record before the previous round
  /// is older than any after this one, so perf may sort what it holds.
  void finished_round();
  /// The features to write at the end; build-ids may be added until then.
  WriterFeatures& features() { return features_; }

  /// Writes the features and the final header, and closes the file.
  /// After a failed write, the data section ends at the last record that
  /// reached the disk whole (earlier still when the features need the
  /// room). Throws tagop::Error when even that cannot be written.
  void finish();

  /// The errno of the first write that failed (ENOSPC: the disk is full),
  /// 0 while none has. Every write after it throws at once.
  int write_error() const { return write_error_; }
  /// What the first failed write said ("out.data: the disk is full: ..."),
  /// "" while none has.
  const std::string& write_failure() const { return first_failure_; }
  /// Samples in the data section: written so far, or, after finish(),
  /// those the file kept.
  std::uint64_t samples() const { return samples_; }
  /// Bytes of the data section, likewise.
  std::uint64_t data_size() const { return data_size_; }

 private:
  // A place where the data section may end: after a whole record, with
  // the samples before it.
  struct DataEnd {
    std::uint64_t size = 0, samples = 0;
  };
  void put(const void* data, std::size_t size);
  void flush();
  [[noreturn]] void fail(int error, std::string_view what);
  void write_at(std::uint64_t offset, const void* data, std::size_t size);
  void write_features_and_header();
  void task(std::uint32_t type, std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid,
            std::uint64_t time);

  std::string path_;
  int fd_ = -1;
  std::vector<WriterEvent> events_;
  WriterFeatures features_;
  FileHeader header_;
  std::uint64_t data_size_ = 0, samples_ = 0;
  int write_error_ = 0;
  std::string first_failure_;
  // Writes of 4 MiB at offsets 4 MiB apart: few system calls, and a page
  // cache that can keep the file in 2 MiB folios, which a reader maps at
  // a fraction of the cost of 4 KiB pages (Linux 6.x large folios).
  static constexpr std::size_t buffer_size = std::size_t{4} << 20;
  std::vector<char> buffer_;
  std::size_t buffered_ = 0;
  std::uint64_t on_disk_ = 0;  ///< bytes of the file written
  // A place to cut the data back to, every 64 KiB or so: at most that much
  // of what reached the disk is lost to a full one.
  static constexpr std::uint64_t checkpoint_step = 64 << 10;
  std::vector<DataEnd> checkpoints_;
  std::uint64_t next_checkpoint_ = 0;
};

}  // namespace perf_data
}  // namespace tagop
