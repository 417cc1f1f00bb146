// The JSON Schema of a sample line, from the record's declaration.

#include <tagop/profiles/sample_lines.hpp>

#include <span>  // std::span

#include <boost/hana/accessors.hpp>  // hana::accessors
#include <boost/hana/for_each.hpp>   // hana::for_each
#include <boost/hana/string.hpp>     // hana::to<char const*>
#include <fmt/format.h>              // fmt::format
#include <nlohmann/json.hpp>         // the schema document

#include <tagop/error.hpp>     // tagop::Error
#include <tagop/measures.hpp>  // measure_table

#include "sample_line_record.hpp"

namespace tagop::profiles {

namespace {

namespace hana = boost::hana;
using json = nlohmann::ordered_json;
using namespace detail;

constexpr const char* address_pattern = "^0x[0-9a-f]+$";

json condition_names() {
  json names = json::array();
  for (const ConditionInfo& c : condition_table) names.push_back(c.name);
  return names;
}

// The schema of each field type.
json schema_of(const std::uint64_t*) { return {{"type", "integer"}, {"minimum", 0}}; }
json schema_of(const std::uint32_t*) {
  return {{"type", "integer"}, {"minimum", 0}, {"maximum", 4294967295u}};
}
json schema_of(const bool*) { return {{"type", "boolean"}}; }
json schema_of(const KindName*) { return {{"enum", {"fetch", "op"}}}; }
json schema_of(const Address*) { return {{"type", "string"}, {"pattern", address_pattern}}; }
json schema_of(const OptionalAddress*) {
  return {{"type", {"string", "null"}}, {"pattern", address_pattern}};
}
json schema_of(const ConditionNames*) {
  return {{"type", "array"}, {"items", {{"enum", condition_names()}}}, {"uniqueItems", true}};
}
json schema_of(const MeasureValues*) {
  json properties = json::object();
  for (const MeasureInfo& m : measure_table)
    properties[std::string(m.name)] = {{"type", "integer"},
                                       {"minimum", 0},
                                       {"description", fmt::format("{} ({})", m.description, m.unit)}};
  return {{"type", "object"}, {"properties", properties}, {"additionalProperties", false}};
}
json schema_of(const Text*) { return {{"type", {"string", "null"}}}; }
json schema_of(const EventName*) { return {{"type", "string"}}; }
json schema_of(const OptionalNumber*) {
  return {{"type", {"integer", "null"}}, {"minimum", 0}, {"maximum", 4294967295u}};
}

std::string_view description_of(std::span<const FieldDescription> descriptions, std::string_view field) {
  for (const FieldDescription& d : descriptions)
    if (d.field == field) return d.description;
  throw Error(fmt::format("sample lines: field {} has no description", field));
}

// A record's schema: each field's, described, all of them required.
template <typename Record>
std::string schema_of_record(std::span<const FieldDescription> descriptions, std::string_view id,
                             std::string_view title, std::string_view description) {
  json properties = json::object();
  json required = json::array();
  hana::for_each(hana::accessors<Record>(), [&](auto field) {
    const std::string name = hana::to<char const*>(hana::first(field));
    using Type = std::remove_cvref_t<decltype(hana::second(field)(std::declval<const Record&>()))>;
    json property = schema_of(static_cast<const Type*>(nullptr));
    property["description"] = description_of(descriptions, name);
    properties[name] = std::move(property);
    required.push_back(name);
  });
  const json schema = {
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"$id", id},
      {"title", title},
      {"description", description},
      {"type", "object"},
      {"properties", properties},
      {"required", required},
      {"additionalProperties", false},
  };
  return schema.dump(2) + "\n";
}

}  // namespace

std::string sample_line_schema() {
  return schema_of_record<SampleLine>(sample_line_descriptions, "tagop.sample-line/1", "tagop sample line",
                                      "One decoded sample per line (JSON lines). Generated from "
                                      "profiles/sample_line_record.hpp; a test checks that this file and the "
                                      "declaration agree.");
}

std::string event_line_schema() {
  return schema_of_record<EventLine>(event_line_descriptions, "tagop.event-line/1", "tagop event line",
                                     "One sample of a capture without IBS per line (JSON lines). Generated from "
                                     "profiles/sample_line_record.hpp; a test checks that this file and the "
                                     "declaration agree.");
}

}  // namespace tagop::profiles
