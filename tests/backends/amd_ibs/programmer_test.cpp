// The IBS programmer: register values computed by hand from the BKDG bit
// positions, and the requests it must refuse.

#include <cstdint>  // std::uint32_t
#include <fstream>  // std::ifstream

#include <catch2/catch.hpp>

#include <tagop/amd_ibs/programmer.hpp>
#include <tagop/error.hpp>

using namespace tagop::amd_ibs;

namespace {
constexpr std::uint64_t bit(unsigned n) { return std::uint64_t{1} << n; }
}

TEST_CASE("op sampling by dispatched ops on Family 10h revision 4", "[ibs]") {
  const auto p = program({.unit = IbsUnit::op, .period = 0x10000, .count_dispatched_ops = true, .family = 0x10, .model = 4});
  REQUIRE(p.msr_writes.size() == 1);
  CHECK(p.msr_writes[0].msr == 0xC0011033);
  CHECK(p.msr_writes[0].name == "IbsOpCtl");
  // IbsOpMaxCnt = 0x10000 / 16 = 0x1000; IbsOpEn bit 17; IbsOpCntCtl bit 19.
  CHECK(p.msr_writes[0].value == (0x1000 | bit(17) | bit(19)));
  REQUIRE(p.perf_events.size() == 1);
  CHECK(p.perf_events[0].pmu == "ibs_op");
  CHECK(p.perf_events[0].attr.config == bit(19));  // cnt_ctl
  CHECK(p.perf_events[0].attr.sample_period == 0x10000);
  CHECK((p.perf_events[0].attr.sample_type & PERF_SAMPLE_RAW) != 0);
}

TEST_CASE("a long op period uses IbsOpMaxCntExt where the processor has it", "[ibs]") {
  // 0x123450 / 16 = 0x12345: low 16 bits 0x2345 in 15:0, the 0x1 above them in 26:20.
  const auto p = program({.unit = IbsUnit::op, .period = 0x123450, .family = 0x17});
  CHECK(p.msr_writes[0].value == (0x2345 | (std::uint64_t{0x1} << 20) | bit(17)));
  CHECK_THROWS_WITH(program({.unit = IbsUnit::op, .period = 0x123450, .family = 0x10}),
                    Catch::Contains("beyond the op counter: at most 1048560") && Catch::Contains("OpCntExt"));
}

TEST_CASE("fetch sampling with randomisation", "[ibs]") {
  const auto p = program({.unit = IbsUnit::fetch, .period = 4096, .randomize = true, .family = 0x10});
  REQUIRE(p.msr_writes.size() == 1);
  CHECK(p.msr_writes[0].msr == 0xC0011030);
  // IbsFetchMaxCnt = 4096 / 16 = 0x100; IbsFetchEn bit 48; IbsRandEn bit 57.
  CHECK(p.msr_writes[0].value == (0x100 | bit(48) | bit(57)));
  CHECK(p.perf_events[0].pmu == "ibs_fetch");
  CHECK(p.perf_events[0].attr.config == bit(57));
}

TEST_CASE("requests the processor cannot do are refused with the reason", "[ibs]") {
  CHECK_THROWS_WITH(program({.unit = IbsUnit::op, .period = 0x10000, .count_dispatched_ops = true, .family = 0x10, .model = 2}),
                    Catch::Contains("needs OpCnt") && Catch::Contains("revision 4"));
  CHECK_THROWS_WITH(program({.unit = IbsUnit::op, .period = 100, .family = 0x10}), Catch::Contains("not a multiple of 16"));
  CHECK_THROWS_WITH(program({.unit = IbsUnit::op, .period = 0, .family = 0x10}), Catch::Contains("not a multiple of 16"));
  CHECK_THROWS_WITH(program({.unit = IbsUnit::fetch, .period = 0x100000, .family = 0x19}),
                    Catch::Contains("beyond the fetch counter: at most 1048560"));
  CHECK_THROWS_WITH(program({.unit = IbsUnit::fetch, .count_dispatched_ops = true, .family = 0x10}), Catch::Contains("op-sampling setting"));
  CHECK_THROWS_WITH(program({.unit = IbsUnit::op, .randomize = true, .family = 0x10}), Catch::Contains("fetch-sampling setting"));
  CHECK_THROWS_WITH(program({.unit = IbsUnit::op, .family = 0x0F}), Catch::Contains("no Instruction-Based Sampling"));
  // Capability bits override the family: a part without OpSam.
  CHECK_THROWS_WITH(program({.unit = IbsUnit::op, .family = 0x17, .capabilities = 0x3}), Catch::Contains("no IBS op sampling"));
  CHECK_THROWS_WITH(program({.unit = IbsUnit::op, .exclude_user = true, .exclude_kernel = true, .family = 0x10}),
                    Catch::Contains("leaves nothing"));
}

TEST_CASE("user-only sampling asks perf to filter in software and says so", "[ibs]") {
  const auto p = program({.unit = IbsUnit::op, .exclude_kernel = true, .family = 0x19});
  CHECK(p.perf_events[0].attr.exclude_kernel);
  CHECK(p.perf_events[0].attr.config2 == 1);  // swfilt
  REQUIRE_FALSE(p.notes.empty());
  CHECK_THAT(p.notes[0], Catch::Contains("no privilege filter"));
}

