#include "export_units.hpp"

#include <optional>  // std::optional

#include <tagop/measures.hpp>  // find_measure, measure_table

namespace tagop::report {

std::string event_unit(const amd_ibs::IbsDerivedEventSpec& e) {
  if (e.sums.empty()) return "count";
  const std::optional<Measure> m = find_measure(e.sums);
  return m ? std::string(measure_table[m->index].unit) : "count";
}

std::string period_unit(std::string_view event) {
  return event.find("clock") != std::string_view::npos ? "nanoseconds" : "count";
}

}  // namespace tagop::report
