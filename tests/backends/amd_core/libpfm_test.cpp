// Every row of our Zen table, on every generation that has it, gets the
// same PERF_CTL value from libpfm4 at run time (LIBPFM_FORCE_PMU=
// amd64_fam17h_zen1 ... amd64_fam19h_zen4 works on any host). libpfm4 names
// the events its own way (RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED for
// perf's ex_ret_brn_misp), so rows are matched by event select and unit
// mask; a row whose unit mask is several of libpfm4's named unit masks
// together (ls_l1_d_tlb_miss.all = 0xFF) is encoded by libpfm4 with all of
// them. Both directions are checked: our rows that libpfm4 lacks, and
// libpfm4's encodings of our rows on generations where we say the event is
// absent. Each difference is listed with its reason; a listed difference
// that no longer occurs fails the test, so the lists cannot go stale.

#include <cstdlib>  // setenv, unsetenv, free
#include <map>      // std::map
#include <optional> // std::optional
#include <set>      // std::set
#include <string>   // std::string
#include <vector>   // std::vector

#include <perfmon/pfmlib.h>  // pfm_initialize, pfm_get_os_event_encoding

#include <catch2/catch.hpp>

#include <tagop/amd_core/events.hpp>  // the table, perf_ctl

using namespace tagop::amd_core;

namespace {

struct PfmUmask {
  std::string name;
  std::uint64_t code = 0;
};

struct PfmEvent {
  std::string name;  // "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED"
  std::uint64_t code = 0;  // the 12-bit event select
  std::vector<PfmUmask> umasks;
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

// One PMU's events and their unit masks, as libpfm4 lists them.
std::vector<PfmEvent> libpfm_events(const std::string& pmu) {
  std::vector<PfmEvent> out;
  for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
    pfm_pmu_info_t info{};
    info.size = sizeof(info);
    if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(p), &info) != PFM_SUCCESS || pmu != info.name) continue;
    // PMU facts the spec states: six counters, none fixed.
    CHECK(info.num_cntrs == 6);
    CHECK(info.num_fixed_cntrs == 0);
    for (int i = info.first_event; i != -1; i = pfm_get_event_next(i)) {
      pfm_event_info_t e{};
      e.size = sizeof(e);
      REQUIRE(pfm_get_event_info(i, PFM_OS_NONE, &e) == PFM_SUCCESS);
      PfmEvent event{e.name, e.code, {}};
      for (int a = 0; a < e.nattrs; ++a) {
        pfm_event_attr_info_t attr{};
        attr.size = sizeof(attr);
        REQUIRE(pfm_get_event_attr_info(i, a, PFM_OS_NONE, &attr) == PFM_SUCCESS);
        if (attr.type == PFM_ATTR_UMASK) event.umasks.push_back({attr.name, attr.code});
      }
      out.push_back(event);
    }
  }
  return out;
}

// libpfm4's PERF_CTL for this event select and unit mask: one named unit
// mask equal to it, or the named unit masks inside it whose union is it;
// nullopt when libpfm4 has no such event or cannot make that mask.
std::optional<std::uint64_t> libpfm_perf_ctl(const std::string& pmu, const std::vector<PfmEvent>& events,
                                             std::uint16_t select, std::uint8_t umask) {
  for (const PfmEvent& e : events) {
    if (e.code != select) continue;
    if (e.umasks.empty()) {
      if (umask == 0) return encode(pmu, e.name);
      continue;
    }
    for (const PfmUmask& u : e.umasks)
      if (u.code == umask) return encode(pmu, e.name + ":" + u.name);
    std::string spelled = e.name;
    std::uint64_t covered = 0;
    for (const PfmUmask& u : e.umasks)
      if (u.code != 0 && (u.code & ~std::uint64_t{umask}) == 0 && (u.code & ~covered) != 0) {
        spelled += ":" + u.name;
        covered |= u.code;
      }
    if (umask != 0 && covered == umask) return encode(pmu, spelled);
  }
  return std::nullopt;
}

struct Differences {
  std::map<std::string, std::string> not_in_libpfm;     // our row on this generation: why it is right
  std::map<std::string, std::string> libpfm_has_more;   // our row, absent here by our table: why
};

