// tagop cpu: which backend and tables apply to this machine, and what
// precise sampling it offers (and why not, where it does not).

#include <memory>  // std::make_shared

#include <fmt/format.h>  // fmt::print

#include <tagop/cpu.hpp>       // CpuId
#include <tagop/host.hpp>      // detect_host, check_host
#include <tagop/registry.hpp>  // Registry

#include "commands.hpp"
#include "output.hpp"
#include "output_records.hpp"  // HostReport
#include "terminal.hpp"

namespace tagop::cli {

namespace {

void cpu(Format format) {
  const HostCpu h = detect_host();
  const HostChecks v = check_host(h, Registry::builtin());
  if (format != Format::text) {
    const HostReport out{h.vendor, h.family, h.model, h.stepping, h.model_name, h.source, h.hypervisor, h.ibs_flag,
                         h.ibs_capabilities ? std::optional(record::Hex{*h.ibs_capabilities}) : std::nullopt,
                         h.pmus, h.perf_event_paranoid,
                         v.backend.empty() ? std::nullopt : std::optional(v.backend), v.tables, v.other_backends,
                         v.hardware_sampling,
                         v.reasons};
    print_record(record::to_json(out), host_report_contract.schema, format);
    return;
  }
  const std::size_t width = terminal_width();
  fmt::print("processor: {} family {:#x} model {:#x} stepping {} ({}; from {})\n", h.vendor, h.family, h.model,
             h.stepping, h.model_name.empty() ? "no model name" : h.model_name, h.source);
  if (h.hypervisor) fmt::print("virtual machine: yes (CPUID hypervisor bit)\n");
  fmt::print("backend: {}\n", v.backend.empty() ? "none" : v.backend);
  if (!v.tables.empty()) fmt::print("tables: {}\n", wrap(v.tables, width, 8));
  for (const auto& name : v.other_backends)
    if (const BackendInfo* b = Registry::builtin().find(name))
      fmt::print("also: {}: {}\n", name, wrap(b->tables_for(CpuId{.vendor = h.vendor, .family = h.family, .model = h.model, .stepping = h.stepping}), width, 8));
  std::string pmus;
  for (const auto& p : h.pmus) pmus += (pmus.empty() ? "" : ", ") + p;
  fmt::print("PMUs: {}\n", pmus.empty() ? "(none)" : pmus);
  fmt::print("hardware sampling: {}\n", v.hardware_sampling ? "available" : "not available on this machine");
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
