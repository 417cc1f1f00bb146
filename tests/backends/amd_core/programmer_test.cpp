// The Zen programmer: PERF_CTL and PERF_CTR values and perf_event_attrs
// computed by hand from the PPR's PERF_CTL layout (EventSelect[7:0] bits
// 7:0, UnitMask 15:8, USR 16, OS 17, Edge 18, Int 20, En 22, Inv 23,
// CntMask 31:24, EventSelect[11:8] 35:32; PERF_CTLn at C001_0200h + 2n,
// PERF_CTRn at C001_0201h + 2n; Zen 4's PerfCntrGlobalCtl at C000_0301h).

#include <catch2/catch.hpp>

#include <tagop/amd_core/programmer.hpp>  // program
#include <tagop/error.hpp>                // Error
#include <tagop/registry.hpp>             // Registry

using namespace tagop;
using namespace tagop::amd_core;

TEST_CASE("Zen PERF_CTL encodings by hand", "[zen]") {
  const ZenEventSpec& misp = require_event(Generation::zen3, "ex_ret_brn_misp");
  // 0xC3, USR (1 << 16), Int (1 << 20), En (1 << 22).
  CHECK(perf_ctl(misp, Privilege::user, true) == 0x5100C3);
  // 0xC3, OS (1 << 17), En: counting in the kernel.
  CHECK(perf_ctl(misp, Privilege::kernel, false) == 0x4200C3);
  CHECK(perf_raw_config(misp) == 0xC3);
  // 0x28F with unit mask 0x04: 0x8F in 7:0, 0x04 in 15:8, 0x2 in 35:32.
  const ZenEventSpec& oc = require_event(Generation::zen4, "op_cache_hit_miss.op_cache_miss");
  CHECK(perf_raw_config(oc) == 0x20000048FULL);
  CHECK(perf_ctl(oc, Privilege::both, true) == 0x20053048FULL);
  // Modifiers: Edge 1 << 18, Inv 1 << 23, CntMask 4 << 24 on ex_ret_ops (0xC1).
  const ZenEventSpec& ops = require_event(Generation::zen3, "ex_ret_ops");
  CHECK(perf_raw_config(ops, {.edge = true, .inv = true, .cmask = 4}) == 0x048400C1);
  CHECK(perf_ctl(ops, Privilege::both, false, {.edge = false, .inv = false, .cmask = 6}) == 0x064300C1);
  // 0x120 with unit mask 0x01 (Zen 4's P0-frequency cycles).
  CHECK(perf_raw_config(require_event(Generation::zen4, "ls_not_halted_p0_cyc.p0_freq_cyc")) == 0x100000120ULL);
}

TEST_CASE("Zen programmer: sampling one event on Zen 3", "[zen]") {
  ZenRequest r;
  r.generation = Generation::zen3;
  r.events = {{.event = "ex_ret_brn_misp", .modifiers = {}}};
  r.exclude_kernel = true;
  r.period = 100000;
  const Programming p = program(r);
  REQUIRE(p.msr_writes.size() == 3);  // no global control before Zen 4
  CHECK(p.msr_writes[0].msr == 0xC0010200);
  CHECK(p.msr_writes[0].value == 0);
  CHECK(p.msr_writes[1].msr == 0xC0010201);
  CHECK(p.msr_writes[1].name == "PERF_CTR0");
  CHECK(p.msr_writes[1].value == 0xFFFFFFFE7960ULL);  // 2^48 - 100000
  CHECK(p.msr_writes[2].msr == 0xC0010200);
  CHECK(p.msr_writes[2].value == 0x5100C3);
  REQUIRE(p.perf_events.size() == 1);
  const perf_event_attr& a = p.perf_events[0].attr;
  CHECK(a.type == PERF_TYPE_RAW);
  CHECK(a.config == 0xC3);
  CHECK(a.sample_period == 100000);
  CHECK(a.exclude_user == 0);
  CHECK(a.exclude_kernel == 1);
  CHECK(a.precise_ip == 0);
}

TEST_CASE("Zen programmer: counting two events on Zen 4 with PerfMonV2", "[zen]") {
  ZenRequest r;
  r.generation = Generation::zen4;
  r.events = {{.event = "ex_ret_ops", .modifiers = {}}, {.event = "0x28F:0x04", .modifiers = {}}};
  const Programming p = program(r);
  // PerfCntrGlobalCtl off, each counter's CTL/CTR/CTL, PerfCntrGlobalCtl = counters 0 and 1.
  REQUIRE(p.msr_writes.size() == 8);
  CHECK(p.msr_writes.front().msr == 0xC0000301);
  CHECK(p.msr_writes.front().value == 0);
  CHECK(p.msr_writes[4].msr == 0xC0010202);  // PERF_CTL1, stopped
  CHECK(p.msr_writes[4].value == 0);
  CHECK(p.msr_writes[5].msr == 0xC0010203);  // PERF_CTR1
  CHECK(p.msr_writes[5].value == 0);
  CHECK(p.msr_writes[6].msr == 0xC0010202);  // PERF_CTL1
  CHECK(p.msr_writes[6].value == 0x20043048FULL);  // USR, OS, En; no Int when counting
  CHECK(p.msr_writes.back().msr == 0xC0000301);
  CHECK(p.msr_writes.back().value == 0x3);
  REQUIRE(p.perf_events.size() == 2);
  CHECK(p.perf_events[0].attr.config == 0xC1);
  CHECK(p.perf_events[1].attr.config == 0x20000048FULL);
  CHECK(p.perf_events[1].attr.sample_period == 0);
}

TEST_CASE("Zen programmer refuses what the counters cannot do", "[zen]") {
  ZenRequest r;
  r.generation = Generation::zen3;
  r.events = {{.event = "ex_ret_brn", .modifiers = {}}};
  r.precise = true;
  try {
    program(r);
    FAIL("a precise Zen core event was programmed");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::not_supported);
    CHECK(std::string(e.what()).find("IBS") != std::string::npos);
  }
  r.precise = false;
  r.events.assign(7, {.event = "ex_ret_brn", .modifiers = {}});
  CHECK_THROWS_AS(program(r), Error);  // six counters
  r.events = {{.event = "ex_ret_brn", .modifiers = {}}};
  r.period = max_period + 1;
  CHECK_THROWS_AS(program(r), Error);
  r.period = max_period;
  CHECK_NOTHROW(program(r));
  r.period = std::nullopt;
  r.events = {{.event = "ex_ret_ucode_ops", .modifiers = {}}};  // Zen 4 only
  CHECK_THROWS_AS(program(r), Error);
  // Inv inverts the CntMask comparison: without a CntMask it means nothing.
  r.events = {{.event = "ex_ret_ops", .modifiers = {.edge = false, .inv = true, .cmask = 0}}};
  CHECK_THROWS_AS(program(r), Error);
  r.events[0].modifiers.cmask = 1;
  const Programming p = program(r);
  CHECK(p.perf_events[0].attr.config == 0x018000C1);  // Inv and CntMask 1: cycles with no op retired
}

TEST_CASE("Zen events program through the registry", "[zen]") {
  const Registry& reg = Registry::builtin();
  const EventEntry* e = reg.lookup("ex_ret_brn_misp", "zen3");
  REQUIRE(e);
  ProgramOptions o;
  o.period = 10007;
  const Programming p = reg.program(*e, {}, o);
  REQUIRE(p.perf_events.size() == 1);
  CHECK(p.perf_events[0].attr.config == 0xC3);
  CHECK(p.perf_events[0].attr.sample_period == 10007);
  CHECK(reg.program_command(*e) == "tagop program zen3 ex_ret_brn_misp");
}
