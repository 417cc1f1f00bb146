// Registry::lookup by any spelling and Registry::program for any backend,
// checked against libpfm4: every Silvermont and Goldmont event and umask
// libpfm4 knows, spelt as perf's raw rUUEE from libpfm4's own encoding,
// finds the row of the same name in tagop's table.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include <perfmon/pfmlib.h>

#include <tagop/error.hpp>
#include <tagop/registry.hpp>

using tagop::CpuId;
using tagop::Error;
using tagop::ErrorCode;
using tagop::EventEntry;
using tagop::ProgramOptions;
using tagop::Registry;

namespace {

void start_libpfm() {
  // Both PMUs encode on any machine (this VM has neither).
  ::setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
  REQUIRE(pfm_initialize() == PFM_SUCCESS);
}

// libpfm4's encoding of PMU::EVENT:UMASK as IA32_PERFEVTSELx, if it has one.
std::optional<std::uint64_t> libpfm_code(const std::string& name) {
  std::uint64_t* codes = nullptr;
  int count = 0;
  const int r = pfm_get_event_encoding(name.c_str(), PFM_PLM3, nullptr, nullptr, &codes, &count);
  std::optional<std::uint64_t> out;
  if (r == PFM_SUCCESS && count >= 1) out = codes[0];
  std::free(codes);
  return out;
}

// Where libpfm4's encoding is not the row's, by name and reason:
// - slm::INST_RETIRED:ANY is 0xC0/0x00, the general-counter encoding that
//   perf puts on fixed counter 0; tagop's INST_RETIRED.ANY row is perfmon's
//   fixed-counter pseudo-code 0x00/0x01, and 0xC0/0x00 is its
//   INST_RETIRED.ANY_P row;
// - glm::CPU_CLK_UNHALTED:CORE_P and :REF are event 0x00 in libpfm4 4.13,
//   where the SDM (Table 19-24) and perfmon give 0x3C (see
//   events/intel_glm_events.hpp); their 0x00/0x01 is perfmon's pseudo-code
//   of fixed counter 0, tagop's INST_RETIRED.ANY row.
struct KnownDifference {
  const char* libpfm_name;
  const char* row_of_its_code;  // "" when no row has libpfm4's code
};
constexpr KnownDifference known_differences[] = {
    {"slm::INST_RETIRED:ANY", "INST_RETIRED.ANY_P"},
    {"glm::CPU_CLK_UNHALTED:CORE_P", ""},
    {"glm::CPU_CLK_UNHALTED:REF", "INST_RETIRED.ANY"},
};

const KnownDifference* known_difference(const std::string& name) {
  for (const KnownDifference& d : known_differences)
    if (name == d.libpfm_name) return &d;
  return nullptr;
}

bool contains(const std::vector<const EventEntry*>& v, const EventEntry* e) {
  return std::find(v.begin(), v.end(), e) != v.end();
}

}  // namespace

