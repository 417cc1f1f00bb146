// Events named on a command line, as perf_event_attrs: perf's software
// events by name, everything else through libpfm4.

// The kernel's header first: libpfm4's own copy of it then stands aside.
#include <linux/perf_event.h>  // perf_event_attr

#include <perfmon/pfmlib_perf_event.h>  // pfm_get_os_event_encoding

#include <cstdlib>  // std::free

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>             // Error
#include <tagop/sampling_session.hpp>  // software_event, libpfm_event

namespace tagop {

namespace {

// perf's software events (tools/perf/util/parse-events.c, event_symbols_sw):
// each name perf accepts, the first of a config its canonical one.
struct SoftwareEventName {
  const char* name;
  std::uint64_t config;
};
constexpr SoftwareEventName software_events[] = {
    {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
    {"faults", PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cs", PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
    {"migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
    {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS},
    {"dummy", PERF_COUNT_SW_DUMMY},
};

}  // namespace

std::optional<PerfEvent> software_event(const std::string& name) {
  for (const SoftwareEventName& e : software_events)
    if (name == e.name) {
      PerfEvent event{.pmu = "", .attr = make_perf_attr(), .description = name};
      event.attr.type = PERF_TYPE_SOFTWARE;
      event.attr.config = e.config;
      return event;
    }
  return std::nullopt;
}

std::vector<std::string> software_event_names() {
  std::vector<std::string> names;
  std::uint64_t seen = 0;
  for (const SoftwareEventName& e : software_events)
    if (!(seen >> e.config & 1)) {
      seen |= std::uint64_t{1} << e.config;
      names.emplace_back(e.name);
    }
  return names;
}

PerfEvent libpfm_event(const std::string& name) {
  // pfm_initialize is idempotent and cheap after the first call.
  if (const int r = pfm_initialize(); r != PFM_SUCCESS)
    throw Error(ErrorCode::not_supported, fmt::format("libpfm4 cannot start: {}", pfm_strerror(r)));
  PerfEvent e{.pmu = "", .attr = make_perf_attr(), .description = name};
  pfm_perf_encode_arg_t arg{};
  arg.attr = &e.attr;
  arg.size = sizeof arg;
  char* fstr = nullptr;
  arg.fstr = &fstr;
  const int r = pfm_get_os_event_encoding(name.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  if (r != PFM_SUCCESS)
    throw Error(r == PFM_ERR_NOTFOUND ? ErrorCode::not_found : ErrorCode::bad_input,
                fmt::format("event '{}': {} (libpfm4 knows the events of this machine's PMUs: see `showevtinfo`)",
                            name, pfm_strerror(r)));
  if (fstr) {
    e.description = fstr;
    std::free(fstr);
  }
  e.attr.size = sizeof e.attr;
  return e;
}

}  // namespace tagop
