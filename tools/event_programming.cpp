#include "event_programming.hpp"

#include <tagop/error.hpp>     // Error
#include <tagop/host.hpp>      // detect_host
#include <tagop/registry.hpp>  // Registry

namespace tagop::cli {

namespace {

bool amd(const HostCpu& host) { return host.vendor == "AuthenticAMD" || host.vendor == "HygonGenuine"; }

}  // namespace

EntryProgramming program_entry(const EventEntry& e, std::string_view spelled,
                               const std::optional<IbsProcessor>& processor) {
  const Registry& registry = Registry::builtin();
  EntryProgramming out;
  // IBS is programmed for a processor: --family's, this machine's, or (on
  // a machine without IBS) the first family with IBS, said in a note.
  ProgramOptions options;
  bool assumed = false;
  if (e.backend == "amd-ibs") {
    if (processor) options.processor = CpuId{"AuthenticAMD", processor->family, processor->model, 0};
    else if (!amd(detect_host())) options.processor = CpuId{"AuthenticAMD", 0x10, 0, 0}, assumed = true;
  }
  try {
    out.request = registry.program_command(e, spelled);
    out.programming = registry.program(e, spelled, options);
    if (assumed)
      out.programming->notes.push_back("programmed for Family 10h model 00h, assumed: this machine has no IBS; "
                                       "give --family (and --model) for another processor");
  } catch (const Error& error) {
    out.refused = error.what();
  }
  return out;
}

}  // namespace tagop::cli