TEST_CASE("perf's raw spellings of every libpfm4 Silvermont and Goldmont umask find the row of that name",
          "[registry][libpfm]") {
  start_libpfm();
  const Registry& registry = Registry::builtin();
  for (const auto& [pmu_id, pmu, backend] : {std::tuple{PFM_PMU_INTEL_SLM, "slm", "silvermont"},
                                             std::tuple{PFM_PMU_INTEL_GLM, "glm", "goldmont"}}) {
    pfm_pmu_info_t pinfo{};
    pinfo.size = sizeof pinfo;
    REQUIRE(pfm_get_pmu_info(pmu_id, &pinfo) == PFM_SUCCESS);
    std::size_t checked = 0;
    for (int i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
      pfm_event_info_t info{};
      info.size = sizeof info;
      REQUIRE(pfm_get_event_info(i, PFM_OS_NONE, &info) == PFM_SUCCESS);
      for (int a = 0; a < info.nattrs; ++a) {
        pfm_event_attr_info_t attr{};
        attr.size = sizeof attr;
        REQUIRE(pfm_get_event_attr_info(i, a, PFM_OS_NONE, &attr) == PFM_SUCCESS);
        if (attr.type != PFM_ATTR_UMASK) continue;
        const std::string name = fmt::format("{}::{}:{}", pmu, info.name, attr.name);
        // tagop's row of the same name (libpfm4's ':' is the SDM's '.'),
        // where tagop's table has one.
        const EventEntry* ours = registry.lookup(name, backend);
        if (!ours || ours->event_code.empty()) continue;
        const auto code = libpfm_code(name);
        if (!code) continue;
        const std::string raw = fmt::format("r{:x}", *code & 0xFFFF);
        INFO(name << " = " << raw << " (libpfm4's encoding " << fmt::format("{:#x}", *code) << ")");
        const auto found = registry.lookup(raw);
        if (const KnownDifference* d = known_difference(name)) {
          CHECK(!contains(found, ours));  // still different: else drop it from the list
          const EventEntry* other = registry.lookup(raw, backend);
          CHECK((other ? std::string(other->name) : std::string()) == d->row_of_its_code);
          continue;
        }
        CHECK(contains(found, ours));
        // perf's PMU-term spelling of the same code.
        CHECK(contains(registry.lookup(fmt::format("cpu/event={:#x},umask={:#x}/", *code & 0xFF, (*code >> 8) & 0xFF)),
                       ours));
        ++checked;
      }
    }
    INFO(backend);
    // Most of each table: names differ for a few (fixed counters, renamed umasks).
    CHECK(checked >= 40);
    WARN(fmt::format("{}: {} libpfm4 umasks checked through their raw spelling", backend, checked));
  }
}

TEST_CASE("r00c4 is BR_INST_RETIRED.ALL_BRANCHES on Silvermont, as libpfm4 encodes it", "[registry][libpfm]") {
  start_libpfm();
  const auto code = libpfm_code("slm::BR_INST_RETIRED:ALL_BRANCHES");
  REQUIRE(code);
  CHECK((*code & 0xFFFF) == 0x00C4);
  const Registry& registry = Registry::builtin();
  for (const char* spelling : {"r00c4", "rc4", "r5300c4", "R00C4", "cpu/event=0xc4,umask=0x00/", "cpu/event=0xc4/"}) {
    INFO(spelling);
    const EventEntry* e = registry.lookup(spelling, "silvermont");
    REQUIRE(e != nullptr);
    CHECK(e->name == "BR_INST_RETIRED.ALL_BRANCHES");
  }
  // r5301c4: umask 0x01 is a different row (libpfm4: BR_INST_RETIRED:JCC is 0x7e, ... none is 0x01 on Silvermont).
  const auto jcc = libpfm_code("slm::BR_INST_RETIRED:JCC");
  REQUIRE(jcc);
  const EventEntry* e = registry.lookup(fmt::format("r53{:04x}", *jcc & 0xFFFF), "silvermont");
  REQUIRE(e != nullptr);
  CHECK(e->name == "BR_INST_RETIRED.JCC");
}

TEST_CASE("a spelling nothing has gives nothing; require says not_found", "[registry]") {
  const Registry& registry = Registry::builtin();
  CHECK(registry.lookup("r").empty());
  CHECK(registry.lookup("rzz").empty());
  CHECK(registry.lookup("NO_SUCH_EVENT.ANYWHERE").empty());
  CHECK(registry.lookup("xyz::BR_INST_RETIRED.ALL_BRANCHES").empty());
  CHECK(registry.lookup("0xF206", "silvermont") == nullptr);
  try {
    registry.require("NO_SUCH_EVENT.ANYWHERE");
    FAIL("no error");
  } catch (const tagop::Error& error) {
    CHECK(error.code() == tagop::ErrorCode::not_found);
    CHECK_THAT(error.what(), Catch::Contains("NO_SUCH_EVENT.ANYWHERE"));
  }
}

