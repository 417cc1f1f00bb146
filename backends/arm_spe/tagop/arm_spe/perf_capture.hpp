#pragma once
// Arm SPE captures in perf.data: what `perf record -e arm_spe//` writes (an
// attr of the arm_spe PMU's type, PERF_RECORD_AUXTRACE_INFO of type
// PERF_AUXTRACE_ARM_SPE with the PMU type in its private words, then the
// profiling buffer's bytes in PERF_RECORD_AUXTRACE records), written and
// read back as model samples.
//
//   SpeCaptureWriter w("spe.data", {});
//   w.perf().comm(42, 42, "a.out");
//   w.buffer(packets, 42, 0);
//   w.finish();
//   SpeCaptureDecode d = decode_spe_capture("spe.data");  // d.samples, d.records
//
// Thread safety: a SpeCaptureWriter is not thread-safe: one writing thread; the free functions are.

#include <cstddef>   // std::byte
#include <cstdint>   // std::uint32_t, std::uint64_t
#include <map>       // std::map
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/arm_spe/model.hpp>    // DataSourceEncoding, to_sample
#include <tagop/arm_spe/records.hpp>  // SpeRecord
#include <tagop/perf_data_writer.hpp>  // PerfDataWriter
#include <tagop/sample.hpp>            // Sample

namespace tagop TAGOP_API {
namespace arm_spe {

/// perf's enum auxtrace_type value for Arm SPE (tools/perf/util/auxtrace.h).
inline constexpr std::uint32_t perf_auxtrace_arm_spe = 4;

/// What a capture says about its recording.
struct SpeCaptureOptions {
  /// The arm_spe PMU's type number (dynamic: /sys/bus/event_source/devices/arm_spe_0/type).
  std::uint32_t pmu_type = 8;
  std::uint64_t config = 0;   ///< the event's config (ts_enable, pa_enable ... see programmer.hpp)
  std::uint64_t period = 4096;  ///< operations between samples
  /// MIDR_EL1 of the recording processor, written as perf on arm64 writes
  /// HEADER_CPUID ("0x%016lx"); perf reads the data source encoding from it.
  /// Default: Neoverse N1 r3p1.
  std::uint64_t midr = 0x413FD0C1;
  bool per_cpu_mmaps = true;  ///< ARM_SPE_PER_CPU_MMAPS: a system-wide recording
};

/// Writes a capture as perf record does for `-e arm_spe//`.
class SpeCaptureWriter {
 public:
  /// Creates the file: the arm_spe event's attr, then AUXTRACE_INFO.
  SpeCaptureWriter(const std::string& path, const SpeCaptureOptions& options);
  /// The underlying writer, for COMM, MMAP2 and the like.
  perf_data::PerfDataWriter& perf() { return writer_; }
  /// One piece of the profiling buffer `idx` (one AUXTRACE record), taken
  /// on `cpu` while `tid` ran (0xFFFFFFFF: any, as perf writes for a
  /// system-wide recording).
  void buffer(std::span<const std::byte> packets, std::uint32_t tid, std::uint32_t cpu, std::uint32_t idx = 0);
  /// Writes the features and the header (PerfDataWriter::finish).
  void finish() { writer_.finish(); }

  /// The arm_spe event's id (PERF_SAMPLE_IDENTIFIER).
  static constexpr std::uint64_t event_id = 1;

 private:
  perf_data::PerfDataWriter writer_;
  std::map<std::uint32_t, std::uint64_t> stream_offset_;  // by idx: bytes written so far
};

/// A capture's SPE data, decoded.
struct SpeCaptureDecode {
  std::uint32_t pmu_type = 0;  ///< from AUXTRACE_INFO
  std::optional<std::uint64_t> midr;  ///< from HEADER_CPUID, where it is an arm64 MIDR
  DataSourceEncoding encoding = DataSourceEncoding::unknown;  ///< used for the data sources
  std::uint64_t buffers = 0;  ///< AUXTRACE records read
  std::uint64_t bytes = 0;    ///< their data, in bytes
  /// Each record and its sample (pid, tid and cpu from the AUXTRACE record,
  /// the tid from a Context packet where there is one, the pid from the
  /// thread's COMM record), in buffer and then stream order.
  std::vector<SpeRecord> records;
  std::vector<Sample> samples;  ///< samples[i] is records[i] in the model
  /// Damaged packets, each with the AUXTRACE record's file offset and the
  /// offset in its buffer: "AUX buffer 0 at file offset 4096: byte 17:
  /// unknown header byte 0x05".
  std::vector<std::string> problems;
};

/// Reads a perf.data file's SPE data. `encoding`: how to read data
/// sources; none: as perf 6.1 does, by the file's MIDR. Throws tagop::Error
/// when the file cannot be read or holds no Arm SPE AUXTRACE_INFO.
SpeCaptureDecode decode_spe_capture(const std::string& path, std::optional<DataSourceEncoding> encoding = {});

/// The MIDR in a HEADER_CPUID string as perf on arm64 writes it
/// ("0x00000000413fd0c1"), or none (an x86 cpuid, text that is not hex).
std::optional<std::uint64_t> midr_from_cpuid(std::string_view cpuid);

}  // namespace arm_spe
}  // namespace tagop
