// The aggregation engine: counts and totals per predicate, per row, with
// availability, checked against sums computed directly in the test.

#include <random>

#include <catch2/catch.hpp>

#include <tagop/engine.hpp>

using namespace tagop;

namespace {

Sample op_sample(ConditionSet conditions, std::uint32_t latency = 0) {
  Sample s;
  s.conditions = conditions;
  s.conditions.insert(condition("op"));
  // This synthetic mechanism observes everything.
  for (std::size_t i = 0; i < condition_count; ++i) s.observed.insert(Condition{static_cast<std::uint8_t>(i)});
  s.set_measure(measure("dc.miss_latency"), latency);
  return s;
}

}  // namespace

TEST_CASE("counts and totals over random samples equal direct sums", "[engine]") {
  std::mt19937_64 random(42);
  const auto load = condition("load"), store = condition("store"), miss = condition("dc.miss");
  const std::vector<Query> queries{
      {Predicate::parse("op & (load | store) & dc.miss"), std::nullopt},
      {Predicate::parse("op & load & dc.miss"), measure("dc.miss_latency")},
      {Predicate::parse("op & !load & !store"), std::nullopt},
  };
  Aggregator a;
  std::uint64_t misses = 0, load_misses = 0, latency = 0, neither = 0;
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t r = random();
    ConditionSet c;
    c.set(load, r & 1);
    c.set(store, r & 2);
    c.set(miss, r & 4);
    const std::uint32_t lat = static_cast<std::uint32_t>(r >> 8) & 0xFFF;
    a.add(op_sample(c, lat), static_cast<std::uint32_t>((r >> 40) % 7));
    if ((r & 3) && (r & 4)) ++misses;
    if ((r & 1) && (r & 4)) {
      ++load_misses;
      latency += lat;
    }
    if (!(r & 3)) ++neither;
  }
  const auto totals = a.evaluate(queries);
  CHECK(a.samples() == 100000);
  CHECK(totals[0].count == misses);
  CHECK(totals[1].count == load_misses);
  CHECK(totals[1].total == latency);
  CHECK(totals[2].count == neither);
  CHECK(totals[0].available());

  // Rows add up to the totals.
  const auto rows = a.evaluate_by_row(queries);
  REQUIRE(rows.size() == 7);
  std::uint64_t sum = 0;
  for (const auto& row : rows) sum += row[0].count;
  CHECK(sum == misses);
}

TEST_CASE("merging two aggregators equals aggregating everything in one", "[engine]") {
  const std::vector<Query> queries{{Predicate::parse("load"), measure("dc.miss_latency")}};
  Aggregator one, left, right;
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const Sample s = op_sample(i % 3 ? ConditionSet{condition("load")} : ConditionSet{}, i);
    one.add(s);
    (i < 400 ? left : right).add(s);
  }
  left.merge(right);
  CHECK(left.evaluate(queries)[0].count == one.evaluate(queries)[0].count);
  CHECK(left.evaluate(queries)[0].total == one.evaluate(queries)[0].total);
  // 1000 - ceil(1000/3) = 666 loads; their latencies are the i not divisible by 3.
  std::uint64_t expected = 0;
  for (std::uint32_t i = 0; i < 1000; ++i) expected += i % 3 ? i : 0;
  CHECK(one.evaluate(queries)[0].count == 666);
  CHECK(one.evaluate(queries)[0].total == expected);
}

TEST_CASE("a predicate over an unobserved condition is not available, never zero", "[engine]") {
  Sample s;
  s.conditions = {condition("op"), condition("load")};
  s.observed = {condition("fetch"), condition("op"), condition("load"), condition("store")};
  Aggregator a;
  a.add(s);
  const std::vector<Query> queries{
      {Predicate::parse("op & load & dc.miss"), std::nullopt},  // dc.miss not observed
      {Predicate::parse("op & load"), std::nullopt},
      {Predicate::parse("op & load"), measure("dc.miss_latency")},  // measure not reported
      {Predicate::parse("fetch & ic.miss"), std::nullopt},          // no fetch samples: nothing unknown
  };
  const auto r = a.evaluate(queries);
  CHECK_FALSE(r[0].available());
  CHECK(r[1].available());
  CHECK(r[1].count == 1);
  CHECK_FALSE(r[2].available());
  CHECK(r[3].available());
  CHECK(r[3].count == 0);
}

