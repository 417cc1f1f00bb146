// The schemas of the records declared once (tools/output_records.hpp,
// tools/report_records.hpp) are what schemas/ holds: the files are
// generated from the declarations, and this test fails when one changes
// without the other. To write them again:
//   TAGOP_WRITE_SCHEMAS=1 build/tests/contract_record_schemas

#include <cstdlib>     // std::getenv
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ifstream, std::ofstream
#include <string>      // std::string
#include <string_view> // std::string_view

#include <catch2/catch.hpp>

#include "../../tools/annotate_records.hpp"
#include "../../tools/compare_records.hpp"
#include "../../tools/emulate_records.hpp"
#include "../../tools/output_records.hpp"
#include "../../tools/report_records.hpp"
#include "../../tools/spe_records.hpp"

namespace {

using tagop::cli::record::json;

std::filesystem::path schema_path(const std::string& file) {
  const char* root = std::getenv("TAGOP_SOURCE_ROOT");
  REQUIRE(root != nullptr);
  return std::filesystem::path(root) / "schemas" / file;
}

void check_file(const std::string& file, const json& generated) {
  const auto path = schema_path(file);
  if (std::getenv("TAGOP_WRITE_SCHEMAS")) std::ofstream(path) << generated.dump(2) << '\n';
  std::ifstream in(path);
  REQUIRE(in);
  const json on_disk = json::parse(in);
  INFO(path.string() << " differs from its declaration; TAGOP_WRITE_SCHEMAS=1 rewrites it:\n" << generated.dump(2));
  CHECK(on_disk == generated);
}

}  // namespace

// schemas/<command>.schema.json for a contract "tagop.<command>/<major>".
template <typename Record>
void check_record(const tagop::cli::record::Contract& contract) {
  const std::string_view id = contract.schema;
  const std::string command(id.substr(6, id.find('/') - 6));  // after "tagop."
  check_file(command + ".schema.json", tagop::cli::record::schema_document<Record>(contract));
}

TEST_CASE("every record's schema file in schemas/ is what its declaration makes", "[contract]") {
  using namespace tagop::cli;
  check_record<DecodedSample>(decoded_sample_contract);
  check_record<DecodedSampleFile>(decoded_sample_file_contract);
  check_record<HostReport>(host_report_contract);
  check_record<ProgramRecord>(program_contract);
  check_record<EventsList>(events_list_contract);
  check_record<EventsSearch>(events_search_contract);
  check_record<EventsShow>(events_show_contract);
  check_record<ReportRecord>(report_contract);
  check_record<CompareRecord>(compare_contract);
  check_record<CompareMatrix>(compare_matrix_contract);
  check_record<EmulateRecord>(emulate_contract);
  check_record<AnnotateRecord>(annotate_contract);
  check_record<SpeRecord>(spe_contract);
}

TEST_CASE("Maybe leaves its key out, Choice lists its values, Merged inlines a record", "[contract]") {
  using namespace tagop::cli;
  EventRow row;
  row.backend = "silvermont";
  row.name = "BR_INST_RETIRED.JCC";
  row.code = "0xC4:0x7E";
  row.event = std::string("0xC4");
  row.kind = {"op"};
  row.precise = true;
  // By hand: select, umask and sums have no value, so no key; kind is a plain string.
  CHECK(record::to_json(row).dump() ==
        R"({"backend":"silvermont","name":"BR_INST_RETIRED.JCC","code":"0xC4:0x7E","event":"0xC4",)"
        R"("abbreviation":"","kind":"op","predicate":"","mechanism":"","precise":true,"unit":"","description":""})");
  const json schema = record::schema_of<EventRow>();
  CHECK(schema["properties"]["kind"]["enum"] == json({"fetch", "op"}));
  CHECK(schema["properties"]["umask"] == json({{"type", "string"}}));
  CHECK(schema["required"] == json({"backend", "name", "code", "abbreviation", "kind", "predicate", "mechanism",
                                    "precise", "unit", "description"}));
  EventSearchHit hit;
  hit.event = {row};
  hit.score = 7;
  const json j = record::to_json(hit);
  CHECK(j.size() == 12);  // the row's 11 keys with a value (as above), then score
  CHECK(j.items().begin().key() == "backend");
  CHECK(j["score"] == 7);
  const json hit_schema = record::schema_of<EventSearchHit>();
  CHECK(hit_schema["properties"].size() == 15);  // the row's 14 and score
  CHECK(hit_schema["required"].size() == 11);
  CHECK(hit_schema["required"].back() == "score");
}

