#pragma once
// What every backend's programmer produces: the register writes that set the
// hardware up directly, and the Linux perf_event_attr that does the same
// through perf_event_open.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <linux/perf_event.h>  // perf_event_attr

#include <cstdint>   // std::uint32_t, std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/cpu.hpp>  // CpuId

namespace tagop TAGOP_API {

/// One write to a model-specific register, for a tool that programs the
/// hardware itself (a driver, a bare-metal harness, msr-tools).
struct MsrWrite {
  std::uint32_t msr = 0;  ///< the register's address (ECX of WRMSR)
  std::string name;  ///< as the vendor's manual spells it: "IbsOpCtl", "MSR_CRU_ESCR2"
  std::uint64_t value = 0;  ///< the 64 bits to write
  std::string note;  ///< why this value, when it is not obvious
};

/// attr.type of an event whose PMU this machine does not have (or that was
/// programmed for another machine): no PMU has this type, so
/// perf_event_open fails (ENOENT) rather than opening another event, as
/// type 0 (PERF_TYPE_HARDWARE: cycles) would.
inline constexpr std::uint32_t unresolved_pmu_type = 0xFFFFFFFFu;

/// One event as Linux's perf_event_open takes it.
struct PerfEvent {
  /// The PMU whose sysfs `type` goes in attr.type ("ibs_op", "cpu"), or ""
  /// when attr.type is one of the fixed PERF_TYPE_* values. Programmers
  /// set attr.type to the PMU's type on this machine, or to
  /// unresolved_pmu_type where it has none.
  std::string pmu;
  perf_event_attr attr{};  ///< what perf_event_open takes (size set; type as said above)
  std::string description;  ///< what it samples or counts, in words
};

/// What a programmer produces for one request: the same setup two ways.
struct Programming {
  std::vector<MsrWrite> msr_writes;  ///< in the order they must be written
  std::vector<PerfEvent> perf_events;  ///< the same through perf_event_open, one per event
  std::vector<std::string> notes;    ///< caveats the user should know
};

/// What a vendor-neutral programming request may ask besides the event
/// (Registry::program): each backend applies what its hardware has and
/// refuses (tagop::Error, not_supported) what it has not.
struct ProgramOptions {
  /// Events (ops, fetches, cycles) between samples. None: each backend's
  /// default (IBS: 65536; PEBS: 100003; counting for other events).
  std::optional<std::uint64_t> period{};
  /// The processor to program for, which decides the capabilities (IBS
  /// counter widths, filters). None: this machine's, as /proc/cpuinfo says;
  /// a backend whose processor this machine is not refuses then, naming
  /// this option.
  std::optional<CpuId> processor{};
  /// Privilege filters: sample only kernel code (exclude_user) or only user
  /// code (exclude_kernel).
  bool exclude_user = false;
  bool exclude_kernel = false;  ///< see exclude_user
  /// AMD IBS: keep only ops (or fetches) that missed the L3 (L3MissOnly,
  /// Zen 4 and later).
  bool ibs_l3_miss_only = false;
  /// AMD IBS op: keep only loads that missed the DC with a miss latency
  /// above this many cycles (128 to 2048, in steps of 128; Zen 5 and
  /// later). 0: no latency filter.
  std::uint32_t ibs_load_latency = 0;
};

/// A perf_event_attr with size set and everything else zero.
perf_event_attr make_perf_attr();

/// attr.type for a PMU as programmers set it: its type on this machine
/// (sysfs_pmu_type), or unresolved_pmu_type when it has none.
std::uint32_t pmu_type_or_unresolved(const std::string& pmu);

/// Sets `event.attr.type` from its PMU's sysfs type on this machine (for a
/// Programming made elsewhere, or before this machine had the PMU).
/// Throws tagop::Error (no_pmu) when this machine has no such PMU; does
/// nothing for an event without a PMU.
void resolve_pmu_type(PerfEvent& event);

/// The `type` of a PMU from /sys/bus/event_source/devices/NAME/type, or -1
/// when this machine does not have it.
int sysfs_pmu_type(const std::string& pmu);

/// The kernel's names of the sample_type bits set: "IP|TID|TIME", or "0".
std::string sample_type_text(std::uint64_t sample_type);

/// "PERF_TYPE_RAW" and the other fixed perf_event_attr types' names, or
/// nullptr for a dynamic PMU's type.
const char* perf_type_name(std::uint32_t type);

/// Text for people: one MSR write per line, then each perf_event_attr.
/// (Its JSON form is the CLI's output record, `tagop program --json`.)
std::string to_text(const Programming& p);

}  // namespace tagop
