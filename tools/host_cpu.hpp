#pragma once
// What this machine is and what precise sampling it offers: the processor
// (cpuid, /proc/cpuinfo), the PMUs the kernel exposes, perf_event_paranoid.

#include <cstdint>   // std::uint32_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

namespace tagop::cli {

struct HostCpu {
  std::string vendor;        // "AuthenticAMD"
  unsigned family = 0, model = 0, stepping = 0;
  std::string model_name;
  bool hypervisor = false;   // CPUID.1:ECX[31]: running in a virtual machine
  bool ibs_flag = false;     // CPUID 8000_0001 ECX[10]
  std::optional<std::uint32_t> ibs_capabilities;  // CPUID 8000_001B EAX
  std::string source;        // "cpuid" or "/proc/cpuinfo"
  std::vector<std::string> pmus;  // /sys/bus/event_source/devices
  std::optional<int> perf_event_paranoid;
};

HostCpu detect_host();

}  // namespace tagop::cli
