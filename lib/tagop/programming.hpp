#pragma once
// What every backend's programmer produces: the register writes that set the
// hardware up directly, and the Linux perf_event_attr that does the same
// through perf_event_open.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <linux/perf_event.h>  // perf_event_attr

#include <cstdint>  // std::uint32_t, std::uint64_t
#include <string>   // std::string
#include <vector>   // std::vector

namespace tagop {

struct MsrWrite {
  std::uint32_t msr = 0;
  std::string name;  // as the vendor's manual spells it: "IbsOpCtl", "MSR_CRU_ESCR2"
  std::uint64_t value = 0;
  std::string note;  // why this value, when it is not obvious
};

struct PerfEvent {
  /// The PMU whose sysfs `type` goes in attr.type ("ibs_op", "cpu"), or ""
  /// when attr.type is one of the fixed PERF_TYPE_* values.
  std::string pmu;
  perf_event_attr attr{};
  std::string description;
};

struct Programming {
  std::vector<MsrWrite> msr_writes;  // in the order they must be written
  std::vector<PerfEvent> perf_events;
  std::vector<std::string> notes;    // caveats the user should know
};

/// A perf_event_attr with size set and everything else zero.
perf_event_attr make_perf_attr();

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