TEST_CASE("capabilities by family and model", "[ibs]") {
  CHECK((capabilities_of(0x10, 2) & caps::OpCnt) == 0);
  CHECK((capabilities_of(0x10, 4) & caps::OpCnt) != 0);
  CHECK((capabilities_of(0x10, 4) & caps::OpCntExt) == 0);
  CHECK((capabilities_of(0x12, 0) & caps::OpCntExt) != 0);
  CHECK(max_period(IbsUnit::op, caps::OpCntExt) == ((std::uint64_t{1} << 23) - 1) * 16);
  CHECK(max_period(IbsUnit::fetch, caps::OpCntExt) == 0xFFFF * 16);
}

TEST_CASE("a request without a processor is refused: IBS differs between families", "[ibs]") {
  try {
    program({.unit = IbsUnit::op});
    FAIL("no error");
  } catch (const tagop::Error& e) {
    CHECK(e.code() == tagop::ErrorCode::bad_input);
    CHECK_THAT(e.what(), Catch::Contains("IbsRequest::family is not set"));
  }
}

TEST_CASE("L3MissOnly sets bit 16 of IbsOpCtl and bit 59 of IbsFetchCtl from Zen 4 on", "[ibs]") {
  // Zen 4 (Family 19h model 11h): IbsOpMaxCnt = 0x10000 / 16 = 0x1000,
  // IbsOpEn (17), L3MissOnly (16); perf's ibs_op format: l3missonly = config:16.
  const auto op = program({.unit = IbsUnit::op, .period = 0x10000, .l3_miss_only = true, .family = 0x19, .model = 0x11});
  CHECK(op.msr_writes[0].value == (0x1000 | bit(17) | bit(16)));
  CHECK(op.perf_events[0].attr.config == bit(16));
  // ibs_fetch: IbsFetchEn (48), L3MissOnly (59) = config:59.
  const auto fetch =
      program({.unit = IbsUnit::fetch, .period = 0x10000, .l3_miss_only = true, .family = 0x19, .model = 0x11});
  CHECK(fetch.msr_writes[0].value == (0x1000 | bit(48) | bit(59)));
  CHECK(fetch.perf_events[0].attr.config == bit(59));
  // Zen 3 (model 21h) has no Zen4Ext (capability bit 11).
  try {
    program({.unit = IbsUnit::op, .l3_miss_only = true, .family = 0x19, .model = 0x21});
    FAIL("no error");
  } catch (const tagop::Error& e) {
    CHECK(e.code() == tagop::ErrorCode::not_supported);
    CHECK_THAT(e.what(), Catch::Contains("Zen4Ext"));
  }
}

TEST_CASE("the load-latency filter: LdLatThrsh = latency / 128 - 1 and LdLatEn, Zen 5 on", "[ibs]") {
  // Zen 5 (Family 1Ah model 02h), 256 cycles: LdLatThrsh (62:59) = 1,
  // LdLatEn (63), and L3MissOnly (16), which Linux sets with it on Zen 5
  // (erratum #1606); perf passes the latency itself in config1.
  const auto p = program({.unit = IbsUnit::op, .period = 0x10000, .load_latency = 256, .family = 0x1A, .model = 0x02});
  CHECK(p.msr_writes[0].value == (0x1000 | bit(17) | bit(16) | bit(59) | bit(63)));
  CHECK(p.perf_events[0].attr.config1 == 256);
  CHECK(p.perf_events[0].attr.config == 0);
  // 300 cycles: the threshold rounds down to 256 (300 >> 7 = 2, minus 1), and a note says so.
  const auto rounded = program({.unit = IbsUnit::op, .load_latency = 300, .family = 0x1A, .model = 0x02});
  CHECK(((rounded.msr_writes[0].value >> 59) & 0xF) == 1);
  CHECK_THAT(rounded.notes.front(), Catch::Contains("acts as 256"));
  CHECK_THROWS_WITH(program({.unit = IbsUnit::op, .load_latency = 100, .family = 0x1A}),
                    Catch::Contains("outside 128 to 2048"));
  CHECK_THROWS_WITH(program({.unit = IbsUnit::op, .load_latency = 4096, .family = 0x1A}),
                    Catch::Contains("outside 128 to 2048"));
  CHECK_THROWS_WITH(program({.unit = IbsUnit::fetch, .load_latency = 256, .family = 0x1A}),
                    Catch::Contains("op-sampling setting"));
  // Zen 4 has no OpLdLat (capability bit 12).
  CHECK_THROWS_WITH(program({.unit = IbsUnit::op, .load_latency = 256, .family = 0x19, .model = 0x11}),
                    Catch::Contains("OpLdLat"));
}

TEST_CASE("attr.type is the ibs PMU's type here, or one no PMU has", "[ibs]") {
  // Type 0 would be PERF_TYPE_HARDWARE: perf_event_open would count cycles.
  std::ifstream sysfs("/sys/bus/event_source/devices/ibs_op/type");
  std::uint32_t type = 0;
  const bool here = static_cast<bool>(sysfs >> type);
  const auto p = program({.unit = IbsUnit::op, .family = 0x17});
  CHECK(p.perf_events[0].attr.type == (here ? type : 0xFFFFFFFFu));
}
