// SPE records in the model: conditions and measures against the packets'
// bits read by hand, and every derived event's count over random records
// against a count made from the raw packet bits (not from the model).

#include <catch2/catch.hpp>

#include <functional>
#include <map>

#include <tagop/arm_spe/derived_events.hpp>
#include <tagop/arm_spe/model.hpp>
#include <tagop/engine.hpp>
#include <tagop/registry.hpp>

#include "../../splitmix.hpp"
#include "spe_bytes.hpp"

using namespace tagop;
using namespace tagop::arm_spe;
using namespace spe_bytes;

namespace {

SpeRecord only_record(const Buffer& b) {
  const RecordStream s = decode_records(b.bytes);
  REQUIRE(s.errors.empty());
  REQUIRE(s.records.size() == 1);
  return s.records[0];
}

bool holds(const Sample& s, std::string_view name) { return s.conditions.contains(*find_condition(name)); }
bool seen(const Sample& s, std::string_view name) { return s.observed.contains(*find_condition(name)); }

}  // namespace

TEST_CASE("SPE a Neoverse DRAM load that walked the TLB", "[spe]") {
  Buffer b;
  b.address(address_pc, Buffer::code_address(0x400100, 0, true));
  b.load();
  b.events(bit(retired) | bit(l1d_access) | bit(l1d_refill) | bit(tlb_access) | bit(tlb_walk) | bit(llc_access) |
           bit(llc_miss));
  b.data_source(0xE);  // Neoverse: DRAM
  b.counter(counter_total_latency, 300);
  b.counter(counter_issue_latency, 4);
  b.counter(counter_translation_latency, 40);
  b.address(address_data_virtual, 0x7ffc0010);
  b.end();
  const Sample s = to_sample(only_record(b), {.data_source = DataSourceEncoding::neoverse});
  CHECK(s.kind() == SampleKind::op);
  CHECK(s.ip == 0x400100);
  CHECK(s.data_linear == 0x7ffc0010);
  for (auto name : {"load", "dc.miss", "dtlb.l2_miss", "dtlb.l1_miss", "l3.miss", "l2.miss", "nb.valid", "src.dram",
                    "dc.lin_addr_valid"}) {
    INFO(name);
    CHECK(holds(s, name));
    CHECK(seen(s, name));
  }
  for (auto name : {"store", "branch", "op.not_retired", "mem.misaligned", "src.cache", "src.l3", "src.remote",
                    "dc.phys_addr_valid"}) {
    INFO(name);
    CHECK_FALSE(holds(s, name));
    CHECK(seen(s, name));
  }
  CHECK(s.measures[measure("op.total_latency").index] == 300);
  CHECK(s.measures[measure("mem.load_latency").index] == 300);
  CHECK(s.measures[measure("op.issue_latency").index] == 4);
  CHECK(s.measures[measure("mem.translation_latency").index] == 40);
}

TEST_CASE("SPE what the packets do not say stays unobserved", "[spe]") {
  Buffer b;
  b.address(address_pc, Buffer::code_address(0x400100, 0, true));
  b.load();
  b.events(bit(retired) | bit(l1d_access) | bit(tlb_access));
  b.data_source(0x9);  // peer core on Neoverse, meaningless elsewhere
  b.end();
  const SpeRecord r = only_record(b);
  // No walk: whether the L1 DTLB missed is not reported.
  const Sample unknown = to_sample(r);
  CHECK_FALSE(seen(unknown, "dtlb.l1_miss"));
  CHECK(seen(unknown, "dtlb.l2_miss"));
  CHECK_FALSE(holds(unknown, "dtlb.l2_miss"));
  // An encoding that is not known says nothing of the source.
  for (auto name : {"src.cache", "src.dram", "nb.valid", "l2.miss"}) CHECK_FALSE(seen(unknown, name));
  CHECK_FALSE(unknown.has_measure(measure("op.total_latency")));
  const Sample neoverse = to_sample(r, {.data_source = DataSourceEncoding::neoverse});
  CHECK(holds(neoverse, "src.cache"));
  CHECK(holds(neoverse, "l2.miss"));
  CHECK_FALSE(holds(neoverse, "src.dram"));
  CHECK(seen(neoverse, "src.dram"));
}

