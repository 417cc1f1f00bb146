#include <tagop/registry.hpp>

namespace tagop {

Registry& Registry::builtin() {
  static Registry registry = [] {
    Registry r;
    register_builtin_backends(r);
    return r;
  }();
  return registry;
}

void Registry::add(BackendInfo backend) { backends_.push_back(std::move(backend)); }

const BackendInfo* Registry::find(std::string_view name) const {
  for (const BackendInfo& b : backends_)
    if (b.name == name) return &b;
  return nullptr;
}

std::string_view mechanism_name(Mechanism m) {
  switch (m) {
    case Mechanism::instruction_sampling: return "instruction sampling";
    case Mechanism::at_retirement_tagging: return "at-retirement tagging";
    case Mechanism::precise_event: return "precise event";
    case Mechanism::count_only: return "count only";
  }
  return "unknown";
}

std::string_view counting_unit_name(CountingUnit u) {
  switch (u) {
    case CountingUnit::instructions: return "instructions";
    case CountingUnit::uops: return "uops";
    case CountingUnit::macro_ops: return "macro-ops";
    case CountingUnit::fetches: return "fetches";
    case CountingUnit::cycles: return "cycles";
    case CountingUnit::occurrences: return "occurrences";
    case CountingUnit::operations: return "operations";
  }
  return "unknown";
}

}  // namespace tagop
