// Identities the seed states, over many random registers, with the sides
// computed directly from the raw bits in the test.

#include <random>

#include <catch2/catch.hpp>

#include "ibs_bits.hpp"

using namespace ibs_bits;

namespace {

std::map<std::uint16_t, std::uint64_t> totals(const tagop::Aggregator& a) {
  const auto results = a.evaluate(tagop::amd_ibs::derived_event_queries());
  const auto table = tagop::amd_ibs::derived_event_table();
  std::map<std::uint16_t, std::uint64_t> out;
  for (std::size_t i = 0; i < table.size(); ++i) out[table[i].select] = table[i].sums.empty() ? results[i].count : results[i].total;
  return out;
}

}  // namespace

TEST_CASE("random fetch samples: all = killed + attempted, attempted = completed + aborted", "[ibs]") {
  std::mt19937_64 random(2007);
  const tagop::amd_ibs::IbsDecoder decoder(0x10);
  tagop::Aggregator a;
  std::uint64_t killed = 0;
  for (int i = 0; i < 20000; ++i) {
    // Clear the outcome bits often enough that killed fetches are common.
    std::uint64_t ctl = random();
    if (i % 3 == 0) ctl &= ~(FetchComp | IcMiss | PhyAddrValid | L1TlbMiss | L2TlbMiss);
    if (!(ctl & (FetchComp | IcMiss | PhyAddrValid | L1TlbMiss | L2TlbMiss))) ++killed;
    a.add(decoder.decode(fetch(ctl)));
  }
  auto t = totals(a);
  CHECK(t[0xF000] == 20000);
  CHECK(t[0xF001] == killed);
  CHECK(t[0xF000] == t[0xF001] + t[0xF002]);
  CHECK(t[0xF002] == t[0xF003] + t[0xF004]);
  CHECK(killed > 5000);
}

TEST_CASE("random op samples: DC hit + miss = load/store ops; NB local + remote = loads with NB data", "[ibs]") {
  std::mt19937_64 random(2010);
  const tagop::amd_ibs::IbsDecoder decoder(0x10);
  tagop::Aggregator a;
  std::uint64_t load_store = 0, nb_loads = 0, nb_latency = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t data = random(), data2 = random(), data3 = random();
    a.add(decoder.decode(op(data, data2, data3)));
    if (data3 & (LdOp | StOp)) ++load_store;
    const bool nb_valid = (data3 & LdOp) && (data3 & DcMiss) && (data2 & 7) != 0;
    if (nb_valid) {
      ++nb_loads;
      nb_latency += (data3 >> 32) & 0xFFFF;
    }
  }
  auto t = totals(a);
  CHECK(t[0xF200] == load_store);
  CHECK(t[0xF206] + t[0xF207] == load_store);
  CHECK(t[0xF240] + t[0xF241] == nb_loads);
  CHECK(t[0xF24B] + t[0xF24C] == nb_latency);
  CHECK(t[0xF203] + t[0xF204] + t[0xF205] <= load_store);
  CHECK(nb_loads > 1000);
}
