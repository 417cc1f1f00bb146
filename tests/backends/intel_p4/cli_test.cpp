// `tagop program p4` end to end: the JSON of a PEBS replay metric against
// hand-computed registers, and the exit codes of bad requests.

#include <catch2/catch.hpp>

#include <linux/perf_event.h>  // PERF_TYPE_RAW
#include <sys/wait.h>          // WEXITSTATUS

#include <array>    // std::array
#include <cstdio>   // std::snprintf
#include <cstdlib>  // std::getenv
#include <string>   // std::string
#include <tuple>    // std::tuple

#include <nlohmann/json.hpp>  // nlohmann::json

#include "run_command.hpp"

namespace {

std::string hex(std::uint64_t v) {
  char text[32];
  std::snprintf(text, sizeof text, "%#llx", static_cast<unsigned long long>(v));
  return v == 0 ? "0x0" : text;
}

}  // namespace

TEST_CASE("tagop program p4 1stL_cache_load_miss_retired --pebs --json", "[p4]") {
  const RunResult r = run_tagop("program p4 1stL_cache_load_miss_retired --pebs --period 4096 --json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const auto& writes = j.at("msr_writes");
  const std::vector<std::tuple<std::string, std::string, std::uint64_t>> expected = {
      {"0x3f0", "MSR_TC_PRECISE_EVENT", 0},
      {"0x3f1", "IA32_PEBS_ENABLE", 1u << 0 | 1u << 24 | 1u << 25},
      {"0x3f2", "MSR_PEBS_MATRIX_VERT", 1u << 0},
      {"0x3cc", "MSR_CRU_ESCR2", 0x09u << 25 | 1u << 9 | 1u << 3 | 1u << 2},
      {"0x310", "MSR_IQ_COUNTER4", (std::uint64_t{1} << 40) - 4096},
      {"0x370", "MSR_IQ_CCCR4", 1u << 12 | 5u << 13 | 3u << 16 | 1u << 26},
  };
  REQUIRE(writes.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO(i);
    CHECK(writes[i].at("msr") == std::get<0>(expected[i]));
    CHECK(writes[i].at("name") == std::get<1>(expected[i]));
    CHECK(writes[i].at("value") == hex(std::get<2>(expected[i])));
  }
  const auto& attr = j.at("perf_event_attr");
  CHECK(attr.at("type") == PERF_TYPE_RAW);
  CHECK(attr.at("config") == hex((std::uint64_t{37} << 25 | 1u << 9) << 32 | 3u << 16 | 1u));
  CHECK(attr.at("precise_ip") == 1);
  CHECK(attr.at("sample_period") == 4096);
}

TEST_CASE("tagop program p4 text output and --user", "[p4]") {
  const RunResult r = run_tagop("program p4 memory_stores --user");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Matchers::Contains("MSR_RAT_ESCR0") && Catch::Matchers::Contains("perf_event_attr"));
  const RunResult j = run_tagop("program p4 memory_stores --user --format json");
  REQUIRE(j.exit_code == 0);
  // RAT_ESCR0: uop_type TAGSTORES (mask bit 2), T0_USR only.
  CHECK(nlohmann::json::parse(j.out).at("msr_writes")[3].at("value") == hex(0x02u << 25 | 1u << 11 | 1u << 2));
}

TEST_CASE("tagop program p4 refuses bad input", "[p4]") {
  const RunResult unknown = run_tagop("program p4 2ndL_cache_miss_retired");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Matchers::Contains("did you mean") &&
                                 Catch::Matchers::Contains("2ndL_cache_load_miss_retired"));
  const RunResult refused = run_tagop("program p4 DTLB_load_miss_retired DTLB_all_miss_retired");
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.err, Catch::Matchers::Contains("MSR_PEBS_MATRIX_VERT"));
  CHECK(run_tagop("program p4 memory_loads --thread 2").exit_code == 2);
  CHECK(run_tagop("program p4 memory_loads --user --kernel").exit_code == 2);
  CHECK(run_tagop("program p4 memory_loads --period lots").exit_code == 2);
  CHECK(run_tagop("program p4").exit_code == 2);
}
