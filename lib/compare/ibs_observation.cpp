// What IBS samples observe, and what its sampling filters add: whether a
// capture of IBS answers a predicate that no derived event asks exactly.

#include <tagop/amd_ibs/decoder.hpp>   // IbsDecoder::observable
#include <tagop/amd_ibs/families.hpp>  // ibs_families
#include <tagop/compare/nearest_events.hpp>

namespace tagop::compare {

namespace {

const ConditionSet& observable_by_any_sample() {
  static const ConditionSet observable = ibs_observable(SampleKind::op) | ibs_observable(SampleKind::fetch) |
                                         ConditionSet{condition("op"), condition("fetch")};
  return observable;
}

}  // namespace

ConditionSet ibs_observable(SampleKind kind) {
  ConditionSet all;
  // The union over every family with IBS, at models where fields come and
  // go (15h 30h+, 19h's Zen 4 models): a condition that some IBS
  // processor reports.
  for (const amd_ibs::IbsFamily& f : amd_ibs::ibs_families())
    for (unsigned model : {0x00u, 0x11u, 0x30u, 0x60u})
      all |= amd_ibs::IbsDecoder(f.family, model).observable(kind == SampleKind::fetch ? amd_ibs::IbsUnit::fetch
                                                                                          : amd_ibs::IbsUnit::op);
  return all;
}

bool ibs_observes(const Predicate& p) { return observable_by_any_sample().contains_all(p.used()); }

std::vector<FilterMatch> filter_matches(const Predicate& target) {
  std::vector<FilterMatch> out;
  for (const amd_ibs::SamplingFilterSpec& spec : amd_ibs::sampling_filter_table()) {
    const Predicate population = Predicate::parse(spec.population);
    const Relation r = relation(population, target);
    if (r != Relation::same && r != Relation::narrower && r != Relation::wider) continue;
    // Under the filter, the population's conditions hold of every sample.
    const bool within = implies(target, population) && spec.kind != amd_ibs::SamplingFilterKind::load_latency;
    out.push_back({&spec, r, within && (observable_by_any_sample() | population.used()).contains_all(target.used())});
  }
  return out;
}

}  // namespace tagop::compare
