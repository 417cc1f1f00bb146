// check_host(): which backend's tables fit this processor (each backend
// says, through the registry), and whether and why it can sample.

#include <tagop/host.hpp>

#include <algorithm>  // std::find

#include <fmt/format.h>  // fmt::format

#include <tagop/cpu.hpp>       // CpuId
#include <tagop/registry.hpp>  // Registry

namespace tagop {

namespace {

bool has(const HostCpu& h, std::string_view pmu) {
  return std::find(h.pmus.begin(), h.pmus.end(), pmu) != h.pmus.end();
}

std::string paranoid_text(int v) {
  if (v >= 3) return fmt::format("perf_event_paranoid is {}: unprivileged users cannot open perf events at all", v);
  if (v == 2) return "perf_event_paranoid is 2: unprivileged users may measure user space only (kernel samples need CAP_PERFMON)";
  if (v == 1) return "perf_event_paranoid is 1: unprivileged users may measure user and kernel space of their own processes";
  return fmt::format("perf_event_paranoid is {}: unprivileged users may also measure the whole system", v);
}

}  // namespace

HostChecks check_host(const HostCpu& h, const Registry& registry) {
  HostChecks v;
  const CpuId cpu{.vendor = h.vendor, .family = h.family, .model = h.model, .stepping = h.stepping};
  for (const BackendInfo& b : registry.backends()) {
    if (!b.tables_for) continue;
    std::string tables = b.tables_for(cpu);
    if (tables.empty()) continue;
    if (v.backend.empty()) {
      v.backend = std::string(b.name);
      v.tables = std::move(tables);
    } else {
      v.other_backends.emplace_back(b.name);
    }
  }
  const bool hardware_pmu = has(h, "cpu") || has(h, "cpu_core") || has(h, "cpu_atom") || has(h, "ibs_op");
  if (h.vendor == "AuthenticAMD" || h.vendor == "HygonGenuine") {
    v.hardware_sampling = has(h, "ibs_op") || has(h, "ibs_fetch");
    if (!h.ibs_flag)
      v.reasons.push_back(h.hypervisor ? "CPUID 8000_0001 ECX[10] (IBS) is clear: the hypervisor does not expose IBS to this virtual machine"
                                       : "CPUID 8000_0001 ECX[10] (IBS) is clear: this processor has no IBS");
    else if (h.ibs_capabilities)
      v.reasons.push_back(fmt::format("CPUID 8000_001B EAX (IBS capabilities) = {:#x}", *h.ibs_capabilities));
    if (!v.hardware_sampling) v.reasons.push_back("no ibs_op or ibs_fetch PMU in /sys/bus/event_source/devices");
  } else if (h.vendor == "GenuineIntel") {
    v.hardware_sampling = has(h, "cpu") || has(h, "cpu_core") || has(h, "cpu_atom");
    if (!v.hardware_sampling)
      v.reasons.push_back("no cpu PMU in /sys/bus/event_source/devices: no PEBS or counter sampling");
  }
  if (v.backend.empty())
    v.reasons.push_back(fmt::format("tagop has no table for {} family {:#x} model {:#x}; "
                                    "'tagop events show PMU::EVENT' still answers through libpfm4",
                                    h.vendor, h.family, h.model));
  if (!hardware_pmu) {
    std::string pmus;
    for (const auto& p : h.pmus) pmus += (pmus.empty() ? "" : ", ") + p;
    v.reasons.push_back(fmt::format("no hardware PMU: the kernel exposes only {} PMUs{}", pmus.empty() ? "no" : pmus,
                                    h.hypervisor ? " (a virtual machine without PMU passthrough)" : ""));
  }
  if (h.perf_event_paranoid) v.reasons.push_back(paranoid_text(*h.perf_event_paranoid));
  return v;
}

HostChecks check_host() { return check_host(detect_host(), Registry::builtin()); }

}  // namespace tagop
