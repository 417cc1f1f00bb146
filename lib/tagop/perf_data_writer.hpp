#pragma once
// Writes perf.data files that perf itself reads (`perf report -D`, `perf
// script`): header, attributes with their ids, the data section, and the
// feature sections HEADER_BUILD_ID, HEADER_CPUID, HEADER_EVENT_DESC,
// HEADER_PMU_MAPPINGS and HEADER_PMU_CAPS. Records stream to the file as
// they are written.
//
//   PerfDataWriter w("out.data", {{.attr = op_attr, .ids = {1}, .name = "ibs_op//"}},
//                    {.cpuid = "AuthenticAMD,16,4,2", .pmu_mappings = {{10, "ibs_op"}}});
//   w.comm(42, 42, "a.out", true);
//   w.sample(0, {.ip = 0x401000, .pid = 42, .tid = 42, .raw = payload});
//   w.finish();

#include <linux/perf_event.h>  // perf_event_attr

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <cstdio>       // std::FILE
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <tagop/perf_data_reader.hpp>  // PmuMapping, BuildIdEntry, SampleId

namespace tagop::perf_data {

struct WriterEvent {
  perf_event_attr attr{};  // attr.size 0 is written as sizeof(perf_event_attr)
  std::vector<std::uint64_t> ids{};
  std::string name{};
};

/// A PMU's capabilities as /sys/bus/event_source/devices/PMU/caps lists
/// them ("zen4_ibs_extensions" = "1" for ibs_op on Zen 4).
struct PmuCaps {
  std::string pmu;
  std::vector<std::pair<std::string, std::string>> caps;
};

struct WriterFeatures {
  std::optional<std::string> cpuid{};
  std::vector<PmuMapping> pmu_mappings{};
  std::vector<PmuCaps> pmu_caps{};
  std::vector<BuildIdEntry> build_ids{};
  std::string hostname{};
  std::string os_release{};
};

/// The fields `sample()` encodes: those of IDENTIFIER, IP, TID, TIME,
/// ADDR, ID, STREAM_ID, CPU, PERIOD and RAW, as the event's sample_type
/// selects them. The id is the event's first.
struct SampleFields {
  std::uint64_t ip = 0;
  std::uint32_t pid = 0, tid = 0;
  std::uint64_t time = 0;
  std::uint64_t addr = 0;
  std::uint64_t stream_id = 0;
  std::uint32_t cpu = 0;
  std::uint64_t period = 0;
  std::span<const std::byte> raw{};  // padded with zeros to 8-byte alignment
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
  void fork(std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid, std::uint64_t time);
  void exit(std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid, std::uint64_t time);
  /// A sample of event `event`. Throws tagop::Error when its sample_type
  /// asks for a field SampleFields does not have.
  void sample(std::size_t event, const SampleFields& fields);
  /// Any record, its body written as given (size from the body).
  void record(std::uint32_t type, std::uint16_t misc, std::span<const std::byte> body);
  /// The features to write at the end; build-ids may be added until then.
  WriterFeatures& features() { return features_; }

  /// Writes the features and the final header, and closes the file.
  void finish();

 private:
  void put(const void* data, std::size_t size);
  void task(std::uint32_t type, std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid,
            std::uint64_t time);

  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<WriterEvent> events_;
  WriterFeatures features_;
  FileHeader header_;
  std::uint64_t data_size_ = 0;
  // Writes of 4 MiB at offsets 4 MiB apart: few system calls, and a page
  // cache that can keep the file in 2 MiB folios, which a reader maps at
  // a fraction of the cost of 4 KiB pages (Linux 6.x large folios).
  static constexpr std::size_t buffer_size = std::size_t{4} << 20;
  std::vector<char> buffer_;
};

}  // namespace tagop::perf_data
