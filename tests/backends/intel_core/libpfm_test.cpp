// Every row of our Silvermont and Goldmont tables that libpfm4 knows gets
// the same IA32_PERFEVTSELx value from libpfm4 at run time
// (LIBPFM_FORCE_PMU=slm|glm works on any host). Rows are matched to
// libpfm4's events by code and umask, enumerated at run time; where libpfm4
// spells the event as we do (EVENT:UMASK for EVENT.UMASK) the same-named
// encoding must agree too. Every disagreement is listed below with the
// reason our table is right; a listed disagreement that no longer occurs
// fails the test, so the lists cannot go stale.

#include <cstdlib>  // setenv, unsetenv, free
#include <map>      // std::map
#include <set>      // std::set
#include <string>   // std::string
#include <vector>   // std::vector

#include <perfmon/pfmlib.h>  // pfm_initialize, pfm_get_os_event_encoding

#include <catch2/catch.hpp>

#include <tagop/intel_core/events.hpp>  // the tables, perfevtsel

using namespace tagop::intel_core;

namespace {

struct PfmEncoding {
  std::string name;  // "BR_INST_RETIRED:JCC"
  std::uint64_t code = 0;
  bool precise = false;
};

std::uint64_t encode(const std::string& pmu, const std::string& event) {
  pfm_pmu_encode_arg_t arg{};
  arg.size = sizeof(arg);
  const std::string full = pmu + "::" + event;
  const int r = pfm_get_os_event_encoding(full.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg);
  INFO(full << ": " << pfm_strerror(r));
  REQUIRE(r == PFM_SUCCESS);
  REQUIRE(arg.count >= 1);
  const std::uint64_t code = arg.codes[0];
  std::free(arg.codes);
  return code;
}

// Every event:umask of one libpfm4 PMU with its encoding for user+kernel.
std::vector<PfmEncoding> libpfm_encodings(const std::string& pmu) {
  ::setenv("LIBPFM_FORCE_PMU", pmu.c_str(), 1);
  REQUIRE(pfm_initialize() == PFM_SUCCESS);
  std::vector<PfmEncoding> out;
  for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
    pfm_pmu_info_t info{};
    info.size = sizeof(info);
    if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(p), &info) != PFM_SUCCESS || pmu != info.name) continue;
    for (int i = info.first_event; i != -1; i = pfm_get_event_next(i)) {
      pfm_event_info_t e{};
      e.size = sizeof(e);
      REQUIRE(pfm_get_event_info(i, PFM_OS_NONE, &e) == PFM_SUCCESS);
      bool has_umask = false;
      for (int a = 0; a < e.nattrs; ++a) {
        pfm_event_attr_info_t attr{};
        attr.size = sizeof(attr);
        REQUIRE(pfm_get_event_attr_info(i, a, PFM_OS_NONE, &attr) == PFM_SUCCESS);
        if (attr.type != PFM_ATTR_UMASK) continue;
        has_umask = true;
        const std::string name = std::string(e.name) + ":" + attr.name;
        out.push_back({name, encode(pmu, name), attr.is_precise != 0});
      }
      if (!has_umask) out.push_back({e.name, encode(pmu, e.name), e.is_precise != 0});
    }
  }
  pfm_terminate();
  ::unsetenv("LIBPFM_FORCE_PMU");
  return out;
}

std::string libpfm_spelling(std::string_view sdm_name) {
  std::string s(sdm_name);
  if (const auto dot = s.find('.'); dot != std::string::npos) s[dot] = ':';
  return s;
}

struct Disagreements {
  std::map<std::string, std::string> not_in_libpfm;   // our row: why it is right
  std::map<std::string, std::string> precise_flag;    // our row: why our flag is right
  std::map<std::string, std::string> same_name;       // our row: why libpfm4's same-named encoding is wrong
};

