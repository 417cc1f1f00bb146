#include <tagop/arm_spe/backend.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/arm_spe/derived_events.hpp>  // derived_event_entries
#include <tagop/arm_spe/programmer.hpp>      // program
#include <tagop/error.hpp>                   // Error

namespace tagop::arm_spe {

namespace {

// SPE samples every kind of op and a derived event is a question asked of
// the samples; the programmer narrows the sampling with the filters the
// event's predicate allows. ProgramOptions names x86 processors only, so
// this machine must have the PMU.
Programming program_entry(const EventEntry& e, std::string_view, const ProgramOptions& o) {
  if (sysfs_pmu_type("arm_spe_0") < 0)
    throw Error(ErrorCode::not_supported,
                "Arm SPE: this machine has no arm_spe_0 PMU (/sys/bus/event_source/devices/arm_spe_0): SPE is a "
                "feature of Arm processors (Armv8.2 and later); tagop::arm_spe::program() gives the "
                "perf_event_attr for another machine");
  if (o.ibs_l3_miss_only || o.ibs_load_latency)
    throw Error(ErrorCode::not_supported, "Arm SPE: the IBS options (L3MissOnly, load latency) are not SPE's");
  SpeRequest r;
  r.predicate = Predicate::parse(e.predicate);
  if (o.period) r.period = *o.period;
  r.exclude_user = o.exclude_user;
  r.exclude_kernel = o.exclude_kernel;
  return program(r);
}

}  // namespace

void register_backend(Registry& registry) {
  registry.add(BackendInfo{
      .name = "arm-spe",
      .title = "Arm Statistical Profiling Extension (SPE derived events)",
      .mechanism = Mechanism::instruction_sampling,
      .events = [] { return derived_event_entries(); },
      .program = program_entry,
  });
}

}  // namespace tagop::arm_spe
