// Every row of our Silvermont, Goldmont, Skylake, Ice Lake and Sapphire Rapids tables that libpfm4 knows gets
// the same IA32_PERFEVTSELx value from libpfm4 at run time
// (LIBPFM_FORCE_PMU=slm|glm|skl|icl|spr works on any host). Rows are matched to
// libpfm4's events by code and umask, enumerated at run time; where libpfm4
// spells the event as we do (EVENT:UMASK for EVENT.UMASK) the same-named
// encoding must agree too. Every disagreement is listed below with the
// reason our table is right; a listed disagreement that no longer occurs
// fails the test, so the lists cannot go stale. For Skylake, Ice Lake and
// Sapphire Rapids the check runs the other way too: every libpfm4
// EVENT:UMASK (offcore response and AnyThread forms aside) is encoded by a
// row of ours or listed with the reason it is not. libpfm4 exposes no
// counter masks, so the rows' counters are perfmon's alone.

#include <cstdlib>  // setenv, unsetenv, free
#include <initializer_list>  // std::initializer_list
#include <map>      // std::map
#include <optional>  // std::optional
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
  std::uint64_t extra = 0;  // codes[1]: the ldlat or MSR_PEBS_FRONTEND value, where libpfm4 gives one
};

struct Encoded {
  std::uint64_t code = 0, extra = 0;
};

Encoded encode(const std::string& pmu, const std::string& event) {
  pfm_pmu_encode_arg_t arg{};
  arg.size = sizeof(arg);
  std::string full = pmu + "::" + event;
  int r = pfm_get_os_event_encoding(full.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg);
  if (r != PFM_SUCCESS) {
    // MEM_TRANS_RETIRED:LOAD_LATENCY requires a threshold (libpfm_intel_skl(3): ldlat, 1 to 65535).
    full += ":ldlat=3";
    r = pfm_get_os_event_encoding(full.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg);
  }
  INFO(full << ": " << pfm_strerror(r));
  REQUIRE(r == PFM_SUCCESS);
  REQUIRE(arg.count >= 1);
  const Encoded out{arg.codes[0], arg.count > 1 ? arg.codes[1] : 0};
  std::free(arg.codes);
  return out;
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
        const Encoded c = encode(pmu, name);
        out.push_back({name, c.code, attr.is_precise != 0, c.extra});
      }
      if (!has_umask) {
        const Encoded c = encode(pmu, e.name);
        out.push_back({e.name, c.code, e.is_precise != 0, c.extra});
      }
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
  std::map<std::string, std::string> frontend;        // our row: why libpfm4's MSR_PEBS_FRONTEND value differs
  // libpfm4's EVENT:UMASK (offcore response events aside) that no row of
  // ours encodes: why. Checked only where given (the big cores), so that
  // the tables cover what libpfm4 knows.
  std::optional<std::map<std::string, std::string>> libpfm_only;
};

