#include <tagop/arm_spe/derived_events.hpp>

#include <string>  // std::string
#include <vector>  // std::vector

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::arm_spe {

namespace {
#include "arm_spe_events.hpp"  // spe_event_table

std::vector<Query> compile_queries() {
  std::vector<Query> out;
  for (const SpeEventSpec& e : spe_event_table) {
    Predicate p = Predicate::of(Term{.require = {condition("op")}});
    try {
      p = p & Predicate::parse(e.predicate);
    } catch (const Error& err) {
      throw Error(fmt::format("SPE derived event '{}': {}", e.name, err.what()));
    }
    std::optional<Measure> sums;
    if (!e.sums.empty()) {
      sums = find_measure(e.sums);
      if (!sums) throw Error(fmt::format("SPE derived event '{}': unknown measure '{}'", e.name, e.sums));
    }
    out.push_back(Query{std::move(p), sums});
  }
  return out;
}

}  // namespace

std::span<const SpeEventSpec> derived_event_table() { return spe_event_table; }

std::span<const Query> derived_event_queries() {
  static const std::vector<Query> queries = compile_queries();
  return queries;
}

std::span<const EventEntry> derived_event_entries() {
  static const std::vector<EventEntry> entries = [] {
    std::vector<EventEntry> out;
    for (const SpeEventSpec& e : spe_event_table)
      out.push_back(EventEntry{
          .backend = "arm-spe",
          .name = e.name,
          .code = e.perf_event,
          .abbreviation = {},
          .description = e.description,
          .predicate = e.predicate,
          .sums = e.sums,
          .kind = SampleKind::op,
          .mechanism = Mechanism::instruction_sampling,
          .precise = true,
          // SPE samples operations at dispatch; a latency event sums cycles.
          .unit = e.sums.empty() ? CountingUnit::operations : CountingUnit::cycles,
      });
    return out;
  }();
  return entries;
}

}  // namespace tagop::arm_spe
