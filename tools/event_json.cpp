#include "event_json.hpp"

namespace tagop::cli {

std::string_view kind_name(const EventEntry& e) { return e.kind == SampleKind::fetch ? "fetch" : "op"; }

std::string predicate_text(const EventEntry& e) {
  if (e.predicate.empty()) return e.mechanism == Mechanism::count_only ? "(count only)" : std::string(kind_name(e));
  return std::string(e.predicate);
}

nlohmann::ordered_json entry_json(const EventEntry& e) {
  nlohmann::ordered_json j;
  j["backend"] = e.backend;
  j["name"] = e.name;
  j["code"] = e.code;
  if (e.backend == "amd-ibs") j["select"] = e.code;
  if (!e.event_code.empty()) j["event"] = e.event_code;
  if (!e.umask.empty()) j["umask"] = e.umask;
  j["abbreviation"] = e.abbreviation;
  j["kind"] = kind_name(e);
  j["predicate"] = e.predicate;
  if (!e.sums.empty()) j["sums"] = e.sums;
  j["mechanism"] = mechanism_name(e.mechanism);
  j["precise"] = e.precise;
  j["unit"] = counting_unit_name(e.unit);
  j["description"] = e.description;
  return j;
}

}  // namespace tagop::cli
