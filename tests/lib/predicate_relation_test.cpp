// Predicate relations, each expectation worked out by hand from the truth
// tables of the two predicates.

#include <catch2/catch.hpp>

#include <string>  // std::string

#include <tagop/predicate_relation.hpp>

using tagop::Predicate;
using tagop::Relation;

namespace {
Relation rel(const char* a, const char* b) { return tagop::relation(Predicate::parse(a), Predicate::parse(b)); }
}  // namespace

TEST_CASE("implies: a conjunction implies each of its parts, not the reverse", "[predicate]") {
  CHECK(tagop::implies(Predicate::parse("load & dc.miss"), Predicate::parse("load")));
  CHECK_FALSE(tagop::implies(Predicate::parse("load"), Predicate::parse("load & dc.miss")));
  // load & dc.miss meets (load | store) & dc.miss through its first term.
  CHECK(tagop::implies(Predicate::parse("load & dc.miss"), Predicate::parse("(load | store) & dc.miss")));
  // store & dc.miss & !load is a counter-example to the reverse.
  CHECK_FALSE(tagop::implies(Predicate::parse("(load | store) & dc.miss"), Predicate::parse("load & dc.miss")));
  // Every predicate implies true; never implies everything.
  CHECK(tagop::implies(Predicate::parse("load"), Predicate()));
  CHECK(tagop::implies(Predicate::never(), Predicate::parse("load")));
}

TEST_CASE("implies needs every assignment, not only a term-wise match", "[predicate]") {
  // (a & b) | (a & !b) is a, though neither term alone is implied by the
  // single term `a`: the exact check must see it.
  CHECK(tagop::implies(Predicate::parse("load"), Predicate::parse("(load & dc.miss) | (load & !dc.miss)")));
  CHECK(rel("load", "(load & dc.miss) | (load & !dc.miss)") == Relation::same);
}

TEST_CASE("relation: same, narrower, wider, overlapping, disjoint", "[predicate]") {
  // IBS 0xF219 and Silvermont MEM_UOPS_RETIRED.L1_MISS_LOADS both say load & dc.miss.
  CHECK(rel("load & dc.miss", "dc.miss & load") == Relation::same);
  CHECK(rel("load & dc.miss & !l2.miss", "load & dc.miss") == Relation::narrower);
  CHECK(rel("load & dc.miss", "load & dc.miss & !l2.miss") == Relation::wider);
  // load & dc.miss & store meets both; load & dc.miss & !store only the first;
  // store & dc.miss & !load only the second.
  CHECK(rel("load & dc.miss", "store & dc.miss") == Relation::overlapping);
  CHECK(rel("load & dc.miss", "load & !dc.miss") == Relation::disjoint);
  CHECK(rel("fetch & ic.miss", "op & load") == Relation::overlapping);  // the model does not know fetch excludes op
  CHECK(rel("fetch & !op", "op") == Relation::disjoint);
}

TEST_CASE("relation_name spells each relation", "[predicate]") {
  CHECK(tagop::relation_name(Relation::same) == "same");
  CHECK(tagop::relation_name(Relation::narrower) == "narrower");
  CHECK(tagop::relation_name(Relation::wider) == "wider");
  CHECK(tagop::relation_name(Relation::overlapping) == "overlapping");
  CHECK(tagop::relation_name(Relation::disjoint) == "disjoint");
}

TEST_CASE("implies beyond the exact limit falls back to a sound term-wise check", "[predicate]") {
  // 21 distinct conditions between the two predicates: more than
  // exact_condition_limit, so the term-wise check answers.
  const char* wide = "load & store & dc.miss & l2.miss & dtlb.l1_miss & dtlb.l2_miss & mem.locked & "
                     "mem.misaligned & mem.uncacheable & stlf.forwarded & branch & branch.taken & "
                     "branch.mispredicted & return & resync & op.microcoded & src.dram & src.l3 & "
                     "src.remote & nb.valid & mem.split_line";
  const Predicate a = Predicate::parse(wide);
  REQUIRE(a.used().members().size() == 21);
  REQUIRE(a.used().members().size() > tagop::exact_condition_limit);
  // A conjunction implies any conjunction of a subset of its conditions.
  CHECK(tagop::implies(a, Predicate::parse("load & dc.miss & src.remote")));
  CHECK_FALSE(tagop::implies(a, Predicate::parse("load & !dc.miss")));
  // Sound, not complete: (k & i) | (k & !i) is k, which the wide conjunction
  // with k implies; the term-wise check cannot see it and says no (a missed
  // implication, never a false one).
  const Predicate split = Predicate::parse("(fetch.killed & ic.miss) | (fetch.killed & !ic.miss)");
  CHECK_FALSE(tagop::implies(a & Predicate::parse("fetch.killed"), split));
}