TEST_CASE("a key that is a C++ keyword is declared with a trailing _", "[contract]") {
  using namespace tagop::cli;
  LibpfmAttributeRecord a{};  // every field initialized: a Hana struct has no member initializers
  a.default_ = true;
  CHECK(record::to_json(a)["default"] == true);
  CHECK(record::schema_of<LibpfmAttributeRecord>()["properties"].contains("default"));
  CHECK(!record::to_json(a).contains("default_"));
}

TEST_CASE("a record's JSON is what its schema says, field by field", "[contract]") {
  using namespace tagop::cli;
  DecodedSample s;
  s.unit = "ibs_op";
  s.family = {0x19};
  s.registers = {{"IbsOpData3", {0x81}}};
  s.fields = {{"IbsLdOp", std::uint64_t{1}}, {"IbsDcLinAd", record::Hex{0x7f0000001000}}};
  s.events = {{"0xF206", 1}};
  const json j = record::to_json(s);
  // By hand: the order of the declaration, hexadecimal where it says Hex.
  CHECK(j.dump() ==
        R"({"unit":"ibs_op","family":"0x19","model":"0x0","capabilities":"0x0","processor_from":"",)"
        R"("registers":{"IbsOpData3":"0x81"},"fields":{"IbsLdOp":1,"IbsDcLinAd":"0x7f0000001000"},)"
        R"("conditions":[],"events":{"0xF206":1},"not_available":[]})");
  const json schema = record::schema_of<DecodedSample>();
  CHECK(schema["required"].size() == 10);
  CHECK(schema["properties"]["fields"]["additionalProperties"]["oneOf"][1]["pattern"] == "^0x[0-9a-f]+$");
  HostReport h;
  CHECK(record::to_json(h)["ibs_capabilities"].is_null());
  h.ibs_capabilities = record::Hex{0x3ff};
  CHECK(record::to_json(h)["ibs_capabilities"] == "0x3ff");
}

TEST_CASE("Const is its tag's value, Number keeps integers apart from ratios", "[contract]") {
  using namespace tagop::cli;
  EventsReportRow row{};
  row.row = {ReportRowName{"main", {}, std::string("/bin/prog"), {}, {}, {}, {}, {}, {}}};
  row.samples = 3;
  row.events = {{"cpu-clock", EventShare{3, 300000, 75.0, {}}}};
  // By hand: pid, offset and load_latency have no value, so no key; no children without --children.
  CHECK(record::to_json(row).dump() ==
        R"({"name":"main","module":"/bin/prog","samples":3,"events":{"cpu-clock":{"samples":3,"period":300000,"percent":75.0}}})");
  IbsReportRow ibs{};
  ibs.values = {{"0xF206", record::Number{std::uint64_t{12}}}, {"dc_miss_rate", record::Number{0.25}}, {"0xF249", {}}};
  CHECK(record::to_json(ibs)["values"].dump() == R"({"0xF206":12,"dc_miss_rate":0.25,"0xF249":null})");
  // An integer is a number too: a oneOf of integer and number would reject 12.
  CHECK(record::schema_of<record::Number>() == json({{"type", "number"}}));
  const json schema = record::schema_document<ReportRecord>(report_contract);
  CHECK(schema["oneOf"][0]["properties"]["ibs"] == json({{"const", true}}));
  CHECK(schema["oneOf"][1]["properties"]["ibs"] == json({{"const", false}}));
  CHECK(schema["oneOf"][1]["properties"]["schema"] == json({{"const", "tagop.report/1"}}));
  CHECK(record::to_json(EventsReport{})["schema"] == "tagop.report/1");
}
