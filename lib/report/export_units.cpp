#include "export_units.hpp"

#include <cctype>    // std::isalnum, std::tolower
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

std::string sample_type_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

}  // namespace tagop::report
