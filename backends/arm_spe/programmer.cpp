#include <tagop/arm_spe/programmer.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>               // Error
#include <tagop/predicate_relation.hpp>  // closure, implies, relation

namespace tagop::arm_spe {

namespace {

constexpr FormatField fields[] = {
    {"ts_enable", ConfigWord::config, 0, 0, "PMSCR_EL1.TS: timestamp packets"},
    {"pa_enable", ConfigWord::config, 1, 1, "PMSCR_EL1.PA: physical address packets"},
    {"pct_enable", ConfigWord::config, 2, 2, "PMSCR_EL1.PCT: physical timestamps"},
    {"jitter", ConfigWord::config, 16, 16, "PMSIRR_EL1.RND: random jitter on the interval"},
    {"branch_filter", ConfigWord::config, 32, 32, "PMSFCR_EL1.B: keep branches"},
    {"load_filter", ConfigWord::config, 33, 33, "PMSFCR_EL1.LD: keep loads"},
    {"store_filter", ConfigWord::config, 34, 34, "PMSFCR_EL1.ST: keep stores"},
    {"event_filter", ConfigWord::config1, 0, 63, "PMSEVFR_EL1: keep ops with every one of these events"},
    {"min_latency", ConfigWord::config2, 0, 11, "PMSLATFR_EL1.MINLAT: keep ops with at least this total latency"},
};

// The op types the type filter knows, and its field for each.
struct TypeFilter {
  Condition condition;
  std::string_view field;
};
constexpr TypeFilter type_filters[] = {
    {condition("load"), "load_filter"},
    {condition("store"), "store_filter"},
    {condition("branch"), "branch_filter"},
};

// The conditions the event filter can require: the events packet bits
// that PMSEVFR_EL1 filters on in every implementation (Arm ARM: bits 1, 3,
// 5 and 7; others are implementation defined).
struct EventFilter {
  Condition condition;
  unsigned bit;
};
constexpr EventFilter event_filters[] = {
    {condition("dc.miss"), 3},              // L1D refill
    {condition("dtlb.l2_miss"), 5},         // TLB walk
    {condition("branch.mispredicted"), 7},  // mispredicted
};

__u64& word_of(perf_event_attr& attr, ConfigWord w) {
  switch (w) {
    case ConfigWord::config: return attr.config;
    case ConfigWord::config1: return attr.config1;
    case ConfigWord::config2: return attr.config2;
  }
  return attr.config;
}

}  // namespace

std::span<const FormatField> format_fields() { return fields; }

void set_field(perf_event_attr& attr, std::string_view name, std::uint64_t value) {
  for (const FormatField& f : fields) {
    if (f.name != name) continue;
    const unsigned width = f.high - f.low + 1;
    if (width < 64 && (value >> width) != 0)
      throw Error(fmt::format("arm_spe: {} is {} bits wide; {} does not fit", name, width, value));
    const std::uint64_t mask = width == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << width) - 1) << f.low;
    __u64& w = word_of(attr, f.word);
    w = (w & ~mask) | ((value << f.low) & mask);
    return;
  }
  throw Error(ErrorCode::internal, fmt::format("arm_spe: no format field '{}'", name));
}

Programming program(const SpeRequest& r) {
  if (r.min_latency > 4095)
    throw Error(fmt::format("arm_spe: min_latency {} is over 4095 (PMSLATFR_EL1.MINLAT is 12 bits)", r.min_latency));
  const std::vector<Term>& terms = r.predicate.terms();
  if (terms.empty()) throw Error(fmt::format("arm_spe: no op meets '{}'", r.predicate.to_string()));

  PerfEvent e;
  e.pmu = "arm_spe_0";
  e.attr = make_perf_attr();
  e.attr.type = pmu_type_or_unresolved(e.pmu);
  e.attr.sample_period = r.period;
  e.attr.exclude_user = r.exclude_user;
  e.attr.exclude_kernel = r.exclude_kernel;
  if (r.timestamps) set_field(e.attr, "ts_enable", 1);
  if (r.physical_addresses) set_field(e.attr, "pa_enable", 1);
  if (r.jitter) set_field(e.attr, "jitter", 1);
  if (r.min_latency) set_field(e.attr, "min_latency", r.min_latency);

  // Type filter: an OR of types; usable when every term asks for a type.
  // Event filter: an AND; a bit every term requires (itself or by what it
  // implies: an L3 miss missed the L1D first) is safe to require.
  Predicate kept = Predicate::parse("op");
  Predicate types = Predicate::never();
  bool every_term_typed = true;
  std::uint64_t events = 0;
  bool all_retired = true;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const Term t = closure(terms[i]);
    bool typed = false;
    for (const TypeFilter& f : type_filters)
      if (t.require.contains(f.condition)) typed = true;
    every_term_typed = every_term_typed && typed;
    std::uint64_t term_events = 0;
    for (const EventFilter& f : event_filters)
      if (t.require.contains(f.condition)) term_events |= std::uint64_t{1} << f.bit;
    events = i == 0 ? term_events : events & term_events;
    all_retired = all_retired && t.forbid.contains(condition("op.not_retired"));
  }
  if (every_term_typed) {
    for (const TypeFilter& f : type_filters) {
      bool wanted = false;
      for (const Term& term : terms) wanted = wanted || closure(term).require.contains(f.condition);
      if (!wanted) continue;
      set_field(e.attr, f.field, 1);
      types = types | Predicate::of(Term{.require = {f.condition}});
    }
    kept = kept & types;
  }
  for (const EventFilter& f : event_filters)
    if ((events >> f.bit) & 1) kept = kept & Predicate::of(Term{.require = {f.condition}});
  if (all_retired) {
    events |= std::uint64_t{1} << 1;  // Retired
    kept = kept & Predicate::of(Term{.forbid = {condition("op.not_retired")}});
  }
  if (events) set_field(e.attr, "event_filter", events);

  const Predicate wanted = Predicate::parse("op") & r.predicate;
  if (!implies(wanted, kept))
    throw Error(ErrorCode::internal, fmt::format("arm_spe: the filters ({}) would drop ops that '{}' wants",
                                                 kept.to_string(), r.predicate.to_string()));
  Programming p;
  e.description = fmt::format("Arm SPE: one operation in {}{}, filtered in hardware to {}", r.period,
                              r.jitter ? " (with jitter)" : "", kept.to_string());
  p.perf_events.push_back(e);
  if (relation(kept, wanted) != Relation::same)
    p.notes.push_back(fmt::format("the filters keep '{}'; the rest of '{}' is asked of the samples "
                                  "(tagop spe FILE --where)",
                                  kept.to_string(), r.predicate.to_string()));
  if (r.min_latency)
    p.notes.push_back(fmt::format("only ops with a total latency of at least {} cycles are sampled", r.min_latency));
  if (e.attr.type == unresolved_pmu_type)
    p.notes.push_back("this machine has no arm_spe_0 PMU: attr.type is unresolved (set it from "
                      "/sys/bus/event_source/devices/arm_spe_0/type on the machine that records)");
  return p;
}

}  // namespace tagop::arm_spe