// `pmus`: the libpfm4 PMUs of the table's parts (client and server), whose
// events are taken together.
void cross_check(Microarchitecture uarch, const std::vector<std::string>& pmus, const Disagreements& listed) {
  std::vector<PfmEncoding> pfm;
  for (const std::string& pmu : pmus) {
    const std::vector<PfmEncoding> more = libpfm_encodings(pmu);
    pfm.insert(pfm.end(), more.begin(), more.end());
  }
  const std::string pmu = pmus.front();
  REQUIRE(pfm.size() > 50);
  // What libpfm4 sets besides the event: USR (16), OS (17), INT (20), EN (22).
  const std::uint64_t libpfm_fixed_bits = 1 << 16 | 1 << 17 | 1 << 20 | 1 << 22;
  for (const PfmEncoding& p : pfm) {
    INFO(p.name);
    CHECK((p.code & libpfm_fixed_bits) == libpfm_fixed_bits);
  }

  std::set<std::string> seen_missing, seen_precise, seen_same_name, seen_frontend;
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
      if (exact.empty()) {
        // The code and umask are libpfm4's, with other cmask/inv/edge.
        CHECK(listed.not_in_libpfm.count(name) == 1);
        seen_missing.insert(name);
        continue;
      }
      ++matched;
      bool libpfm_precise = false;
      for (const PfmEncoding* p : exact) libpfm_precise |= p->precise;
      if (libpfm_precise != e.precise) {
        CHECK(listed.precise_flag.count(name) == 1);
        seen_precise.insert(name);
      }
    }
    for (const PfmEncoding& p : pfm) {
      if (p.name != libpfm_spelling(name)) continue;
      if (p.code != ours) {
        CHECK(listed.same_name.count(name) == 1);
        seen_same_name.insert(name);
      }
      // MSR_PEBS_FRONTEND (libpfm4's second code for FRONTEND_RETIRED).
      if (e.frontend != 0 && p.extra != e.frontend) {
        CHECK(listed.frontend.count(name) == 1);
        seen_frontend.insert(name);
      }
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
  CHECK(seen_frontend == keys(listed.frontend));

  if (listed.libpfm_only) {
    std::set<std::uint64_t> ours;
    for (const EventSpec& e : pmu_spec(uarch).events) ours.insert(perfevtsel(e, Privilege::both, true));
    std::set<std::string> seen_only;
    for (const PfmEncoding& p : pfm) {
      if (p.name.starts_with("OFFCORE_RESPONSE") || p.name.starts_with("OCR")) continue;
      // AnyThread (IA32_PERFEVTSELx bit 21) rows are left out of the tables
      // (deprecated since Ice Lake; the header says so).
      if (p.code & (1 << 21)) continue;
      if (ours.count(p.code)) continue;
      INFO(pmu << " libpfm4 " << p.name);
      CHECK(listed.libpfm_only->count(p.name) == 1);
      seen_only.insert(p.name);
    }
    CHECK(seen_only == keys(*listed.libpfm_only));
  }
  std::size_t general_rows = 0;
  for (const EventSpec& e : pmu_spec(uarch).events) general_rows += e.fixed_counter < 0;
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
  cross_check(Microarchitecture::silvermont, {"slm"}, d);
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
  cross_check(Microarchitecture::goldmont, {"glm"}, d);
}

// Rows of Intel's perfmon data that libpfm4 4.13 does not have (no such
// code and umask, or only with another cmask/inv/edge): one reason each.
std::map<std::string, std::string> missing_from_libpfm(std::initializer_list<const char*> names, const std::string& why) {
  std::map<std::string, std::string> out;
  for (const char* n : names) out.emplace(n, why);
  return out;
}

void add(std::map<std::string, std::string>& to, const std::map<std::string, std::string>& more) {
  to.insert(more.begin(), more.end());
}

