#pragma once
// What this machine is and what precise sampling it offers: the processor
// (cpuid, /proc/cpuinfo), the PMUs the kernel exposes, perf_event_paranoid;
// and the checks `tagop cpu` prints: which backend's tables apply, whether
// hardware sampling is available, and why (not).
//
// Thread safety: HostCpu and HostChecks are values; detect_host() and
// check_host() read the machine and are safe from any thread.

#include <cstdint>   // std::uint32_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

class Registry;

struct HostCpu {
  std::string vendor;        ///< "AuthenticAMD"
  unsigned family = 0, model = 0, stepping = 0;
  std::string model_name;
  bool hypervisor = false;   ///< CPUID.1:ECX[31]: running in a virtual machine
  bool ibs_flag = false;     ///< CPUID 8000_0001 ECX[10]
  std::optional<std::uint32_t> ibs_capabilities;  ///< CPUID 8000_001B EAX
  std::string source;        ///< "cpuid" or "/proc/cpuinfo"
  std::vector<std::string> pmus;  ///< /sys/bus/event_source/devices
  std::optional<int> perf_event_paranoid;
};

/// This machine as cpuid (or /proc/cpuinfo where there is no cpuid), sysfs
/// and /proc/sys/kernel say.
HostCpu detect_host();

struct HostChecks {
  std::string backend;  ///< the registry's backend whose tables fit the processor; "" when none
  std::string tables;   ///< which tables, in words
  /// Further backends whose tables also fit, in registry order (on a Zen
  /// machine: amd-ibs samples, zen4's core counters count beside it).
  std::vector<std::string> other_backends;
  bool hardware_sampling = false;    ///< a PMU that samples (ibs_op/ibs_fetch, cpu) is there
  std::vector<std::string> reasons;  ///< why sampling is or is not available, one fact each
};

/// The checks `tagop cpu` prints, for `host` (detect_host() for this
/// machine, or any other for a what-if), against `registry`'s backends.
HostChecks check_host(const HostCpu& host, const Registry& registry);
/// check_host(detect_host(), Registry::builtin()).
HostChecks check_host();

}  // namespace tagop