void cross_check(Generation g, const Differences& listed) {
  const std::string pmu(pmu_spec(g).libpfm_pmu);
  ::setenv("LIBPFM_FORCE_PMU", pmu.c_str(), 1);
  REQUIRE(pfm_initialize() == PFM_SUCCESS);
  const std::vector<PfmEvent> events = libpfm_events(pmu);
  REQUIRE(events.size() > 50);

  std::set<std::string> seen_missing, seen_more;
  std::size_t matched = 0, rows = 0;
  for (const ZenEventSpec& e : all_events()) {
    const std::string name(e.name);
    INFO(pmu << " " << name);
    const auto theirs = libpfm_perf_ctl(pmu, events, e.event, e.umask);
    if ((e.generations & generation_bit(g)) == 0) {
      // The same event under this generation's own name (ex_ret_cops on
      // Zen 1-2, ex_ret_ops on Zen 3-4) is another row of the table.
      bool renamed = false;
      for (const ZenEventSpec& o : all_events())
        renamed |= (o.generations & generation_bit(g)) != 0 && o.event == e.event && o.umask == e.umask;
      if (theirs && !renamed) {
        CHECK(listed.libpfm_has_more.count(name) == 1);
        seen_more.insert(name);
      }
      continue;
    }
    ++rows;
    if (!theirs) {
      CHECK(listed.not_in_libpfm.count(name) == 1);
      seen_missing.insert(name);
      continue;
    }
    // libpfm4 sets USR, OS, Int and En: perf_ctl with both privileges and an interrupt.
    CHECK(*theirs == perf_ctl(e, Privilege::both, true));
    ++matched;
  }
  pfm_terminate();
  ::unsetenv("LIBPFM_FORCE_PMU");
  auto keys = [](const std::map<std::string, std::string>& m) {
    std::set<std::string> out;
    for (const auto& [k, v] : m) out.insert(k);
    return out;
  };
  CHECK(seen_missing == keys(listed.not_in_libpfm));
  CHECK(seen_more == keys(listed.libpfm_has_more));
  CHECK(matched == rows - listed.not_in_libpfm.size());
  CHECK(matched >= 20);
}

}  // namespace

TEST_CASE("Zen counting modifiers agree with libpfm4's e, i and c", "[zen]") {
  // libpfm4's AMD modifiers: e (Edge), i (Inv), c (CntMask).
  ::setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3", 1);
  REQUIRE(pfm_initialize() == PFM_SUCCESS);
  const ZenEventSpec& ops = require_event(Generation::zen3, "ex_ret_ops");
  const ZenEventSpec& oc = require_event(Generation::zen3, "op_cache_hit_miss.op_cache_miss");
  CHECK(encode("amd64_fam19h_zen3", "RETIRED_OPS:c=4:i=1") ==
        perf_ctl(ops, Privilege::both, true, {.edge = false, .inv = true, .cmask = 4}));
  CHECK(encode("amd64_fam19h_zen3", "RETIRED_OPS:e=1:c=1") ==
        perf_ctl(ops, Privilege::both, true, {.edge = true, .inv = false, .cmask = 1}));
  CHECK(encode("amd64_fam19h_zen3", "OP_CACHE_HIT_MISS:OC_MISS:c=2") ==
        perf_ctl(oc, Privilege::both, true, {.edge = false, .inv = false, .cmask = 2}));
  // Privilege: u (USR only), k (OS only).
  CHECK(encode("amd64_fam19h_zen3", "RETIRED_OPS:u=1:k=0") == perf_ctl(ops, Privilege::user, true));
  pfm_terminate();
  ::unsetenv("LIBPFM_FORCE_PMU");
}

TEST_CASE("Zen 1 encodings agree with libpfm4's amd64_fam17h_zen1", "[zen]") {
  Differences d;
  cross_check(Generation::zen1, d);
}

TEST_CASE("Zen 2 encodings agree with libpfm4's amd64_fam17h_zen2", "[zen]") {
  Differences d;
  d.not_in_libpfm = {
      {"ex_ret_brn_resync", "perf's amdzen2 core.json lists 0xC7 (Family 17h PPR); libpfm4 4.13 has it in its zen1 "
                            "table only"},
      {"ex_ret_cond_misp", "perf's amdzen2 core.json lists 0xD2; libpfm4 4.13 has it in its zen1 table only"},
  };
  d.libpfm_has_more = {
      {"ex_ret_msprd_brnch_instr_dir_msmtch", "libpfm4 4.13's zen2 table has 0x1C7; perf's amdzen2 data (core.json, "
                                              "branch.json) does not, and the table follows perf's data"},
  };
  cross_check(Generation::zen2, d);
}

TEST_CASE("Zen 3 encodings agree with libpfm4's amd64_fam19h_zen3", "[zen]") {
  Differences d;
  d.not_in_libpfm = {
      {"ex_ret_brn_resync", "perf's amdzen3 core.json lists 0xC7; libpfm4 4.13's zen3 table has no 0xC7"},
      {"ls_dc_accesses", "perf's amdzen3 memory.json lists 0x40; libpfm4 4.13's zen3 table has no 0x40"},
  };
  cross_check(Generation::zen3, d);
}

TEST_CASE("Zen 4 encodings agree with libpfm4's amd64_fam19h_zen4", "[zen]") {
  Differences d;
  cross_check(Generation::zen4, d);
}
