#include <tagop/intel_p4/programmer.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

#include "allocation.hpp"  // detail::allocate

namespace tagop::intel_p4 {

namespace {

// One ESCR (and usually one counter) to program.
struct Slot {
  detail::Demand demand;
  const EventSpec* event = nullptr;
  std::string purpose;          // "for split_load_retired"; "" for a raw event
  std::uint32_t mask = 0;       // event-mask bits, bit k = ESCR bit 9+k
  std::uint8_t tag_value = 0;   // execution tagging's upstream ESCR, with tag enable
  bool sampled = false;         // the event the user measures: period and OVF_PMI when sampling
  bool pebs = false;
  int linux_metric = 0;
};

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : std::string(separator)) + p;
  return out;
}

std::string mask_names(const EventSpec& e, std::uint32_t mask) {
  std::vector<std::string> names;
  for (const MaskBitSpec& m : e.masks)
    if (!m.name.empty() && ((mask >> m.bit) & 1)) names.emplace_back(m.name);
  return join(names, ":");
}

std::string event_text(const Slot& s) {
  std::string text = std::string(s.event->name) + ":" + mask_names(*s.event, s.mask);
  if (s.tag_value) text += fmt::format(" tag {}", s.tag_value);
  return text;
}

std::vector<const EscrSpec*> escrs_of(const EventSpec& e, std::string_view only = {}) {
  std::vector<const EscrSpec*> out;
  for (std::string_view name : e.escrs)
    if (only.empty() || name == only) out.push_back(find_escr(name));
  return out;
}

// The ESCR without its privilege bits: what perf's raw config carries too.
std::uint32_t escr_event_bits(const Slot& s, std::uint8_t event_select) {
  std::uint32_t v = std::uint32_t{event_select} << escr_bits::event_select_shift;
  v |= s.mask << escr_bits::event_mask_shift;
  if (s.tag_value) v |= escr_bits::tag_enable | std::uint32_t{s.tag_value} << escr_bits::tag_value_shift;
  return v;
}

std::uint32_t privilege_bits(const P4Request& r) {
  std::uint32_t v = 0;
  if (!r.exclude_kernel) v |= r.thread == 0 ? escr_bits::t0_os : escr_bits::t1_os;
  if (!r.exclude_user) v |= r.thread == 0 ? escr_bits::t0_usr : escr_bits::t1_usr;
  return v;
}

std::string name_list(const std::vector<std::string_view>& names) {
  std::vector<std::string> parts;
  for (std::string_view n : names) parts.push_back(std::string(n));
  return join(parts, ", ");
}

// What perf_event_open needs to do the same through the kernel's P4 PMU.
PerfEvent perf_event_for(const Slot& s, const P4Request& r) {
  PerfEvent e;
  e.attr = make_perf_attr();
  e.attr.type = PERF_TYPE_RAW;
  // The kernel finds its ESCR and counter from the event index it reads
  // in the event-select field, sets the privilege bits, enable and ESCR
  // select itself, and takes the replay metric from CCCR bits 0-5.
  const std::uint64_t kernel_escr = escr_event_bits(s, static_cast<std::uint8_t>(s.event->linux_index));
  e.attr.config = kernel_escr << 32 | cccr_bits::active_thread_any | static_cast<std::uint32_t>(s.linux_metric);
  e.attr.exclude_user = r.exclude_user;
  e.attr.exclude_kernel = r.exclude_kernel;
  if (s.sampled) {
    e.attr.sample_period = *r.period;
    e.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  }
  if (s.pebs) e.attr.precise_ip = 1;
  e.description = fmt::format("{}{}{}", event_text(s), s.purpose.empty() ? "" : " " + s.purpose,
                              s.linux_metric ? fmt::format(", Linux replay metric {}", s.linux_metric) : "");
  return e;
}

void check_request(const P4Request& r) {
  if (r.events.empty()) throw Error("nothing to program: name at least one metric or event");
  if (r.thread > 1)
    throw Error(fmt::format("thread {} does not exist: a Pentium 4 has logical processors 0 and 1 (with "
                            "Hyper-Threading)",
                            r.thread));
  if (r.exclude_user && r.exclude_kernel) throw Error("excluding both user and kernel leaves nothing to count");
  if (r.period) {
    constexpr std::uint64_t max_period = (std::uint64_t{1} << counter_width) - 1;
    if (*r.period == 0 || *r.period > max_period)
      throw Error(fmt::format("period {} is outside the 40-bit counters: it must be 1 to {}", *r.period, max_period));
  }
}

}  // namespace

