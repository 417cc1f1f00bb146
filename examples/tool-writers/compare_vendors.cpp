// Compare two vendors' events: the same, narrower, wider or overlapping,
// from their predicates over tagop's condition vocabulary.
//
//   compare_vendors 0xF206 MEM_UOPS_RETIRED.L1_MISS_LOADS
//
// Built outside the tree with only pkg-config (scripts/check-installed-examples.sh):
//   g++ -std=c++20 compare_vendors.cpp $(pkg-config --cflags --libs tagop)

#include <cstdio>       // std::printf
#include <exception>    // std::exception
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/event.hpp>               // EventEntry
#include <tagop/predicate.hpp>           // Predicate
#include <tagop/predicate_relation.hpp>  // relation, truth_table_overlap
#include <tagop/registry.hpp>            // Registry

namespace {

const tagop::EventEntry* find(std::string_view name) {
  for (const tagop::BackendInfo& b : tagop::Registry::builtin().backends())
    for (const tagop::EventEntry& e : b.events())
      if (e.name == name || e.code == name || e.abbreviation == name) return &e;
  return nullptr;
}

// What the event selects: its kind of sample (fetch or op) and its predicate.
tagop::Predicate selects(const tagop::EventEntry& e) {
  const tagop::Predicate kind = tagop::Predicate::parse(e.kind == tagop::SampleKind::fetch ? "fetch" : "op");
  return e.predicate.empty() ? kind : kind & tagop::Predicate::parse(e.predicate);
}

std::string text(std::string_view s) { return std::string(s); }

}  // namespace

int main(int argc, char** argv) try {
  using namespace tagop;
  const char* a_name = argc > 2 ? argv[1] : "0xF206";
  const char* b_name = argc > 2 ? argv[2] : "MEM_UOPS_RETIRED.L1_MISS_LOADS";
  const EventEntry* a = find(a_name);
  const EventEntry* b = find(b_name);
  if (!a || !b) {
    std::fprintf(stderr, "compare_vendors: no event named '%s'\n", !a ? a_name : b_name);
    return 1;
  }
  if (a->predicate.empty() || b->predicate.empty()) {
    std::fprintf(stderr, "compare_vendors: a count-only event has no predicate to compare\n");
    return 1;
  }
  const Predicate pa = selects(*a), pb = selects(*b);
  std::printf("%s (%s): %s\n", text(a->name).c_str(), text(a->backend).c_str(), pa.to_string().c_str());
  std::printf("%s (%s): %s\n", text(b->name).c_str(), text(b->backend).c_str(), pb.to_string().c_str());
  std::printf("the first is %s", text(relation_name(relation(pa, pb))).c_str());
  if (const auto overlap = truth_table_overlap(pa, pb)) std::printf(" (truth-table overlap %.2f)", *overlap);
  std::printf("; counting %s against %s\n", text(counting_unit_name(a->unit)).c_str(),
              text(counting_unit_name(b->unit)).c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "compare_vendors: %s\n", e.what());
  return 1;
}