void cross_check(Microarchitecture uarch, const std::string& pmu, const Disagreements& listed) {
  const std::vector<PfmEncoding> pfm = libpfm_encodings(pmu);
  REQUIRE(pfm.size() > 50);
  // What libpfm4 sets besides the event: USR (16), OS (17), INT (20), EN (22).
  const std::uint64_t libpfm_fixed_bits = 1 << 16 | 1 << 17 | 1 << 20 | 1 << 22;
  for (const PfmEncoding& p : pfm) {
    INFO(p.name);
    CHECK((p.code & libpfm_fixed_bits) == libpfm_fixed_bits);
  }

  std::set<std::string> seen_missing, seen_precise, seen_same_name;
  std::size_t matched = 0;
  for (const EventSpec& e : pmu_spec(uarch).events) {
    // Fixed-counter rows have no PERFEVTSEL; libpfm4 gives them perf's
    // pseudo-encodings instead.
    if (e.fixed_counter >= 0) continue;
    const std::string name(e.name);
    INFO(pmu << " " << name);
    const std::uint64_t ours = perfevtsel(e, Privilege::both, true);

    std::vector<const PfmEncoding*> same_code;
    for (const PfmEncoding& p : pfm)
      if ((p.code & 0xFFFF) == (ours & 0xFFFF)) same_code.push_back(&p);
    if (same_code.empty()) {
      CHECK(listed.not_in_libpfm.count(name) == 1);
      seen_missing.insert(name);
    } else {
      // Rows that share a code and umask (PAGE_WALKS cycles and walks)
      // differ in edge/inv/cmask: one libpfm4 candidate must match whole.
      std::vector<const PfmEncoding*> exact;
      for (const PfmEncoding* p : same_code)
        if (p->code == ours) exact.push_back(p);
      REQUIRE(!exact.empty());
      ++matched;
      bool libpfm_precise = false;
      for (const PfmEncoding* p : exact) libpfm_precise |= p->precise;
      if (libpfm_precise != e.precise) {
        CHECK(listed.precise_flag.count(name) == 1);
        seen_precise.insert(name);
      }
    }
    for (const PfmEncoding& p : pfm)
      if (p.name == libpfm_spelling(name) && p.code != ours) {
        CHECK(listed.same_name.count(name) == 1);
        seen_same_name.insert(name);
      }
  }
  auto keys = [](const std::map<std::string, std::string>& m) {
    std::set<std::string> out;
    for (const auto& [k, v] : m) out.insert(k);
    return out;
  };
  CHECK(seen_missing == keys(listed.not_in_libpfm));
  CHECK(seen_precise == keys(listed.precise_flag));
  CHECK(seen_same_name == keys(listed.same_name));
  const std::size_t general_rows = pmu_spec(uarch).events.size() - 3;
  CHECK(matched == general_rows - listed.not_in_libpfm.size());
}

}  // namespace

TEST_CASE("Silvermont encodings agree with libpfm4's slm PMU", "[slm]") {
  Disagreements d;
  d.not_in_libpfm = {
      {"FETCH_STALL.ITLB_FILL_PENDING_CYCLES", "in Intel's perfmon SILVERMONT data (other.json); libpfm4 4.13 "
                                               "has only FETCH_STALL:ICACHE_FILL_PENDING_CYCLES"},
      {"FETCH_STALL.ALL", "in Intel's perfmon SILVERMONT data (other.json, umask 0x3F); not in libpfm4 4.13"},
  };
  d.precise_flag = {
      {"INST_RETIRED.ANY_P", "libpfm4 marks INST_RETIRED precise; SDM Table 18-12 (Silvermont PEBS events) and "
                             "perfmon do not list it"},
      {"Instruction Retired", "the architectural name of INST_RETIRED.ANY_P (0xC0:0x00): same reason"},
      {"BR_INST_RETIRED.ALL_TAKEN_BRANCHES", "libpfm4 (and perfmon) mark it precise; SDM Table 18-12 leaves it "
                                             "out of the Silvermont PEBS events, as did the kernel's original "
                                             "Silvermont PEBS constraint list"},
  };
  cross_check(Microarchitecture::silvermont, "slm", d);
}

TEST_CASE("Goldmont encodings agree with libpfm4's glm PMU", "[glm]") {
  Disagreements d;
  d.not_in_libpfm = {
      {"CPU_CLK_UNHALTED.REF", "libpfm4 4.13 encodes glm::CPU_CLK_UNHALTED:REF as event 0x00 umask 0x01; SDM "
                               "Table 19-24 and perfmon give 0x3C:0x01"},
      {"UnHalted Reference Cycles", "architectural 0x3C:0x01 (SDM Table 19-1); libpfm4's glm PMU has no "
                                    "0x3C:0x01 (see CPU_CLK_UNHALTED.REF)"},
      {"FETCH_STALL.ALL", "in perfmon GOLDMONT other.json (umask 0x00); not in libpfm4 4.13"},
      {"FETCH_STALL.ITLB_FILL_PENDING_CYCLES", "in perfmon GOLDMONT other.json (umask 0x01); not in libpfm4 4.13"},
      {"UOPS_RETIRED.FPDIV", "in the SDM and perfmon GOLDMONT floating-point.json (0xC2:0x08, precise); not in "
                             "libpfm4 4.13"},
      {"UOPS_RETIRED.IDIV", "in the SDM and perfmon GOLDMONT pipeline.json (0xC2:0x10, precise); not in "
                            "libpfm4 4.13"},
      {"HW_INTERRUPTS.MASKED", "in perfmon GOLDMONT other.json (0xCB:0x02); not in libpfm4 4.13"},
  };
  d.same_name = {
      {"CPU_CLK_UNHALTED.CORE_P", "libpfm4 4.13 encodes glm::CPU_CLK_UNHALTED:CORE_P with event code 0x00; the "
                                  "SDM and perfmon give 0x3C (libpfm4's UNHALTED_CORE_CYCLES has it right)"},
      {"CPU_CLK_UNHALTED.REF", "libpfm4 4.13 encodes glm::CPU_CLK_UNHALTED:REF with event code 0x00; the SDM and "
                               "perfmon give 0x3C"},
  };
  cross_check(Microarchitecture::goldmont, "glm", d);
}
