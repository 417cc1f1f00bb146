#pragma once
// The on-disk layout of perf.data, as the kernel's
// tools/perf/Documentation/perf.data-file-format.txt and
// include/uapi/linux/perf_event.h describe it: what the reader and the
// writer share. Native byte order (little-endian x86) only.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint16_t, std::uint32_t, std::uint64_t

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {
namespace perf_data {

/// "PERFILE2" read as a little-endian u64.
inline constexpr std::uint64_t file_magic = 0x32454c4946524550ull;
/// The same bytes written by a big-endian machine.
inline constexpr std::uint64_t file_magic_swapped = 0x50455246494c4532ull;

struct FileSection {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

struct FileHeader {
  std::uint64_t magic = file_magic;
  std::uint64_t size = 0;       ///< sizeof(FileHeader); 16 in pipe mode
  std::uint64_t attr_size = 0;  ///< one attrs entry: perf_event_attr + FileSection of ids
  FileSection attrs;
  FileSection data;
  FileSection event_types;  ///< unused since perf 3.x
  std::array<std::uint64_t, 4> features{};  ///< 256 feature bits
};
static_assert(sizeof(FileHeader) == 104);

/// The pipe-mode header (`perf record -o -`): magic and size 16 only.
inline constexpr std::uint64_t pipe_header_size = 16;

/// Feature sections (tools/perf/util/header.h), numbered by their bit.
enum Feature : unsigned {
  feature_tracing_data = 1,
  feature_build_id = 2,
  feature_hostname = 3,
  feature_osrelease = 4,
  feature_version = 5,
  feature_arch = 6,
  feature_nrcpus = 7,
  feature_cpudesc = 8,
  feature_cpuid = 9,
  feature_total_mem = 10,
  feature_cmdline = 11,
  feature_event_desc = 12,
  feature_cpu_topology = 13,
  feature_numa_topology = 14,
  feature_branch_stack = 15,
  feature_pmu_mappings = 16,
  feature_group_desc = 17,
  feature_sample_time = 21,  ///< HEADER_SAMPLE_TIME: the first and last samples' times (perf 5.1+)
  feature_compressed = 27,
  feature_clock_data = 29,  ///< HEADER_CLOCK_DATA: perf record -k's clock against the time of day (perf 5.9+)
  feature_pmu_caps = 31,  ///< HEADER_PMU_CAPS: capabilities of PMUs other than cpu (perf 6.1+)
  feature_bits = 256,
};

/// Record types: the kernel's (1-21) and perf's own (64 and up).
enum RecordType : std::uint32_t {
  record_mmap = 1,
  record_lost = 2,
  record_comm = 3,
  record_exit = 4,
  record_throttle = 5,
  record_unthrottle = 6,
  record_fork = 7,
  record_read = 8,
  record_sample = 9,
  record_mmap2 = 10,
  record_lost_samples = 13,
  record_kernel_last = 21,  ///< PERF_RECORD_AUX_OUTPUT_HW_ID
  record_header_attr = 64,
  record_header_build_id = 67,
  record_finished_round = 68,
  record_auxtrace_info = 70,  ///< which AUX trace the file holds (Arm SPE, Intel PT ...) and its settings
  record_auxtrace = 71,  ///< the trace data follows the record, outside its size
  record_compressed = 81,
  record_finished_init = 82,
  record_compressed2 = 83,
  record_user_last = 83,
};

struct RecordHeader {
  std::uint32_t type = 0;
  std::uint16_t misc = 0;
  std::uint16_t size = 0;  ///< of the whole record, header included
};
static_assert(sizeof(RecordHeader) == 8);

/// perf pads strings in feature sections (and file names in build-id
/// records) to this.
inline constexpr std::size_t name_align = 64;

/// header.misc bits the reader and writer use.
inline constexpr std::uint16_t misc_cpumode_mask = 7;
inline constexpr std::uint16_t misc_kernel = 1;
inline constexpr std::uint16_t misc_user = 2;
inline constexpr std::uint16_t misc_comm_exec = 1 << 13;
inline constexpr std::uint16_t misc_exact_ip = 1 << 14;
inline constexpr std::uint16_t misc_mmap_build_id = 1 << 14;  // MMAP2 carries a build-id
inline constexpr std::uint16_t misc_build_id_size = 1 << 15;  // build-id record says its size

/// The fixed part of a HEADER_BUILD_ID entry: header, pid, 20 bytes of id
/// padded to 24 (byte 20 its size when misc_build_id_size); the file name
/// follows, padded to name_align.
inline constexpr std::size_t build_id_record_fixed = 8 + 4 + 24;

}  // namespace perf_data
}  // namespace tagop
