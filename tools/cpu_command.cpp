// tagop cpu: which backend and tables apply to this machine, and what
// precise sampling it offers (and why not, where it does not).

#include <memory>  // std::make_shared

#include <fmt/format.h>       // fmt::print
#include <nlohmann/json.hpp>  // JSON output

#include <tagop/host.hpp>      // detect_host, check_host
#include <tagop/registry.hpp>  // Registry

#include "commands.hpp"
#include "output.hpp"
#include "terminal.hpp"

namespace tagop::cli {

namespace {

using json = nlohmann::ordered_json;

void cpu(Format format) {
  const HostCpu h = detect_host();
  const HostChecks v = check_host(h, Registry::builtin());
  if (format == Format::json) {
    json j;
    j["vendor"] = h.vendor;
    j["family"] = h.family;
    j["model"] = h.model;
    j["stepping"] = h.stepping;
    j["model_name"] = h.model_name;
    j["source"] = h.source;
    j["hypervisor"] = h.hypervisor;
    j["ibs"] = h.ibs_flag;
    if (h.ibs_capabilities) j["ibs_capabilities"] = fmt::format("{:#x}", *h.ibs_capabilities);
    j["pmus"] = h.pmus;
    j["perf_event_paranoid"] = h.perf_event_paranoid ? json(*h.perf_event_paranoid) : json(nullptr);
    j["backend"] = v.backend.empty() ? json(nullptr) : json(v.backend);
    j["tables"] = v.tables;
    j["hardware_sampling"] = v.hardware_sampling;
    j["reasons"] = v.reasons;
    print_json(j);
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
  fmt::print("hardware sampling: {}\n", v.hardware_sampling ? "available" : "not available on this machine");
  for (const auto& r : v.reasons) fmt::print("  - {}\n", wrap(r, width, 4));
}

}  // namespace

void add_cpu_command(CLI::App& app) {
  auto output = std::make_shared<OutputOptions>();
  CLI::App* cmd = app.add_subcommand("cpu", "This machine's processor, the backend that applies, and what sampling it offers");
  add_output_options(*cmd, *output);
  cmd->callback([output] { cpu(output->resolved()); });
}

}  // namespace tagop::cli