TEST_CASE("SPE branches: taken from not-taken and speculation from retired", "[spe]") {
  Buffer fell_through, taken_indirect, speculative_store;
  fell_through.branch(true, false);
  fell_through.events(bit(retired) | bit(not_taken));
  fell_through.end();
  taken_indirect.branch(false, true);
  taken_indirect.events(bit(retired) | bit(mispredicted));
  taken_indirect.end();
  speculative_store.store();
  speculative_store.events(bit(l1d_access) | bit(alignment));
  speculative_store.end();
  const Sample a = to_sample(only_record(fell_through));
  CHECK(holds(a, "branch.conditional"));
  CHECK_FALSE(holds(a, "branch.taken"));
  CHECK(seen(a, "branch.taken"));
  CHECK_FALSE(holds(a, "branch.indirect"));
  const Sample c = to_sample(only_record(taken_indirect));
  CHECK(holds(c, "branch.indirect"));
  CHECK(holds(c, "branch.taken"));
  CHECK(holds(c, "branch.mispredicted"));
  const Sample s = to_sample(only_record(speculative_store));
  CHECK(holds(s, "store"));
  CHECK(holds(s, "op.not_retired"));
  CHECK(holds(s, "mem.misaligned"));
  CHECK_FALSE(holds(s, "branch.taken"));
}

TEST_CASE("SPE data sources and processors as perf reads them", "[spe]") {
  // MIDR_EL1 of a Neoverse N1 r3p1: implementer 0x41, variant 3, arch 0xF,
  // part 0xD0C, revision 1.
  CHECK(data_source_encoding_for_midr(0x413FD0C1) == DataSourceEncoding::neoverse);
  CHECK(data_source_encoding_for_midr(0x410FD490) == DataSourceEncoding::neoverse);  // N2
  CHECK(data_source_encoding_for_midr(0x410FD400) == DataSourceEncoding::neoverse);  // V1
  CHECK(data_source_encoding_for_midr(0x410FD0B0) == DataSourceEncoding::unknown);   // Cortex-A76
  CHECK(data_source_encoding_for_midr(0x480FD010) == DataSourceEncoding::unknown);   // HiSilicon
  // perf's arm_spe_neoverse_data_source values.
  CHECK(find_data_source(DataSourceEncoding::neoverse, 0xB)->name == "SYS-CACHE");
  CHECK(find_data_source(DataSourceEncoding::neoverse, 0x1) == nullptr);
  CHECK(find_data_source(DataSourceEncoding::unknown, 0xE) == nullptr);
}