TEST_CASE("many distinct signatures survive the table's growth", "[engine]") {
  Aggregator a;
  // 2^12 distinct condition sets, each added i+1 times in interleaved order.
  std::vector<ConditionSet> sets;
  for (int bits = 0; bits < 4096; ++bits) {
    ConditionSet c;
    for (int b = 0; b < 12; ++b) c.set(Condition{static_cast<std::uint8_t>(10 + b)}, (bits >> b) & 1);
    sets.push_back(c);
  }
  for (int round = 0; round < 3; ++round)
    for (const auto& c : sets) a.add(op_sample(c));
  CHECK(a.entries().size() == 4096);
  for (const auto& e : a.entries()) CHECK(e.tally.count == 3);
}

TEST_CASE("decide(): yes or no where the observed conditions settle it, unknown where they do not", "[engine]") {
  const auto cache = condition("src.cache"), remote = condition("src.remote"), l3 = condition("src.l3");
  // A Zen 3 load from the local node cache: local (src.remote observed
  // false), the L3 or another core's cache (src.l3, src.cache undecided).
  ConditionSet observed{condition("op"), condition("load"), remote};
  const ConditionSet conditions{condition("op"), condition("load")};
  auto p = [](const char* t) { return Predicate::parse(t); };
  CHECK(decide(p("load & src.cache & src.remote"), conditions, observed) == Decision::no);
  CHECK(decide(p("load & src.cache & !src.remote"), conditions, observed) == Decision::unknown);
  CHECK(decide(p("load & !src.remote"), conditions, observed) == Decision::yes);
  CHECK(decide(p("src.remote | load"), conditions, observed) == Decision::yes);
  CHECK(decide(p("(src.l3 & !src.remote) | store"), conditions, observed) == Decision::unknown);
  observed.insert(l3);
  observed.insert(cache);
  CHECK(decide(p("load & src.cache & !src.remote"), conditions, observed) == Decision::no);
}

TEST_CASE("a sample that decides a predicate without a condition it lacks does not make it unavailable", "[engine]") {
  // Two samples: a remote-cache load that observes everything, and a load
  // from Zen 3's local node cache that leaves src.cache undecided.
  Sample all = op_sample({condition("load"), condition("dc.miss"), condition("src.cache"), condition("src.remote")});
  Sample node = op_sample({condition("load"), condition("dc.miss")});
  node.observed.erase(ConditionSet{condition("src.cache"), condition("src.l3")});
  Aggregator a;
  a.add(all);
  a.add(node);
  const std::vector<Query> q{{Predicate::parse("op & load & src.cache & src.remote"), std::nullopt},
                             {Predicate::parse("op & load & src.cache & !src.remote"), std::nullopt}};
  const auto r = a.evaluate(q);
  CHECK(r[0].available());  // the node-cache load is local: decided no
  CHECK(r[0].count == 1);
  CHECK_FALSE(r[1].available());  // it may be another core's local cache: undecided
  // A condition no sample observes cannot be ruled out by the others.
  for (Sample* s : {&all, &node}) s->observed.erase(condition("src.cache_owned"));
  Aggregator b;
  b.add(all);
  b.add(node);
  const std::vector<Query> owned{{Predicate::parse("op & load & src.cache & src.cache_owned"), std::nullopt}};
  CHECK_FALSE(b.evaluate(owned)[0].available());
  // ... but where it is observed for some, the others decide without it.
  Sample dram = op_sample({condition("load"), condition("src.dram")});
  dram.observed.erase(condition("src.cache_owned"));
  Aggregator c;
  c.add(op_sample({condition("load")}));
  c.add(dram);
  CHECK(c.evaluate(owned)[0].available());
  CHECK(c.evaluate(owned)[0].count == 0);
}

TEST_CASE("required_kinds(): the kinds every term of a predicate asks for", "[engine]") {
  const auto op = condition("op"), fetch = condition("fetch");
  auto kinds = [](const char* t) { return required_kinds(Predicate::parse(t)); };
  CHECK(kinds("op & load") == ConditionSet{op});
  CHECK(kinds("(op & load) | (op & store)") == ConditionSet{op});
  CHECK(kinds("fetch & ic.miss") == ConditionSet{fetch});
  CHECK(kinds("(op & load) | (fetch & ic.miss)").empty());  // either kind may match
  CHECK(kinds("load").empty());  // no kind asked for: a sample of any kind may match
}
