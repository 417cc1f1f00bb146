// The schemas of the records declared once (tools/output_records.hpp) are
// what schemas/ holds: the files are generated from the declarations, and
// this test fails when one changes without the other. To write them again:
//   TAGOP_WRITE_SCHEMAS=1 build/tests/contract_record_schemas

#include <cstdlib>     // std::getenv
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ifstream, std::ofstream
#include <string>      // std::string

#include <catch2/catch.hpp>

#include "../../tools/output_records.hpp"

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

TEST_CASE("schemas/decode.schema.json is DecodedSample's declaration", "[contract]") {
  using namespace tagop::cli;
  check_file("decode.schema.json", record::schema_document<DecodedSample>(decoded_sample_contract));
}

TEST_CASE("schemas/cpu.schema.json is HostReport's declaration", "[contract]") {
  using namespace tagop::cli;
  check_file("cpu.schema.json", record::schema_document<HostReport>(host_report_contract));
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
