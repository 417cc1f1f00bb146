// Events named on a command line, as perf_event_attrs: the software clocks
// by name, everything else through libpfm4.

// The kernel's header first: libpfm4's own copy of it then stands aside.
#include <linux/perf_event.h>  // perf_event_attr

#include <perfmon/pfmlib_perf_event.h>  // pfm_get_os_event_encoding

#include <cstdlib>  // std::free

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>             // Error
#include <tagop/sampling_session.hpp>  // software_event, libpfm_event

namespace tagop {

std::optional<PerfEvent> software_event(const std::string& name) {
  std::uint64_t config = 0;
  if (name == "cpu-clock") config = PERF_COUNT_SW_CPU_CLOCK;
  else if (name == "task-clock") config = PERF_COUNT_SW_TASK_CLOCK;
  else return std::nullopt;
  PerfEvent e{.pmu = "", .attr = make_perf_attr(), .description = name};
  e.attr.type = PERF_TYPE_SOFTWARE;
  e.attr.config = config;
  return e;
}

PerfEvent libpfm_event(const std::string& name) {
  // pfm_initialize is idempotent and cheap after the first call.
  if (const int r = pfm_initialize(); r != PFM_SUCCESS)
    throw Error(fmt::format("libpfm4 cannot start: {}", pfm_strerror(r)));
  PerfEvent e{.pmu = "", .attr = make_perf_attr(), .description = name};
  pfm_perf_encode_arg_t arg{};
  arg.attr = &e.attr;
  arg.size = sizeof arg;
  char* fstr = nullptr;
  arg.fstr = &fstr;
  const int r = pfm_get_os_event_encoding(name.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  if (r != PFM_SUCCESS)
    throw Error(fmt::format("event '{}': {} (libpfm4 knows the events of this machine's PMUs: see `showevtinfo`)",
                            name, pfm_strerror(r)));
  if (fstr) {
    e.description = fstr;
    std::free(fstr);
  }
  e.attr.size = sizeof e.attr;
  return e;
}

}  // namespace tagop