TEST_CASE("Skylake encodings agree with libpfm4's skl and skx PMUs", "[skl]") {
  Disagreements d;
  d.not_in_libpfm = missing_from_libpfm(
      {"BR_INST_RETIRED.ALL_BRANCHES_PEBS", "BR_MISP_RETIRED.ALL_BRANCHES_PEBS", "DSB2MITE_SWITCHES.COUNT",
       "FP_ARITH_INST_RETIRED.4_FLOPS", "FP_ARITH_INST_RETIRED.8_FLOPS", "FP_ARITH_INST_RETIRED.SCALAR",
       "FP_ARITH_INST_RETIRED.VECTOR", "FP_ARITH_INST_RETIRED2.128BIT_PACKED_BF16",
       "FP_ARITH_INST_RETIRED2.256BIT_PACKED_BF16", "FP_ARITH_INST_RETIRED2.512BIT_PACKED_BF16",
       "INST_DECODED.DECODERS", "INST_RETIRED.NOP", "MEMORY_DISAMBIGUATION.HISTORY_RESET",
       "MEM_LOAD_L3_MISS_RETIRED.REMOTE_PMM", "MEM_LOAD_RETIRED.LOCAL_PMM", "SW_PREFETCH_ACCESS.ANY",
       "UOPS_RETIRED.MACRO_FUSED"},
      "in Intel's perfmon SKYLAKE/SKYLAKEX/CASCADELAKEX data; libpfm4 4.13's skl and skx have no such code and umask");
  add(d.not_in_libpfm,
      missing_from_libpfm({"UOPS_RETIRED.STALL_CYCLES", "UOPS_RETIRED.TOTAL_CYCLES"},
                          "perfmon counts it on umask 0x02 (RETIRE_SLOTS) with cmask and inv; libpfm4 4.13 on umask "
                          "0x01 (UOPS_RETIRED:ALL)"));
  d.precise_flag = missing_from_libpfm(
      {"BR_INST_RETIRED.ALL_BRANCHES", "BR_INST_RETIRED.COND", "BR_INST_RETIRED.COND_NTAKEN",
       "BR_INST_RETIRED.NOT_TAKEN", "BR_MISP_RETIRED.ALL_BRANCHES", "UOPS_RETIRED.RETIRE_SLOTS"},
      "libpfm4 marks it precise; Intel's perfmon SKYLAKE data gives PEBS 0 (its PEBS forms are other rows: "
      "ALL_BRANCHES_PEBS, CONDITIONAL)");
  d.libpfm_only = missing_from_libpfm(
      {"IDQ:ALL_MITE_UOPS", "IDQ:MS_DSB_OCCUR", "IDQ:MS_DSB_UOPS", "L1D_PEND_MISS:EDGE", "L1D_PEND_MISS:OCCURRENCES",
       "LOCK_CYCLES:CACHE_LOCK_DURATION", "MISALIGN_MEM_REF:LOADS", "MISALIGN_MEM_REF:STORES",
       "MOVE_ELIMINATION:INT_ELIMINATED", "MOVE_ELIMINATION:INT_NOT_ELIMINATED", "MOVE_ELIMINATION:SIMD_ELIMINATED",
       "MOVE_ELIMINATION:SIMD_NOT_ELIMINATED", "RESOURCE_STALLS:ROB", "RESOURCE_STALLS:RS", "UOPS_ISSUED:FLAGS_MERGE",
       "UOPS_ISSUED:SINGLE_MUL", "UOPS_RETIRED:ALL", "UOPS_RETIRED:ANY",
       "UOPS_RETIRED:STALL_OCCURRENCES"},
      "libpfm4 4.13 has it; Intel's perfmon SKYLAKE/SKYLAKEX/CASCADELAKEX data (the tables' source) has no such "
      "event, umask and cmask");
  add(*d.libpfm_only, missing_from_libpfm({"UOPS_RETIRED:STALL_CYCLES", "UOPS_RETIRED:TOTAL_CYCLES"},
                                          "libpfm4 counts it on umask 0x01; perfmon's row, on umask 0x02, is ours"));
  cross_check(Microarchitecture::skylake, {"skl", "skx"}, d);
}

TEST_CASE("Ice Lake encodings agree with libpfm4's icl and icx PMUs", "[icl]") {
  Disagreements d;
  d.not_in_libpfm = missing_from_libpfm(
      {"ARITH.FP_DIVIDER_ACTIVE", "BR_MISP_RETIRED.RET", "CORE_SNOOP_RESPONSE.I_FWD_FE",
       "CORE_SNOOP_RESPONSE.I_FWD_M", "CORE_SNOOP_RESPONSE.I_HIT_FSE", "CORE_SNOOP_RESPONSE.MISS",
       "CORE_SNOOP_RESPONSE.S_FWD_FE", "CORE_SNOOP_RESPONSE.S_FWD_M", "CORE_SNOOP_RESPONSE.S_HIT_FSE",
       "DTLB_LOAD_MISSES.WALK_COMPLETED_1G", "DTLB_STORE_MISSES.WALK_COMPLETED_1G", "SW_PREFETCH_ACCESS.ANY",
       "OFFCORE_REQUESTS_OUTSTANDING.DEMAND_RFO"},
      "in Intel's perfmon ICELAKE/ICELAKEX data; libpfm4 4.13's icl and icx have no such code and umask (or only "
      "with another cmask)");
  add(d.not_in_libpfm,
      missing_from_libpfm({"MEM_LOAD_MISC_RETIRED.UC"},
                          "libpfm4 4.13 encodes icl::MEM_LOAD_MISC_RETIRED:UC with event code 0xC4 "
                          "(BR_INST_RETIRED's); perfmon gives 0xD4"));
  add(d.not_in_libpfm,
      missing_from_libpfm({"TOPDOWN.BACKEND_BOUND_SLOTS"},
                          "libpfm4's TOPDOWN:BACKEND_BOUND_SLOTS is a PERF_METRICS pseudo-encoding (event code "
                          "0x00); perfmon's row counts the slots on a general counter, 0xA4:0x02"));
  d.same_name = {
      {"MEM_LOAD_MISC_RETIRED.UC", "event code 0xC4 in libpfm4 4.13; 0xD4 in perfmon (see above)"},
      {"TOPDOWN.BACKEND_BOUND_SLOTS", "a PERF_METRICS pseudo-encoding in libpfm4 (see above)"},
  };
  d.precise_flag = missing_from_libpfm(
      {"INST_RETIRED.ANY_P", "INST_RETIRED.NOP", "RTM_RETIRED.ABORTED"},
      "Intel's perfmon ICELAKE data marks it precise (Ice Lake's extended PEBS); libpfm4 4.13 does not");
  d.libpfm_only = {
      {"EXE_ACTIVITY:EXE_BOUND_0_PORTS", "not in Intel's perfmon ICELAKE/ICELAKEX data"},
      {"MEM_LOAD_MISC_RETIRED:UC", "libpfm4's wrong event code 0xC4 (see above); ours is 0xD4"},
      {"OFFCORE_REQUESTS_OUTSTANDING:L3_MISS_DEMAND_DATA_RD", "deprecated in perfmon ICELAKE (left out)"},
      {"TOPDOWN:BR_MISPREDICT_SLOTS", "a PERF_METRICS pseudo-encoding (event code 0x00), not a counter event"},
  };
  cross_check(Microarchitecture::icelake, {"icl", "icx"}, d);
}