TEST_CASE("SPE derived events count what the raw packet bits say", "[spe]") {
  // Each event as a test of the raw bits: the op-type packet's class and
  // payload, the events packet, the Neoverse data source.
  struct Raw {
    unsigned cls, payload;
    std::uint64_t ev;
    unsigned src;
  };
  auto ld = [](const Raw& r) { return r.cls == 1 && !(r.payload & 1); };
  auto st = [](const Raw& r) { return r.cls == 1 && (r.payload & 1); };
  auto br = [](const Raw& r) { return r.cls == 2; };
  auto ev = [](const Raw& r, unsigned n) { return (r.ev >> n) & 1; };
  const std::map<std::string, std::function<bool(const Raw&)>> expected_by_name = {
      {"SPE op samples", [](const Raw&) { return true; }},
      {"SPE retired ops", [&](const Raw& r) { return ev(r, retired); }},
      {"SPE ops not retired", [&](const Raw& r) { return !ev(r, retired); }},
      {"SPE memory ops", [&](const Raw& r) { return r.cls == 1; }},
      {"SPE load ops", ld},
      {"SPE store ops", st},
      {"SPE retired loads", [&](const Raw& r) { return ld(r) && ev(r, retired); }},
      {"SPE L1D refill ops", [&](const Raw& r) { return r.cls == 1 && ev(r, l1d_refill); }},
      {"SPE L1D refill loads", [&](const Raw& r) { return ld(r) && ev(r, l1d_refill); }},
      {"SPE L1D refill stores", [&](const Raw& r) { return st(r) && ev(r, l1d_refill); }},
      {"SPE LLC refill ops", [&](const Raw& r) { return r.cls == 1 && ev(r, llc_miss); }},
      {"SPE LLC refill loads", [&](const Raw& r) { return ld(r) && ev(r, llc_miss); }},
      {"SPE TLB walk ops", [&](const Raw& r) { return r.cls == 1 && ev(r, tlb_walk); }},
      {"SPE TLB walk loads", [&](const Raw& r) { return ld(r) && ev(r, tlb_walk); }},
      {"SPE misaligned accesses", [&](const Raw& r) { return r.cls == 1 && ev(r, alignment); }},
      {"SPE remote accesses",
       [&](const Raw& r) { return r.cls == 1 && (ev(r, remote_access) || (ld(r) && r.src == 0xD)); }},
      {"SPE loads beyond the L2", [&](const Raw& r) { return ld(r) && r.src >= 0x9 && r.src <= 0xE; }},
      {"SPE loads from another core's cache",
       [&](const Raw& r) { return ld(r) && (r.src == 0x9 || r.src == 0xA || r.src == 0xC); }},
      {"SPE loads from the system cache", [&](const Raw& r) { return ld(r) && r.src == 0xB; }},
      {"SPE loads from DRAM", [&](const Raw& r) { return ld(r) && r.src == 0xE; }},
      {"SPE branch ops", br},
      {"SPE conditional branches", [&](const Raw& r) { return br(r) && (r.payload & 1); }},
      {"SPE indirect branches", [&](const Raw& r) { return br(r) && (r.payload & 0xFE) == 2; }},
      {"SPE taken branches", [&](const Raw& r) { return br(r) && !ev(r, not_taken); }},
      {"SPE mispredicted branches", [&](const Raw& r) { return br(r) && ev(r, mispredicted); }},
  };
  std::map<std::string, std::uint64_t> expected;
  Aggregator agg;
  std::uint64_t state = 7, total_latency = 0, load_latency = 0, remote_loads = 0;
  const unsigned sources[] = {0x0, 0x8, 0x9, 0xA, 0xB, 0xC, 0xD, 0xE};
  for (int i = 0; i < 3000; ++i) {
    Raw r;
    r.cls = splitmix(state) % 3;
    r.payload = r.cls == 1 ? splitmix(state) % 2 : r.cls == 2 ? splitmix(state) % 4 : 0;
    r.ev = splitmix(state) & 0xFFF;
    r.src = sources[splitmix(state) % 8];
    const auto latency = static_cast<std::uint16_t>(splitmix(state) % 500);
    Buffer b;
    b.address(address_pc, Buffer::code_address(0x400000 + 4 * i, 0, true));
    b.op_type(r.cls, r.payload);
    b.events(r.ev);
    if (r.cls == 1) b.data_source(r.src);
    b.counter(counter_total_latency, latency);
    b.end();
    agg.add(to_sample(only_record(b), {.data_source = DataSourceEncoding::neoverse}));
    for (const auto& [name, test] : expected_by_name) expected[name] += test(r);
    total_latency += latency;
    if (ld(r)) load_latency += latency;
    if (ld(r) && r.src == 0xD) ++remote_loads;
  }
  const auto table = derived_event_table();
  const std::vector<QueryResult> results = agg.evaluate(derived_event_queries());
  std::size_t checked = 0;
  for (std::size_t i = 0; i < table.size(); ++i) {
    INFO(table[i].name);
    // The records carry a total latency only: the other sums are undecided.
    // A remote load's source is another socket's cache or memory, not said
    // which: the three sources it could be are undecided for it.
    const bool source_row = table[i].name == "SPE loads from another core's cache" ||
                            table[i].name == "SPE loads from the system cache" || table[i].name == "SPE loads from DRAM";
    if (source_row) CHECK(results[i].undecided == remote_loads);
    else if (table[i].sums.empty() || table[i].sums == "op.total_latency") CHECK(results[i].undecided == 0);
    if (const auto it = expected.find(std::string(table[i].name)); it != expected.end()) {
      CHECK(results[i].count == it->second);
      ++checked;
    }
    if (table[i].name == "SPE total latency") CHECK(results[i].total == total_latency);
    if (table[i].name == "SPE load total latency") CHECK(results[i].total == load_latency);
  }
  CHECK(checked == expected_by_name.size());
}

TEST_CASE("SPE backend is registered with its events", "[spe]") {
  const BackendInfo* spe = Registry::builtin().find("arm-spe");
  REQUIRE(spe);
  CHECK(spe->mechanism == Mechanism::instruction_sampling);
  const auto events = spe->events();
  CHECK(events.size() == derived_event_table().size());
  for (const EventEntry& e : events) {
    CHECK(e.backend == "arm-spe");
    CHECK(e.unit == (e.sums.empty() ? CountingUnit::operations : CountingUnit::cycles));
  }
  // The entries' predicates are valid, and every row's query parses.
  CHECK(derived_event_queries().size() == events.size());
}
