#include "ibs_processor.hpp"

#include <cstdio>  // stderr

#include <fmt/format.h>  // fmt::print

#include <tagop/amd_ibs/families.hpp>  // find_ibs_family, require_ibs_family

#include <tagop/host.hpp>  // detect_host
#include "output.hpp"

namespace tagop::cli {

void add_ibs_processor_options(CLI::App& cmd, IbsProcessorOptions& o) {
  cmd.add_option("--family", o.family,
                 "Processor family: 19h, 0x19 or 25 (decimal). Default: this host's when it has IBS, else Family 10h "
                 "(said on stderr)");
  cmd.add_option("--model", o.model, "Processor model, as --family (default 0, or the host's)");
  cmd.add_option("--caps", o.caps,
                 "IBS capabilities (CPUID 8000_001B EAX, the first word of perf's raw samples) instead of what the "
                 "family and model report: 0xbff has Zen 4's extensions");
}

namespace {

// A model the table of generations does not list reads as the nearest one
// it lists, as a capture of it does (IbsCapture): said on stderr.
IbsProcessor known_layout(IbsProcessor p) {
  if (const std::optional<unsigned> near = amd_ibs::nearest_known_model(p.family, p.model)) {
    fmt::print(stderr,
               "tagop: note: Family {:X}h model {:02X}h is not in tagop's table of AMD generations: read with the "
               "layout of model {:02X}h ({}), the nearest it knows\n",
               p.family, p.model, *near, amd_ibs::generation(p.family, *near));
    p.model = *near;
  }
  return p;
}

}  // namespace

IbsProcessor choose_ibs_processor(const IbsProcessorOptions& o) {
  IbsProcessor p;
  if (!o.caps.empty()) p.caps = static_cast<std::uint32_t>(parse_u64(o.caps, "capabilities"));
  if (!o.family.empty()) {
    p.family = parse_cpu_number(o.family, "family");
    p.model = o.model.empty() ? 0 : parse_cpu_number(o.model, "model");
    p.source = "--family";
    amd_ibs::require_ibs_family(p.family);
    return known_layout(p);
  }
  if (!o.model.empty() || !o.caps.empty()) usage_error("--model and --caps need --family");
  const HostCpu host = detect_host();
  const bool amd = host.vendor == "AuthenticAMD" || host.vendor == "HygonGenuine";
  if (amd && host.ibs_flag && amd_ibs::find_ibs_family(host.family)) {
    p.family = host.family;
    p.model = host.model;
    p.caps = host.ibs_capabilities;
    p.source = "this host";
    return known_layout(p);
  }
  p.source = "assumed";
  fmt::print(stderr,
             "tagop: note: no --family given and this host ({} family {:#x}) has no IBS: assumed Family 10h model "
             "00h; give --family (and --model), e.g. --family 19h --model 1 for a Zen 3\n",
             host.vendor.empty() ? "unknown vendor" : host.vendor, host.family);
  return p;
}

}  // namespace tagop::cli