TEST_CASE("truth_table_overlap and condition_distance: how close two predicates are", "[predicate]") {
  auto p = [](const char* text) { return tagop::Predicate::parse(text); };
  // Over {load, store, dc.miss}: load & dc.miss holds for 2 of 8
  // assignments, (load | store) & dc.miss for 3, both for 2.
  CHECK(*tagop::truth_table_overlap(p("load & dc.miss"), p("(load | store) & dc.miss")) == Approx(2.0 / 3.0));
  // Over {load, dc.miss}: 1 of 4 against 2 of 4.
  CHECK(*tagop::truth_table_overlap(p("load & dc.miss"), p("load")) == Approx(0.5));
  CHECK(*tagop::truth_table_overlap(p("op & load & dc.miss"), p("op")) == Approx(0.25));
  CHECK(*tagop::truth_table_overlap(p("load"), p("load")) == 1.0);
  CHECK(*tagop::truth_table_overlap(p("load"), p("!load")) == 0.0);
  CHECK(tagop::condition_distance(p("load & dc.miss"), p("(load | store) & dc.miss")) == 1);
  CHECK(tagop::condition_distance(p("load & dc.miss"), p("op")) == 3);
  CHECK(tagop::closer(p("load & dc.miss"), p("(load | store) & dc.miss"), p("load")));
  CHECK_FALSE(tagop::closer(p("load & dc.miss"), p("load"), p("(load | store) & dc.miss")));
}

// The vocabulary's implications, each checked here against the hardware's
// words: an L2 miss is a DC miss (AMD's "IbsL2Miss", Intel's L2_MISS_LOADS
// are loads that missed the L1 first), an L2 TLB miss an L1 TLB miss, a
// data source is reported for a load that missed the L2 (seed 000:
// "Northbridge IBS data is only valid for load operations that miss in both
// the L1 data cache and the L2 data cache"), a return is a branch.
TEST_CASE("the relations know the vocabulary's implications", "[predicate]") {
  CHECK(rel("load & l2.miss", "load & dc.miss & l2.miss") == Relation::same);
  CHECK(rel("dtlb.l2_miss", "dtlb.l1_miss & dtlb.l2_miss") == Relation::same);
  CHECK(rel("load & src.dram", "load & l2.miss") == Relation::narrower);  // via nb.valid
  CHECK(rel("fetch.l3_miss", "ic.miss") == Relation::narrower);           // a chain of two
  CHECK(rel("l2.miss & !dc.miss", "load") == Relation::disjoint);         // no op meets it
  CHECK(rel("return", "branch & return") == Relation::same);
  // Only implications: two sources are not assumed exclusive.
  CHECK(rel("src.dram", "src.l3") == Relation::overlapping);
  CHECK(tagop::implies(Predicate::parse("load & nb.valid"), Predicate::parse("load & dc.miss")));
  CHECK_FALSE(tagop::implies(Predicate::parse("load & dc.miss"), Predicate::parse("load & nb.valid")));
  // Over {dc.miss, l2.miss}: the allowed assignments are 00, 10, 11; dc.miss
  // holds in two, l2.miss in one, both in one.
  CHECK(*tagop::truth_table_overlap(Predicate::parse("dc.miss"), Predicate::parse("l2.miss")) == Approx(0.5));
}

TEST_CASE("the implications are closed, and say why", "[predicate]") {
  using tagop::condition;
  CHECK(tagop::implied_by(condition("fetch.l3_miss")) ==
        tagop::ConditionSet{condition("fetch.l2_miss"), condition("ic.miss")});
  CHECK(tagop::implying(condition("dc.miss")).contains(condition("src.dram")));
  CHECK_FALSE(tagop::implied_by(condition("dc.miss")).contains(condition("l2.miss")));
  CHECK(tagop::consistent({condition("l2.miss")}, {condition("src.dram")}));
  CHECK_FALSE(tagop::consistent({condition("src.io")}, {condition("dc.miss")}));
  CHECK(tagop::implication_text(condition("l2.miss"), condition("dc.miss")) ==
        "an access that missed the L2 missed the L1 data cache first");
  CHECK(tagop::implication_text(condition("src.io"), condition("l2.miss")) ==
        "I/O as the source is a reported source, and a data source is reported for an access that missed the L2");
  CHECK(tagop::implication_text(condition("dc.miss"), condition("l2.miss")).empty());
  // No condition implies itself, nor one of another kind of sample.
  for (const auto& i : tagop::implication_table) {
    CHECK_FALSE(tagop::implied_by(i.conclusion).contains(i.premise));
    CHECK_FALSE(i.why.empty());
  }
}

TEST_CASE("simplest leaves out what the rest implies, and drops what no op meets", "[predicate]") {
  auto simplest = [](const char* text) { return tagop::simplest(Predicate::parse(text)).to_string(); };
  CHECK(simplest("load & dc.miss & l2.miss") == "load & l2.miss");
  CHECK(simplest("load & !dtlb.l1_miss & !dtlb.l2_miss") == "load & !dtlb.l1_miss");
  CHECK(simplest("(l2.miss & !dc.miss) | store") == "store");
  CHECK(simplest("(load & l2.miss) | (load & dc.miss)") == "load & dc.miss");
  CHECK(simplest("load & dc.miss") == "load & dc.miss");
  CHECK(tagop::simplest(Predicate::parse("l2.miss & !dc.miss")).never_matches());
  CHECK(tagop::contradiction_text(Predicate::parse("l2.miss & !dc.miss")) ==
        "!dc.miss & l2.miss: an access that missed the L2 missed the L1 data cache first");
  CHECK(tagop::contradiction_text(Predicate::parse("(l2.miss & !dc.miss) | store")).empty());
}
