// Every ESCR and CCCR the programmer writes for an event libpfm4 knows,
// against libpfm4's own encoding of the same event and mask bits, computed
// here at run time (LIBPFM_FORCE_PMU=netburst works on any host).
//
// libpfm4 differs in ways the comparison allows for:
// - it sets both threads' OS/USR bits (ESCR bits 3:0 = 0xF for PLM0|PLM3);
//   tagop sets only the requested thread's, so the other thread's two bits
//   are masked off libpfm4's value;
// - it never sets OVF_PMI: the CCCRs match exactly when counting, and
//   tagop's adds OVF_PMI_T0 (bit 26) only when sampling.
// Events libpfm4 lacks or spells differently:
// - x87_SIMD_moves_uop (select 0x2E on FIRM_ESCR0/1, SDM Table 19-32) is
//   not in libpfm4 nor Linux: checked by hand in programmer_test.cpp;
// - uop_type is libpfm4's "uops_type" (the table's libpfm_name says so).

#include <catch2/catch.hpp>

#include <cstdlib>  // setenv
#include <cstring>  // std::memset

#include <perfmon/pfmlib.h>  // pfm_initialize, pfm_get_os_event_encoding

#include <fmt/format.h>  // fmt::format

#include <tagop/intel_p4/programmer.hpp>

#include "p4_test_support.hpp"

using namespace tagop;
using namespace tagop::intel_p4;

namespace {

struct PfmCodes {
  std::uint64_t escr = 0;
  std::uint64_t cccr = 0;
};

void init_libpfm() {
  static const bool ok = [] {
    setenv("LIBPFM_FORCE_PMU", "netburst", 1);
    return pfm_initialize() == PFM_SUCCESS;
  }();
  REQUIRE(ok);
}

PfmCodes pfm_encode(const std::string& event, int plm = PFM_PLM0 | PFM_PLM3) {
  init_libpfm();
  pfm_pmu_encode_arg_t arg;
  std::memset(&arg, 0, sizeof arg);
  arg.size = sizeof arg;
  const std::string name = "netburst::" + event;
  const int rc = pfm_get_os_event_encoding(name.c_str(), plm, PFM_OS_NONE, &arg);
  INFO(name << ": " << pfm_strerror(rc));
  REQUIRE(rc == PFM_SUCCESS);
  REQUIRE(arg.count == 2);
  const PfmCodes codes{arg.codes[0], arg.codes[1]};
  std::free(arg.codes);
  return codes;
}

// libpfm4's privilege bits for one thread: 0xF holds T1_USR, T1_OS, T0_USR, T0_OS.
std::uint64_t only_thread(std::uint64_t pfm_escr, unsigned thread) { return pfm_escr & ~(thread == 0 ? 0x3u : 0xCu); }

std::string with_masks(std::string_view name, const EventSpec& e, std::uint32_t mask) {
  std::string text(name);
  for (const MaskBitSpec& m : e.masks)
    if (!m.name.empty() && ((mask >> m.bit) & 1)) text += ":" + std::string(m.name);
  return text;
}

std::string libpfm_text(const EventSpec& e, std::uint32_t mask) { return with_masks(e.libpfm_name, e, mask); }

// The ESCRs and the CCCRs a programming writes.
std::vector<MsrWrite> writes_where(const Programming& p, bool (*pred)(std::uint32_t)) {
  std::vector<MsrWrite> out;
  for (const MsrWrite& w : p.msr_writes)
    if (pred(w.msr)) out.push_back(w);
  return out;
}

}  // namespace