TEST_CASE("program() programs any backend's event through its own programmer", "[registry]") {
  start_libpfm();
  const Registry& registry = Registry::builtin();
  // IBS: the op unit for an op event, the fetch unit for a fetch event.
  const ProgramOptions zen3{.processor = CpuId{"AuthenticAMD", 0x19, 0x21, 0}};
  const auto ibs_op = registry.program(*registry.lookup("IBS DC miss", "amd-ibs"), {}, zen3);
  REQUIRE(!ibs_op.perf_events.empty());
  CHECK(ibs_op.perf_events.front().pmu == "ibs_op");
  CHECK(registry.program(*registry.lookup("0xF000", "amd-ibs"), {}, zen3).perf_events.front().pmu == "ibs_fetch");
  CHECK(registry.program_command(*registry.lookup("0xF206", "amd-ibs")) == "tagop program ibs-op");
  // Silvermont: perf's raw config is libpfm4's event select and umask.
  const EventEntry* jcc = registry.lookup("slm::BR_INST_RETIRED:JCC", "silvermont");
  REQUIRE(jcc != nullptr);
  const auto slm = registry.program(*jcc);
  REQUIRE(!slm.perf_events.empty());
  CHECK((slm.perf_events.front().attr.config & 0xFFFF) == (*libpfm_code("slm::BR_INST_RETIRED:JCC") & 0xFFFF));
  // Pentium 4: the mask bits as spelt are kept.
  const std::string spelled = "netburst::replay_event:NBOGUS";
  const EventEntry* replay = registry.lookup(spelled, "p4");
  REQUIRE(replay != nullptr);
  CHECK(registry.program_command(*replay, spelled) == "tagop program p4 replay_event:NBOGUS");
  CHECK(!registry.program(*replay, spelled).perf_events.empty());
}

TEST_CASE("program() takes the period, the processor, the privilege and IBS's filters", "[registry]") {
  start_libpfm();
  const Registry& registry = Registry::builtin();
  const EventEntry* dc_miss = registry.lookup("0xF206", "amd-ibs");
  REQUIRE(dc_miss != nullptr);
  // Zen 4 (Family 19h model 11h): IbsOpMaxCnt = 0x20000 / 16 = 0x2000,
  // IbsOpEn (17), L3MissOnly (16).
  const auto zen4 = registry.program(*dc_miss, {},
                                     {.period = 0x20000,
                                      .processor = CpuId{"AuthenticAMD", 0x19, 0x11, 1},
                                      .exclude_kernel = true,
                                      .ibs_l3_miss_only = true});
  REQUIRE(zen4.msr_writes.size() == 1);
  CHECK(zen4.msr_writes[0].value == (0x2000 | std::uint64_t{1} << 17 | std::uint64_t{1} << 16));
  CHECK(zen4.perf_events[0].attr.sample_period == 0x20000);
  CHECK(zen4.perf_events[0].attr.exclude_kernel);
  // Silvermont: a period and a privilege filter, as perf's attr has them.
  const EventEntry* jcc = registry.lookup("slm::BR_INST_RETIRED:JCC", "silvermont");
  REQUIRE(jcc != nullptr);
  const auto slm = registry.program(*jcc, {}, {.period = 1009, .exclude_user = true});
  CHECK(slm.perf_events.front().attr.sample_period == 1009);
  CHECK(slm.perf_events.front().attr.exclude_user);
  CHECK_FALSE(slm.perf_events.front().attr.exclude_kernel);
  // An IBS filter of a counter's event is refused: it has no such bits.
  try {
    registry.program(*jcc, {}, {.ibs_l3_miss_only = true});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::not_supported);
    CHECK_THAT(e.what(), Catch::Contains("ibs_l3_miss_only"));
  }
  // Without a processor IBS is programmed for this machine's, which must be AMD's.
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  bool amd = false;
  while (std::getline(cpuinfo, line))
    if (line.starts_with("vendor_id")) amd = line.find("AuthenticAMD") != std::string::npos || line.find("HygonGenuine") != std::string::npos;
  if (!amd) {
    try {
      registry.program(*dc_miss);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::not_supported);
      CHECK_THAT(e.what(), Catch::Contains("ProgramOptions::processor"));
    }
  }
}
