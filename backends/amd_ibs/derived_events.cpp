#include <tagop/amd_ibs/derived_events.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::amd_ibs {

namespace {
#include "amd_ibs_derived_events.hpp"  // ibs_derived_event_table

std::vector<Query> compile_queries() {
  std::vector<Query> out;
  for (const IbsDerivedEventSpec& e : ibs_derived_event_table) {
    Predicate p = Predicate::of(Term{.require = {e.unit == IbsUnit::fetch ? condition("fetch") : condition("op")}});
    try {
      if (!e.predicate.empty()) p = p & Predicate::parse(e.predicate);
    } catch (const Error& err) {
      throw Error(fmt::format("IBS derived event {}: {}", select_string(e.select), err.what()));
    }
    std::optional<Measure> sums;
    if (!e.sums.empty()) {
      sums = find_measure(e.sums);
      if (!sums) throw Error(fmt::format("IBS derived event {}: unknown measure '{}'", select_string(e.select), e.sums));
    }
    out.push_back(Query{std::move(p), sums});
  }
  return out;
}

}  // namespace

std::span<const IbsDerivedEventSpec> derived_event_table() { return ibs_derived_event_table; }

std::span<const Query> derived_event_queries() {
  static const std::vector<Query> queries = compile_queries();
  return queries;
}

const IbsDerivedEventSpec* find_derived_event(std::uint16_t select) {
  for (const IbsDerivedEventSpec& e : ibs_derived_event_table)
    if (e.select == select) return &e;
  return nullptr;
}

std::string select_string(std::uint16_t select) { return fmt::format("0x{:04X}", select); }

std::span<const EventEntry> derived_event_entries() {
  static const auto entries = [] {
    // The code strings must outlive the views; keep them beside the entries.
    static std::vector<std::string> codes;
    std::vector<EventEntry> out;
    codes.reserve(std::size(ibs_derived_event_table));
    for (const IbsDerivedEventSpec& e : ibs_derived_event_table) {
      codes.push_back(select_string(e.select));
      out.push_back(EventEntry{
          .backend = "amd-ibs",
          .name = e.name,
          .code = codes.back(),
          .abbreviation = e.abbreviation,
          .description = e.description,
          .predicate = e.predicate,
          .sums = e.sums,
          .kind = e.unit == IbsUnit::fetch ? SampleKind::fetch : SampleKind::op,
          .mechanism = Mechanism::instruction_sampling,
          .precise = true,
          // IBS op sampling tags macro-ops, fetch sampling fetches; a
          // latency event sums cycles over them.
          .unit = !e.sums.empty()                ? CountingUnit::cycles
                  : e.unit == IbsUnit::fetch     ? CountingUnit::fetches
                                                 : CountingUnit::macro_ops,
      });
    }
    return out;
  }();
  return entries;
}

}  // namespace tagop::amd_ibs