ResolvedName resolve(std::string_view name) {
  const std::string_view base = name.substr(0, name.find(':'));
  if (const MetricSpec* m = find_metric(base)) {
    if (base.size() != name.size())
      throw Error(fmt::format("'{}' is a metric: it takes no mask bits (write '{}')", name, m->name));
    return ResolvedName{.metric = m, .event = nullptr, .mask = 0};
  }
  const ParsedEvent parsed = parse_event(name);
  if (!parsed.event) {
    const std::vector<std::string_view> close = closest_names(base);
    throw Error(fmt::format("unknown Pentium 4 metric or event '{}'{}", base,
                            close.empty() ? std::string("; 'tagop events list --backend p4' lists them")
                                          : fmt::format("; did you mean {}?", name_list(close))));
  }
  std::vector<std::string_view> all_masks;
  for (const MaskBitSpec& m : parsed.event->masks)
    if (!m.name.empty()) all_masks.push_back(m.name);
  if (!parsed.bad_mask.empty())
    throw Error(fmt::format("{} has no mask bit '{}': its mask bits are {}", parsed.event->name, parsed.bad_mask,
                            name_list(all_masks)));
  if (parsed.mask == 0)
    throw Error(fmt::format("{} counts nothing without mask bits: add one or more of {} (e.g. '{}:{}')",
                            parsed.event->name, name_list(all_masks), parsed.event->name, all_masks.front()));
  return ResolvedName{.metric = nullptr, .event = parsed.event, .mask = parsed.mask};
}

