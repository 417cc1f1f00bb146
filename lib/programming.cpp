#include <tagop/programming.hpp>

#include <fstream>  // std::ifstream
#include <utility>  // std::pair

#include <fmt/format.h>         // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop {

namespace {

// The sample_type bits people meet, by the kernel's names.
constexpr std::pair<std::uint64_t, const char*> sample_type_names[] = {
    {PERF_SAMPLE_IP, "IP"},         {PERF_SAMPLE_TID, "TID"},       {PERF_SAMPLE_TIME, "TIME"},
    {PERF_SAMPLE_ADDR, "ADDR"},     {PERF_SAMPLE_READ, "READ"},     {PERF_SAMPLE_CALLCHAIN, "CALLCHAIN"},
    {PERF_SAMPLE_ID, "ID"},         {PERF_SAMPLE_CPU, "CPU"},       {PERF_SAMPLE_PERIOD, "PERIOD"},
    {PERF_SAMPLE_STREAM_ID, "STREAM_ID"}, {PERF_SAMPLE_RAW, "RAW"}, {PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
    {PERF_SAMPLE_REGS_USER, "REGS_USER"}, {PERF_SAMPLE_STACK_USER, "STACK_USER"},
    {PERF_SAMPLE_WEIGHT, "WEIGHT"}, {PERF_SAMPLE_DATA_SRC, "DATA_SRC"}, {PERF_SAMPLE_IDENTIFIER, "IDENTIFIER"},
    {PERF_SAMPLE_TRANSACTION, "TRANSACTION"}, {PERF_SAMPLE_REGS_INTR, "REGS_INTR"},
    {PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
};

}  // namespace

std::string sample_type_text(std::uint64_t bits) {
  std::string out;
  for (auto [bit, name] : sample_type_names)
    if (bits & bit) out += (out.empty() ? "" : "|") + std::string(name);
  return out.empty() ? "0" : out;
}

const char* perf_type_name(std::uint32_t type) {
  switch (type) {
    case PERF_TYPE_HARDWARE: return "PERF_TYPE_HARDWARE";
    case PERF_TYPE_SOFTWARE: return "PERF_TYPE_SOFTWARE";
    case PERF_TYPE_TRACEPOINT: return "PERF_TYPE_TRACEPOINT";
    case PERF_TYPE_HW_CACHE: return "PERF_TYPE_HW_CACHE";
    case PERF_TYPE_RAW: return "PERF_TYPE_RAW";
    case PERF_TYPE_BREAKPOINT: return "PERF_TYPE_BREAKPOINT";
    default: return nullptr;
  }
}

perf_event_attr make_perf_attr() {
  perf_event_attr a{};
  a.size = sizeof(perf_event_attr);
  return a;
}

int sysfs_pmu_type(const std::string& pmu) {
  std::ifstream in("/sys/bus/event_source/devices/" + pmu + "/type");
  int type = -1;
  if (!(in >> type)) return -1;
  return type;
}

std::uint32_t pmu_type_or_unresolved(const std::string& pmu) {
  const int type = sysfs_pmu_type(pmu);
  return type >= 0 ? static_cast<std::uint32_t>(type) : unresolved_pmu_type;
}

void resolve_pmu_type(PerfEvent& event) {
  if (event.pmu.empty()) return;
  const int type = sysfs_pmu_type(event.pmu);
  if (type < 0)
    throw Error(ErrorCode::no_pmu,
                fmt::format("/sys/bus/event_source/devices/{}: no such PMU on this machine", event.pmu));
  event.attr.type = static_cast<std::uint32_t>(type);
}

std::string to_text(const Programming& p) {
  std::string out;
  if (!p.msr_writes.empty()) out += "MSR writes, in order:\n";
  for (const MsrWrite& w : p.msr_writes) {
    out += fmt::format("  wrmsr {:#010x} {:<22} = {:#018x}", w.msr, w.name, w.value);
    out += w.note.empty() ? "\n" : fmt::format("  # {}\n", w.note);
  }
  for (const PerfEvent& e : p.perf_events) {
    const perf_event_attr& a = e.attr;
    out += "perf_event_attr";
    out += e.description.empty() ? ":\n" : fmt::format(" ({}):\n", e.description);
    if (!e.pmu.empty()) {
      const int type = sysfs_pmu_type(e.pmu);
      out += type >= 0 ? fmt::format("  type           = {} (PMU {})\n", type, e.pmu)
                       : fmt::format("  type           = from /sys/bus/event_source/devices/{}/type "
                                     "(not on this machine)\n",
                                     e.pmu);
    } else {
      const char* name = perf_type_name(a.type);
      out += fmt::format("  type           = {}{}\n", a.type, name ? fmt::format(" ({})", name) : "");
    }
    out += fmt::format("  config         = {:#x}\n", a.config);
    if (a.config1) out += fmt::format("  config1        = {:#x}\n", a.config1);
    if (a.config2) out += fmt::format("  config2        = {:#x}\n", a.config2);
    out += a.freq ? fmt::format("  sample_freq    = {}\n", a.sample_freq)
                  : fmt::format("  sample_period  = {}\n", a.sample_period);
    out += fmt::format("  sample_type    = {}\n", sample_type_text(a.sample_type));
    if (a.precise_ip) out += fmt::format("  precise_ip     = {}\n", a.precise_ip);
    if (a.exclude_user) out += "  exclude_user   = 1\n";
    if (a.exclude_kernel) out += "  exclude_kernel = 1\n";
    if (a.exclude_hv) out += "  exclude_hv     = 1\n";
  }
  for (const std::string& n : p.notes) out += fmt::format("note: {}\n", n);
  return out;
}

}  // namespace tagop
