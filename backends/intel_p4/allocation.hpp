#pragma once
// ESCR and counter allocation for the Pentium 4 programmer (internal).

#include <string>  // std::string
#include <vector>  // std::vector

#include <tagop/intel_p4/tables.hpp>  // EscrSpec

namespace tagop::intel_p4::detail {

/// What one programmed event needs.
struct Demand {
  std::string label;                    // for refusals: "replay_event for split_load_retired"
  std::vector<const EscrSpec*> escrs;   // the ESCRs it may use, preferred first
  bool needs_counter = true;            // false for tag-only events (uop_type)
  bool pebs = false;                    // PEBS: CRU_ESCR2 and counter 16 only
};

struct Placement {
  const EscrSpec* escr = nullptr;
  int counter = -1;  // -1: none
};

/// One ESCR per demand and one counter per demand that needs one, each
/// ESCR and counter used once, never counter 1. Throws tagop::Error naming
/// the events that compete for too few ESCRs or counters.
std::vector<Placement> allocate(const std::vector<Demand>& demands);

}  // namespace tagop::intel_p4::detail