Programming program(const P4Request& r) {
  check_request(r);

  std::vector<const MetricSpec*> front_end, execution, replay;
  std::vector<ResolvedName> resolved;
  const MetricSpec* pebs_metric = nullptr;
  std::vector<std::string> pebs_names;
  for (const P4EventRequest& req : r.events) {
    const ResolvedName n = resolve(req.name);
    if (req.pebs) pebs_names.push_back(req.name);
    if (!n.metric) {
      if (req.pebs)
        throw Error(ErrorCode::not_supported, fmt::format("PEBS needs a metric, not the raw event '{}': PEBS records the uops a metric's "
                                "upstream tagging marks",
                                req.name));
      resolved.push_back(n);
      continue;
    }
    for (const auto* list : {&front_end, &execution, &replay})
      for (const MetricSpec* m : *list)
        if (m == n.metric) throw Error(fmt::format("metric {} is requested twice", m->name));
    if (req.pebs) pebs_metric = n.metric;
    resolved.push_back(n);
    switch (n.metric->tagging) {
      case Tagging::front_end: front_end.push_back(n.metric); break;
      case Tagging::execution: execution.push_back(n.metric); break;
      case Tagging::replay: replay.push_back(n.metric); break;
    }
  }
  if (pebs_names.size() > 1)
    throw Error(ErrorCode::not_supported, fmt::format("more than one PEBS metric ({}): PEBS has one counter (MSR_IQ_COUNTER4, counter 16) "
                            "and one tagged-uop record format, so only one metric can use it at a time",
                            join(pebs_names, ", ")));
  if (replay.size() > 1) {
    // Every replay metric differs from the others in IA32_PEBS_ENABLE or
    // MSR_PEBS_MATRIX_VERT; both MSRs are shared by all of replay tagging.
    const MetricSpec& a = *replay[0];
    const MetricSpec& b = *replay[1];
    throw Error(ErrorCode::not_supported, fmt::format("replay metrics {} (IA32_PEBS_ENABLE={:#x}, MSR_PEBS_MATRIX_VERT={:#x}) and {} "
                            "(IA32_PEBS_ENABLE={:#x}, MSR_PEBS_MATRIX_VERT={:#x}) cannot be counted together: "
                            "replay tagging has one IA32_PEBS_ENABLE and one MSR_PEBS_MATRIX_VERT, and one "
                            "replay tag bit that replay_event counts",
                            a.name, a.pebs_enable, a.matrix_vert, b.name, b.pebs_enable, b.matrix_vert));
  }
  if (front_end.size() > 1)
    throw Error(ErrorCode::not_supported, fmt::format("front-end metrics {} and {} cannot be counted together: front-end tagging has one "
                            "tag bit, so front_end_event would count the loads and stores as one",
                            front_end[0]->name, front_end[1]->name));
  if (execution.size() > 4)
    throw Error(ErrorCode::not_supported, fmt::format("{} execution metrics requested: execution_event has four tag bits (NBOGUS0-3)",
                            execution.size()));
  if (pebs_metric && pebs_metric->tagging == Tagging::execution && execution.size() > 1)
    throw Error(ErrorCode::not_supported, fmt::format("PEBS on {} leaves execution_event no room for other execution metrics: with PEBS "
                            "it may carry one tag bit only (SDM 18.15.7.3)",
                            pebs_metric->name));

  // Slots in request order; the shared execution_event follows the last
  // execution metric's upstream event.
  std::vector<std::string> execution_names;
  for (const MetricSpec* m : execution) execution_names.emplace_back(m->name);
  std::vector<Slot> slots;
  auto downstream_slot = [&](const MetricSpec& m, std::string purpose) {
    // The tables' self-check proves every metric's event text parses.
    const ParsedEvent down = parse_event(m.downstream);
    const EventSpec& e = *down.event;
    const bool pebs = pebs_metric == &m;
    return Slot{.demand = {.label = fmt::format("{} {}", e.name, purpose), .escrs = escrs_of(e),
                           .needs_counter = true, .pebs = pebs},
                .event = &e,
                .purpose = std::move(purpose),
                .mask = down.mask,
                .tag_value = 0,
                .sampled = r.period.has_value(),
                .pebs = pebs,
                .linux_metric = m.linux_metric};
  };
  auto upstream_slot = [&](const MetricSpec& m, std::uint8_t tag_value) {
    const ParsedEvent up = parse_event(m.upstream);
    const EventSpec& e = *up.event;
    std::string purpose = fmt::format("for {}", m.name);
    return Slot{.demand = {.label = fmt::format("{} {}", e.name, purpose),
                           .escrs = escrs_of(e, m.upstream_escr),
                           .needs_counter = !e.tags_only,
                           .pebs = false},
                .event = &e,
                .purpose = std::move(purpose),
                .mask = up.mask,
                .tag_value = tag_value,
                .sampled = false,
                .pebs = false,
                .linux_metric = 0};
  };
  std::size_t execution_seen = 0;
  for (const ResolvedName& n : resolved) {
    if (!n.metric) {
      slots.push_back(Slot{.demand = {.label = fmt::format("{}:{}", n.event->name, mask_names(*n.event, n.mask)),
                                      .escrs = escrs_of(*n.event),
                                      .needs_counter = !n.event->tags_only,
                                      .pebs = false},
                           .event = n.event,
                           .purpose = {},
                           .mask = n.mask,
                           .tag_value = 0,
                           .sampled = r.period.has_value() && !n.event->tags_only,
                           .pebs = false,
                           .linux_metric = 0});
      continue;
    }
    const MetricSpec& m = *n.metric;
    if (m.tagging != Tagging::execution) {
      if (!m.upstream.empty()) slots.push_back(upstream_slot(m, 0));
      slots.push_back(downstream_slot(m, fmt::format("for {}", m.name)));
      continue;
    }
    // The execution metrics share one execution_event: metric k moves
    // from the table's tag bit 0 to tag bit k, and NBOGUS0 to NBOGUSk.
    const std::size_t k = execution_seen++;
    slots.push_back(upstream_slot(m, static_cast<std::uint8_t>(m.tag_value << k)));
    if (execution_seen < execution.size()) continue;
    Slot down = downstream_slot(*execution[0], fmt::format("for {}", join(execution_names, ", ")));
    down.mask = 0;
    for (std::size_t i = 0; i < execution.size(); ++i) down.mask |= parse_event(execution[i]->downstream).mask << i;
    slots.push_back(std::move(down));
  }

  std::vector<detail::Demand> demands;
  for (const Slot& s : slots) demands.push_back(s.demand);
  const std::vector<detail::Placement> placed = detail::allocate(demands);

  Programming p;
  const std::uint32_t pebs_enable =
      (replay.empty() ? 0 : replay[0]->pebs_enable) | (pebs_metric ? pebs_enable_bits::enable_my_thread : 0);
  const std::uint32_t matrix_vert = replay.empty() ? 0 : replay[0]->matrix_vert;
  // Written every time, so that no cause, uop type or PEBS enable of an
  // earlier setup tags this one's uops.
  p.msr_writes.push_back({msr_tc_precise_event, "MSR_TC_PRECISE_EVENT", 0, "no defined metric uses it"});
  p.msr_writes.push_back({msr_pebs_enable, "IA32_PEBS_ENABLE", pebs_enable,
                          replay.empty() ? (pebs_metric ? "PEBS (bit 25) only" : "no replay tagging")
                                         : fmt::format("{}: cause bits + UOP_Tag (bit 24){}", replay[0]->name,
                                                       pebs_metric ? " + PEBS (bit 25)" : "")});
  p.msr_writes.push_back({msr_pebs_matrix_vert, "MSR_PEBS_MATRIX_VERT", matrix_vert,
                          replay.empty() ? "no replay tagging" : fmt::format("{}: uop types", replay[0]->name)});

  const std::uint32_t privilege = privilege_bits(r);
  const std::uint32_t ovf_pmi = r.thread == 0 ? cccr_bits::ovf_pmi_t0 : cccr_bits::ovf_pmi_t1;
  const std::uint64_t counter_modulus = std::uint64_t{1} << counter_width;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const Slot& s = slots[i];
    const detail::Placement& at = placed[i];
    const std::uint32_t escr = escr_event_bits(s, s.event->event_select) | privilege;
    p.msr_writes.push_back({at.escr->msr, fmt::format("MSR_{}", at.escr->name), escr,
                            s.purpose.empty() ? event_text(s) : fmt::format("{} {}", event_text(s), s.purpose)});
    if (at.counter >= 0) {
      const CounterSpec& c = *find_counter(static_cast<unsigned>(at.counter));
      const bool sampling = s.sampled;
      p.msr_writes.push_back({c.counter_msr, std::string(c.counter_name),
                              sampling ? counter_modulus - *r.period : 0,
                              sampling ? fmt::format("2^40 - {}: overflows after {} events", *r.period, *r.period)
                                       : "counts from zero"});
      const std::uint32_t cccr = cccr_bits::enable |
                                 std::uint32_t{at.escr->escr_select} << cccr_bits::escr_select_shift |
                                 cccr_bits::active_thread_any | (sampling ? ovf_pmi : 0);
      p.msr_writes.push_back({c.cccr_msr, std::string(c.cccr_name), cccr,
                              fmt::format("enable, ESCR select {} ({}){}{}", at.escr->escr_select, at.escr->name,
                                          sampling ? fmt::format(", OVF_PMI_T{}", r.thread) : "",
                                          s.pebs ? ", PEBS" : "")});
    }

    if (s.event->linux_index < 0) {
      p.notes.push_back(fmt::format("Linux has no {} event: no perf_event_attr can program it; use the MSR writes",
                                    s.event->name));
      continue;
    }
    p.perf_events.push_back(perf_event_for(s, r));
  }

  if (pebs_metric) {
    p.notes.push_back("PEBS writes its records to the buffer that IA32_DS_AREA (0x600) points to; set up the DS "
                      "save area first (tagop does not write it). IA32_MISC_ENABLE bit 12 must be clear.");
    p.notes.push_back("mainline Linux does not implement PEBS on NetBurst: it refuses precise_ip > 0 and writes "
                      "IA32_PEBS_ENABLE without bit 25, so the perf_event_attr samples with skid");
    if (r.thread == 1)
      p.notes.push_back("IA32_PEBS_ENABLE bit 25 enables PEBS for the logical processor that writes it: write it "
                        "from logical processor 1");
  }
  if (execution.size() > 1)
    p.notes.push_back(fmt::format("{} share one execution_event: it counts their uops together (the classes are "
                                  "disjoint, so the count is their sum); each upstream counter counts its own "
                                  "class as executed, not retired",
                                  join(execution_names, ", ")));
  if (!front_end.empty())
    p.notes.push_back("uop_type only tags uops: the MSR setup gives its RAT ESCR no counter, but through perf it is "
                      "a raw event of its own and the kernel gives it one");
  for (const MetricSpec* m : replay)
    if (!m->upstream.empty())
      p.notes.push_back(fmt::format("the kernel does not program {}'s upstream {} for replay metric {}: open both "
                                    "perf events together",
                                    m->name, m->upstream, m->linux_metric));
  if (r.thread == 1)
    p.notes.push_back("perf sets T0 or T1 bits from the CPU an event is opened on (config bit 63 is the kernel's): "
                      "open the events on logical processor 1");
  if (r.period && *r.period > (std::uint64_t{1} << (counter_width - 1)) - 1)
    p.notes.push_back("Linux refuses periods above 2^39 - 1: it keeps the counter's top bit to spot overflows "
                      "that did not set OVF");
  return p;
}

}  // namespace tagop::intel_p4
