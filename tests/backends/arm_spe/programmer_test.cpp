// The arm_spe PMU's perf_event_attr from vendor-neutral requests, every
// config word computed by hand from the PMU's format (Linux's
// drivers/perf/arm_spe_pmu.c: ts_enable config:0, jitter config:16,
// branch_filter config:32, load_filter config:33, store_filter config:34,
// event_filter config1:0-63, min_latency config2:0-11) and the events
// packet's bits (Retired 1, L1D refill 3, TLB walk 5, Mispredicted 7).

#include <catch2/catch.hpp>

#include <map>

#include <tagop/arm_spe/programmer.hpp>
#include <tagop/error.hpp>
#include <tagop/registry.hpp>

using namespace tagop;
using namespace tagop::arm_spe;

namespace {

const PerfEvent& only_event(const Programming& p) {
  REQUIRE(p.perf_events.size() == 1);
  return p.perf_events[0];
}

}  // namespace

TEST_CASE("SPE format terms are the kernel's", "[spe]") {
  // As /sys/bus/event_source/devices/arm_spe_0/format/* reads on Linux 6.1.
  const std::map<std::string_view, std::string> kernel = {
      {"ts_enable", "config:0"},       {"pa_enable", "config:1"},         {"pct_enable", "config:2"},
      {"jitter", "config:16"},         {"branch_filter", "config:32"},    {"load_filter", "config:33"},
      {"store_filter", "config:34"},   {"event_filter", "config1:0-63"},  {"min_latency", "config2:0-11"},
  };
  REQUIRE(format_fields().size() == kernel.size());
  for (const FormatField& f : format_fields()) {
    const char* word = f.word == ConfigWord::config ? "config" : f.word == ConfigWord::config1 ? "config1" : "config2";
    const std::string text = f.low == f.high ? std::string(word) + ":" + std::to_string(f.low)
                                             : std::string(word) + ":" + std::to_string(f.low) + "-" +
                                                   std::to_string(f.high);
    CHECK(kernel.at(f.name) == text);
  }
}

TEST_CASE("SPE requests become filters computed by hand", "[spe]") {
  struct Row {
    const char* predicate;
    std::uint32_t min_latency;
    bool jitter, timestamps;
    std::uint64_t config, config1, config2;
    bool exact;  // the filters say all of the predicate
  };
  const Row rows[] = {
      // ts (1 << 0) | jitter (1 << 16) | load_filter (1 << 33); L1D refill (1 << 3).
      {"load & dc.miss", 0, true, true, 0x200010001, 0x8, 0, true},
      // load_filter | store_filter; TLB walk (1 << 5); min_latency 64.
      {"(load | store) & dtlb.l2_miss", 64, false, false, 0x600000000, 0x20, 64, true},
      // branch_filter (1 << 32); Mispredicted (1 << 7) | Retired (1 << 1).
      {"branch.mispredicted & !op.not_retired", 0, true, true, 0x100010001, 0x82, 0, true},
      // An L3 miss missed the L1D first: the L1D refill filter is safe, the
      // L3 miss is asked of the samples.
      {"load & l3.miss", 0, false, false, 0x200000000, 0x8, 0, false},
      // Every op: no filter.
      {"op", 0, true, true, 0x10001, 0, 0, true},
      // Two types, but the events differ: only the types are filtered.
      {"load | branch.mispredicted", 0, false, false, 0x300000000, 0, 0, false},
      // No type: no type filter, the event still.
      {"dc.miss", 0, false, true, 0x1, 0x8, 0, true},
  };
  for (const Row& row : rows) {
    INFO(row.predicate);
    const Programming p = program(
        {.predicate = Predicate::parse(row.predicate), .period = 1024, .min_latency = row.min_latency,
         .jitter = row.jitter, .timestamps = row.timestamps});
    const PerfEvent& e = only_event(p);
    CHECK(e.pmu == "arm_spe_0");
    CHECK(e.attr.sample_period == 1024);
    CHECK(e.attr.config == row.config);
    CHECK(e.attr.config1 == row.config1);
    CHECK(e.attr.config2 == row.config2);
    bool rest_note = false;
    for (const std::string& n : p.notes) rest_note = rest_note || n.find("asked of the samples") != std::string::npos;
    CHECK(rest_note == !row.exact);
  }
}

TEST_CASE("SPE requests the PMU cannot do are refused", "[spe]") {
  CHECK_THROWS_WITH(program({.min_latency = 4096}), Catch::Contains("over 4095"));
  CHECK_THROWS_AS(program({.predicate = Predicate::parse("load & !load")}), Error);
  perf_event_attr attr{};
  CHECK_THROWS_WITH(set_field(attr, "min_latency", 0x1000), Catch::Contains("12 bits wide"));
}

TEST_CASE("SPE on a machine without the arm_spe PMU", "[spe]") {
  if (sysfs_pmu_type("arm_spe_0") >= 0) {
    WARN("this machine has an arm_spe_0 PMU: nothing to refuse");
    return;
  }
  const Programming p = program({});
  CHECK(only_event(p).attr.type == unresolved_pmu_type);
  const Registry& reg = Registry::builtin();
  const EventEntry* e = nullptr;
  for (const EventEntry& x : reg.find("arm-spe")->events()) if (x.name == "SPE L1D refill loads") e = &x;
  REQUIRE(e);
  try {
    reg.find("arm-spe")->program(*e, e->name, {});
    FAIL("programmed SPE on a machine without it");
  } catch (const Error& err) {
    CHECK(err.code() == ErrorCode::not_supported);
    CHECK_THAT(err.what(), Catch::Contains("no arm_spe_0 PMU"));
  }
}
