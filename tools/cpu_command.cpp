// tagop cpu: which backend and tables apply to this machine, and what
// precise sampling it offers (and why not, where it does not).

#include <algorithm>  // std::find
#include <memory>     // std::make_shared

#include <fmt/format.h>  // fmt::print

#include <tagop/intel_atom/events.hpp>  // microarchitecture_of, pmu_spec

#include "commands.hpp"
#include "host_cpu.hpp"
#include "output.hpp"
#include "output_records.hpp"  // HostReport
#include "terminal.hpp"

namespace tagop::cli {

namespace {

struct Verdict {
  std::string backend;  // "" when tagop has no table for this processor
  std::string tables;
  bool sampling = false;
  std::vector<std::string> reasons;  // why sampling is or is not available
};

bool has(const HostCpu& h, std::string_view pmu) {
  return std::find(h.pmus.begin(), h.pmus.end(), pmu) != h.pmus.end();
}

std::string paranoid_text(int v) {
  if (v >= 3) return fmt::format("perf_event_paranoid is {}: unprivileged users cannot open perf events at all", v);
  if (v == 2) return "perf_event_paranoid is 2: unprivileged users may measure user space only (kernel samples need CAP_PERFMON)";
  if (v == 1) return "perf_event_paranoid is 1: unprivileged users may measure user and kernel space of their own processes";
  return fmt::format("perf_event_paranoid is {}: unprivileged users may also measure the whole system", v);
}

Verdict judge(const HostCpu& h) {
  Verdict v;
  const bool hardware_pmu = has(h, "cpu") || has(h, "cpu_core") || has(h, "cpu_atom") || has(h, "ibs_op");
  if (h.vendor == "AuthenticAMD" || h.vendor == "HygonGenuine") {
    if (h.family >= 0x10 && h.family != 0x14) {
      v.backend = "amd-ibs";
      v.tables = fmt::format("IBS register layouts and derived events for family {:#x}", h.family);
    }
    v.sampling = has(h, "ibs_op") || has(h, "ibs_fetch");
    if (!h.ibs_flag)
      v.reasons.push_back(h.hypervisor ? "CPUID 8000_0001 ECX[10] (IBS) is clear: the hypervisor does not expose IBS to this virtual machine"
                                       : "CPUID 8000_0001 ECX[10] (IBS) is clear: this processor has no IBS");
    else if (h.ibs_capabilities)
      v.reasons.push_back(fmt::format("CPUID 8000_001B EAX (IBS capabilities) = {:#x}", *h.ibs_capabilities));
    if (!v.sampling) v.reasons.push_back("no ibs_op or ibs_fetch PMU in /sys/bus/event_source/devices");
  } else if (h.vendor == "GenuineIntel") {
    if (h.family == 0xF) {
      v.backend = "p4";
      v.tables = "Pentium 4 ESCR/CCCR events and at-retirement metrics (SDM Tables 19-31 to 19-33)";
    } else if (const auto uarch = intel_atom::microarchitecture_of(h.family, h.model)) {
      const auto& spec = intel_atom::pmu_spec(*uarch);
      v.backend = std::string(spec.backend);
      v.tables = std::string(spec.sdm_table);
    }
    v.sampling = has(h, "cpu") || has(h, "cpu_core") || has(h, "cpu_atom");
    if (!v.sampling) v.reasons.push_back("no cpu PMU in /sys/bus/event_source/devices: no PEBS or counter sampling");
  }
  if (v.backend.empty())
    v.reasons.push_back(fmt::format("tagop has no table for {} family {:#x} model {:#x}; "
                                    "'tagop events show PMU::EVENT' still answers through libpfm4",
                                    h.vendor, h.family, h.model));
  if (!hardware_pmu)
    v.reasons.push_back(fmt::format("no hardware PMU: the kernel exposes only {} PMUs{}", [&] {
      std::string s;
      for (const auto& p : h.pmus) s += (s.empty() ? "" : ", ") + p;
      return s.empty() ? std::string("no") : s;
    }(), h.hypervisor ? " (a virtual machine without PMU passthrough)" : ""));
  if (h.perf_event_paranoid) v.reasons.push_back(paranoid_text(*h.perf_event_paranoid));
  return v;
}

void cpu(Format format) {
  const HostCpu h = detect_host();
  const Verdict v = judge(h);
  if (format != Format::text) {
    const HostReport out{h.vendor, h.family, h.model, h.stepping, h.model_name, h.source, h.hypervisor, h.ibs_flag,
                         h.ibs_capabilities ? std::optional(record::Hex{*h.ibs_capabilities}) : std::nullopt,
                         h.pmus, h.perf_event_paranoid,
                         v.backend.empty() ? std::nullopt : std::optional(v.backend), v.tables, v.sampling, v.reasons};
    print_record(record::to_json(out), host_report_contract.schema, format);
    return;
  }
  const std::size_t width = terminal_width();
  fmt::print("processor: {} family {:#x} model {:#x} stepping {} ({}; from {})\n", h.vendor, h.family, h.model,
             h.stepping, h.model_name.empty() ? "no model name" : h.model_name, h.source);
  if (h.hypervisor) fmt::print("virtual machine: yes (CPUID hypervisor bit)\n");
  fmt::print("backend: {}\n", v.backend.empty() ? "none" : v.backend);
  if (!v.tables.empty()) fmt::print("tables: {}\n", wrap(v.tables, width, 8));
  std::string pmus;
  for (const auto& p : h.pmus) pmus += (pmus.empty() ? "" : ", ") + p;
  fmt::print("PMUs: {}\n", pmus.empty() ? "(none)" : pmus);
  fmt::print("hardware sampling: {}\n", v.sampling ? "available" : "not available on this machine");
  for (const auto& r : v.reasons) fmt::print("  - {}\n", wrap(r, width, 4));
}

}  // namespace

void add_cpu_command(CLI::App& app) {
  auto output = std::make_shared<OutputOptions>();
  CLI::App* cmd = app.add_subcommand("cpu", "This machine's processor, the backend that applies, and what sampling it offers");
  add_output_options(*cmd, *output, /*with_csv=*/true);
  cmd->callback([output] { cpu(output->resolved()); });
}

}  // namespace tagop::cli