TEST_CASE("Sapphire Rapids encodings agree with libpfm4's spr PMU", "[spr]") {
  Disagreements d;
  d.not_in_libpfm = missing_from_libpfm(
      {"BACLEARS.ANY", "CORE_SNOOP_RESPONSE.I_FWD_FE", "CORE_SNOOP_RESPONSE.I_FWD_M", "CORE_SNOOP_RESPONSE.I_HIT_FSE",
       "CORE_SNOOP_RESPONSE.MISS", "CORE_SNOOP_RESPONSE.S_FWD_FE", "CORE_SNOOP_RESPONSE.S_FWD_M",
       "CORE_SNOOP_RESPONSE.S_HIT_FSE", "EXE_ACTIVITY.2_3_PORTS_UTIL", "EXE_ACTIVITY.EXE_BOUND_0_PORTS",
       "HW_INTERRUPTS.MASKED", "HW_INTERRUPTS.PENDING_AND_MASKED", "HW_INTERRUPTS.RECEIVED",
       "ICACHE_TAG.STALLS_INUSE", "ICACHE_TAG.STALLS_ISB", "L1D.HWPF_MISS", "L2_REQUEST.ALL", "L2_REQUEST.HIT",
       "L2_REQUEST.MISS", "L2_RQSTS.ALL_HWPF", "L2_RQSTS.HIT", "L2_RQSTS.HWPF_MISS", "L2_RQSTS.MISS",
       "L2_RQSTS.REFERENCES", "L2_TRANS.L2_WB", "LOCK_CYCLES.CACHE_LOCK_DURATION", "OFFCORE_REQUESTS.DEMAND_CODE_RD",
       "OFFCORE_REQUESTS.DEMAND_RFO", "OFFCORE_REQUESTS.L3_MISS_DEMAND_DATA_RD",
       "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DEMAND_CODE_RD",
       "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DEMAND_DATA_RD", "OFFCORE_REQUESTS_OUTSTANDING.DEMAND_CODE_RD",
       "OFFCORE_REQUESTS_OUTSTANDING.DEMAND_DATA_RD", "OFFCORE_REQUESTS_OUTSTANDING.L3_MISS_DEMAND_DATA_RD",
       "RS.EMPTY_RESOURCE", "SW_PREFETCH_ACCESS.ANY", "ARITH.IDIV_ACTIVE", "ICACHE_DATA.STALL_PERIODS",
       "UOPS_ISSUED.CYCLES"},
      "in Intel's perfmon SAPPHIRERAPIDS data; libpfm4 4.13's spr has no such code and umask (or only without "
      "the row's cmask/edge)");
  add(d.not_in_libpfm,
      missing_from_libpfm({"TOPDOWN.BACKEND_BOUND_SLOTS", "TOPDOWN.BAD_SPEC_SLOTS", "TOPDOWN.BR_MISPREDICT_SLOTS",
                           "TOPDOWN.MEMORY_BOUND_SLOTS"},
                          "libpfm4's TOPDOWN:*_SLOTS are PERF_METRICS pseudo-encodings (event code 0x00); "
                          "perfmon's rows count the slots on a general counter, event 0xA4"));
  add(d.not_in_libpfm,
      missing_from_libpfm({"UOPS_RETIRED.MS", "INT_MISC.UNKNOWN_BRANCH_CYCLES"},
                          "libpfm4 4.13 puts perfmon's MSR_PEBS_FRONTEND value (0x8, 0x7) in the umask; perfmon "
                          "gives umask 0x04 (0x40) with that value in MSR 0x3F7"));
  add(d.not_in_libpfm,
      missing_from_libpfm({"MEM_TRANS_RETIRED.STORE_SAMPLE"},
                          "libpfm4 4.13 encodes umask 0x03; perfmon and the kernel's mem-stores for Sapphire "
                          "Rapids (mem_st_spr, \"event=0xcd,umask=0x2\") give 0x02"));
  d.same_name = {
      {"TOPDOWN.BACKEND_BOUND_SLOTS", "a PERF_METRICS pseudo-encoding in libpfm4 (see above)"},
      {"TOPDOWN.BAD_SPEC_SLOTS", "a PERF_METRICS pseudo-encoding in libpfm4 (see above)"},
      {"TOPDOWN.BR_MISPREDICT_SLOTS", "a PERF_METRICS pseudo-encoding in libpfm4 (see above)"},
      {"TOPDOWN.MEMORY_BOUND_SLOTS", "a PERF_METRICS pseudo-encoding in libpfm4 (see above)"},
      {"UOPS_RETIRED.MS", "umask 0x08 in libpfm4 4.13, 0x04 in perfmon (see above)"},
      {"INT_MISC.UNKNOWN_BRANCH_CYCLES", "umask 0x07 in libpfm4 4.13, 0x40 in perfmon (see above)"},
      {"MEM_TRANS_RETIRED.STORE_SAMPLE", "umask 0x03 in libpfm4 4.13, 0x02 in perfmon (see above)"},
  };
  d.frontend = {
      {"UOPS_RETIRED.MS", "libpfm4 4.13 gives no MSR_PEBS_FRONTEND value; perfmon 0x8"},
      {"INT_MISC.UNKNOWN_BRANCH_CYCLES", "libpfm4 4.13 gives no MSR_PEBS_FRONTEND value; perfmon 0x7"},
  };
  d.precise_flag = missing_from_libpfm(
      {"INST_RETIRED.ANY_P", "INST_RETIRED.MACRO_FUSED", "INST_RETIRED.NOP", "INST_RETIRED.REP_ITERATION",
       "MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM", "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM",
       "MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD", "MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM",
       "MEM_LOAD_L3_MISS_RETIRED.REMOTE_PMM", "MEM_LOAD_RETIRED.LOCAL_PMM", "RTM_RETIRED.ABORTED"},
      "Intel's perfmon SAPPHIRERAPIDS data marks it precise; libpfm4 4.13 does not");
  d.libpfm_only = {
      {"AMX_OPS_RETIRED:BF16", "not in Intel's perfmon SAPPHIRERAPIDS data"},
      {"AMX_OPS_RETIRED:INT8", "not in Intel's perfmon SAPPHIRERAPIDS data"},
      {"INST_RETIRED:STALL_CYCLES", "not in Intel's perfmon SAPPHIRERAPIDS data"},
      {"INST_RETIRED:ANY", "libpfm4 encodes it for a general counter; perfmon's INST_RETIRED.ANY is fixed counter 0 "
                           "(our INST_RETIRED.ANY_P is the general-counter form)"},
      {"ARITH:IDIV_ACTIVE", "without the cmask of 1 that perfmon's row has"},
      {"ARITH:INT_DIVIDER_ACTIVE", "without the cmask of 1 that perfmon's (deprecated) row has"},
      {"INT_MISC:UNKNOWN_BRANCH_CYCLES", "libpfm4's umask 0x07 (see above); ours 0x40"},
      {"MEM_TRANS_RETIRED:STORE_SAMPLE", "libpfm4's umask 0x03 (see above); ours 0x02"},
      {"UOPS_RETIRED:MS", "libpfm4's umask 0x08 (see above); ours 0x04"},
      {"TOPDOWN:BR_MISPREDICT_SLOTS", "a PERF_METRICS pseudo-encoding (event code 0x00), not a counter event"},
      {"TOPDOWN:MEMORY_BOUND_SLOTS", "a PERF_METRICS pseudo-encoding (event code 0x00), not a counter event"},
  };
  cross_check(Microarchitecture::sapphire_rapids, {"spr"}, d);
}