TEST_CASE("every raw event and every mask bit encodes as libpfm4 encodes it", "[p4]") {
  std::size_t compared = 0;
  for (const EventSpec& e : event_table()) {
    if (e.libpfm_name.empty()) {
      CHECK(e.name == "x87_SIMD_moves_uop");  // the one event libpfm4 lacks
      continue;
    }
    std::vector<std::uint32_t> masks;
    std::uint32_t all = 0;
    for (const MaskBitSpec& m : e.masks)
      if (!m.name.empty()) {
        masks.push_back(1u << m.bit);
        all |= 1u << m.bit;
      }
    masks.push_back(all);
    for (std::uint32_t mask : masks) {
      for (unsigned thread : {0u, 1u}) {
        const std::string ours = with_masks(e.name, e, mask);
        INFO(ours << " thread " << thread);
        auto r = p4_test::request({ours});
        r.thread = thread;
        const Programming p = program(r);
        const PfmCodes pfm = pfm_encode(libpfm_text(e, mask));
        const auto escrs = writes_where(p, p4_test::is_escr);
        const auto cccrs = writes_where(p, p4_test::is_cccr);
        REQUIRE(escrs.size() == 1);
        CHECK(escrs[0].value == only_thread(pfm.escr, thread));
        if (e.tags_only) {
          CHECK(cccrs.empty());  // uop_type tags, it gets no counter
        } else {
          REQUIRE(cccrs.size() == 1);
          CHECK(cccrs[0].value == pfm.cccr);
        }
        ++compared;
      }
    }
  }
  CHECK(compared >= 2 * 30);
}

TEST_CASE("user-only and kernel-only match libpfm4's :u and :k", "[p4]") {
  for (bool user : {true, false}) {
    auto r = p4_test::request({"replay_event:NBOGUS"});
    r.exclude_kernel = user;
    r.exclude_user = !user;
    const PfmCodes pfm = pfm_encode("replay_event:NBOGUS", user ? PFM_PLM3 : PFM_PLM0);
    CHECK(writes_where(program(r), p4_test::is_escr)[0].value == only_thread(pfm.escr, 0));
  }
}

TEST_CASE("sampling adds only OVF_PMI to libpfm4's CCCR", "[p4]") {
  auto r = p4_test::request({"uops_retired:NBOGUS"});
  r.period = 100000;
  const PfmCodes pfm = pfm_encode("uops_retired:NBOGUS");
  CHECK(writes_where(program(r), p4_test::is_cccr)[0].value == (pfm.cccr | 1u << 26));
  r.thread = 1;
  CHECK(writes_where(program(r), p4_test::is_cccr)[0].value == (pfm.cccr | 1u << 27));
}

TEST_CASE("every metric's upstream and downstream ESCR and CCCR match libpfm4", "[p4]") {
  for (const MetricSpec& m : metric_table()) {
    INFO(m.name);
    const Programming p = program(p4_test::request({std::string(m.name)}));
    const auto escrs = writes_where(p, p4_test::is_escr);
    const auto cccrs = writes_where(p, p4_test::is_cccr);
    const ParsedEvent down = parse_event(m.downstream);
    const std::string down_text = libpfm_text(*down.event, down.mask);
    if (m.upstream.empty()) {
      REQUIRE(escrs.size() == 1);
      REQUIRE(cccrs.size() == 1);
    } else {
      const ParsedEvent up = parse_event(m.upstream);
      if (up.event->libpfm_name.empty()) {
        CHECK(m.name == "x87_SIMD_moves_uop_retired");  // libpfm4 lacks its upstream event
      } else {
        // Execution tagging's tag value 1 is libpfm4's TAG0 (tag enable + tag bit 0).
        const std::string up_text = libpfm_text(*up.event, up.mask) + (m.tag_value ? ":TAG0" : "");
        const PfmCodes pfm_up = pfm_encode(up_text);
        INFO(up_text);
        CHECK(escrs.front().value == only_thread(pfm_up.escr, 0));
        if (!up.event->tags_only) CHECK(cccrs.front().value == pfm_up.cccr);
      }
    }
    const PfmCodes pfm_down = pfm_encode(down_text);
    INFO(down_text);
    CHECK(escrs.back().value == only_thread(pfm_down.escr, 0));
    CHECK(cccrs.back().value == pfm_down.cccr);
  }
}

TEST_CASE("two execution metrics: tags 1 and 2 are libpfm4's TAG0 and TAG1", "[p4]") {
  const Programming p = program(p4_test::request({"packed_SP_uop_retired", "X87_FP_uop_retired"}));
  const auto escrs = writes_where(p, p4_test::is_escr);
  REQUIRE(escrs.size() == 3);
  CHECK(escrs[0].value == only_thread(pfm_encode("packed_SP_uop:ALL:TAG0").escr, 0));
  CHECK(escrs[1].value == only_thread(pfm_encode("x87_FP_uop:ALL:TAG1").escr, 0));
  CHECK(escrs[2].value == only_thread(pfm_encode("execution_event:NBOGUS0:NBOGUS1").escr, 0));
}
