#include <tagop/amd_ibs/backend.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_entries
#include <tagop/amd_ibs/programmer.hpp>      // program
#include <tagop/error.hpp>                    // Error
#include <tagop/host.hpp>                     // detect_host

namespace tagop::amd_ibs {

namespace {

// The processor asked for, or this machine's when it has IBS.
CpuId processor_of(const ProgramOptions& o) {
  if (o.processor) return *o.processor;
  const HostCpu host = detect_host();
  if (host.vendor != "AuthenticAMD" && host.vendor != "HygonGenuine")
    throw Error(ErrorCode::not_supported,
                fmt::format("AMD IBS: this machine's processor is {}, not AMD's; set ProgramOptions::processor to "
                            "program IBS for another machine",
                            host.vendor.empty() ? "unknown" : host.vendor));
  return {host.vendor, host.family, host.model, host.stepping};
}

// IBS samples every op (or fetch) and the derived event is a question
// asked of the samples, so the unit and the sampling settings are all
// there is to choose.
Programming program_entry(const EventEntry& e, std::string_view, const ProgramOptions& o) {
  const CpuId cpu = processor_of(o);
  IbsRequest request;
  request.unit = e.kind == SampleKind::fetch ? IbsUnit::fetch : IbsUnit::op;
  if (o.period) request.period = *o.period;
  request.exclude_user = o.exclude_user;
  request.exclude_kernel = o.exclude_kernel;
  request.l3_miss_only = o.ibs_l3_miss_only;
  request.load_latency = o.ibs_load_latency;
  request.family = cpu.family;
  request.model = cpu.model;
  request.stepping = cpu.stepping;
  Programming p = program(request);
  if (!o.processor) p.notes.push_back(fmt::format("programmed for this machine's processor, {}", cpu.to_string()));
  return p;
}

std::string program_command(const EventEntry& e, std::string_view) {
  return e.kind == SampleKind::fetch ? "tagop program ibs-fetch" : "tagop program ibs-op";
}

std::string tables_for(const CpuId& cpu) {
  if (cpu.vendor != "AuthenticAMD" && cpu.vendor != "HygonGenuine") return {};
  if (cpu.family < 0x10 || cpu.family == 0x14) return {};
  return fmt::format("IBS register layouts and derived events for family {:#x}", cpu.family);
}

}  // namespace

void register_backend(Registry& registry) {
  registry.add(BackendInfo{
      .name = "amd-ibs",
      .title = "AMD Instruction-Based Sampling (CodeAnalyst derived events)",
      .mechanism = Mechanism::instruction_sampling,
      .events = [] { return derived_event_entries(); },
      .program = program_entry,
      .program_command = program_command,
      .tables_for = tables_for,
  });
}

}  // namespace tagop::amd_ibs
