#include "program_record.hpp"

namespace tagop::cli {

namespace {

PerfEventAttrRecord attr_record(const PerfEvent& e) {
  const perf_event_attr& a = e.attr;
  PerfEventAttrRecord r;
  if (!e.pmu.empty()) {
    r.pmu = e.pmu;
    const int type = sysfs_pmu_type(e.pmu);
    if (type >= 0) r.type = type;
    r.type_from = "/sys/bus/event_source/devices/" + e.pmu + "/type";
  } else {
    r.type = a.type;
    if (const char* name = perf_type_name(a.type)) r.type_name = name;
  }
  r.config = {a.config};
  r.config1 = {a.config1};
  r.config2 = {a.config2};
  if (a.freq) r.sample_freq = a.sample_freq;
  else r.sample_period = a.sample_period;
  r.sample_type = {a.sample_type};
  r.sample_type_names = sample_type_text(a.sample_type);
  r.precise_ip = a.precise_ip;
  r.exclude_user = a.exclude_user;
  r.exclude_kernel = a.exclude_kernel;
  r.exclude_hv = a.exclude_hv;
  r.disabled = a.disabled;
  if (!e.description.empty()) r.description = e.description;
  return r;
}

}  // namespace

ProgramRecord program_record(const Programming& p) {
  ProgramRecord r;
  for (const MsrWrite& w : p.msr_writes) {
    MsrWriteRecord m;
    m.msr = {w.msr};
    m.name = w.name;
    m.value = {w.value};
    if (!w.note.empty()) m.note = w.note;
    r.msr_writes.push_back(std::move(m));
  }
  for (const PerfEvent& e : p.perf_events) r.perf_event_attrs.push_back(attr_record(e));
  if (!r.perf_event_attrs.empty()) r.perf_event_attr = r.perf_event_attrs.front();
  r.notes = p.notes;
  return r;
}

}  // namespace tagop::cli
