// The predicate language: parsing, normal form, evaluation and errors.

#include <catch2/catch.hpp>

#include <tagop/error.hpp>
#include <tagop/predicate.hpp>

using tagop::condition;
using tagop::ConditionSet;
using tagop::Predicate;

namespace {

std::string parse_error(const std::string& text) {
  try {
    Predicate::parse(text);
  } catch (const tagop::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a conjunction with negation matches exactly its rows of the truth table", "[predicate]") {
  const auto p = Predicate::parse("load & dc.miss & !dtlb.l1_miss");
  const auto load = condition("load"), miss = condition("dc.miss"), tlb = condition("dtlb.l1_miss");
  // All eight assignments of the three conditions; only load=1 miss=1 tlb=0 matches.
  for (int bits = 0; bits < 8; ++bits) {
    ConditionSet c;
    c.set(load, bits & 1);
    c.set(miss, bits & 2);
    c.set(tlb, bits & 4);
    CHECK(p.matches(c) == (bits == 3));
  }
  REQUIRE(p.terms().size() == 1);
  CHECK(p.terms()[0].require == ConditionSet{load, miss});
  CHECK(p.terms()[0].forbid == ConditionSet{tlb});
}

TEST_CASE("or, parentheses and precedence: & binds tighter than |", "[predicate]") {
  const auto load = condition("load"), store = condition("store"), miss = condition("dc.miss");
  const auto grouped = Predicate::parse("(load | store) & dc.miss");
  const auto ungrouped = Predicate::parse("load | store & dc.miss");
  for (int bits = 0; bits < 8; ++bits) {
    ConditionSet c;
    c.set(load, bits & 1);
    c.set(store, bits & 2);
    c.set(miss, bits & 4);
    const bool l = bits & 1, s = bits & 2, m = bits & 4;
    CHECK(grouped.matches(c) == ((l || s) && m));
    CHECK(ungrouped.matches(c) == (l || (s && m)));
  }
  CHECK(grouped.terms().size() == 2);
}

TEST_CASE("negation of a group follows De Morgan", "[predicate]") {
  const auto p = Predicate::parse("!(load | store)");
  const auto q = Predicate::parse("!(load & store)");
  const auto load = condition("load"), store = condition("store");
  for (int bits = 0; bits < 4; ++bits) {
    ConditionSet c;
    c.set(load, bits & 1);
    c.set(store, bits & 2);
    CHECK(p.matches(c) == (bits == 0));
    CHECK(q.matches(c) == (bits != 3));
  }
  CHECK(Predicate::parse("!!load") == Predicate::parse("load"));
}

TEST_CASE("the normal form drops contradictions and absorbed terms", "[predicate]") {
  CHECK(Predicate::parse("load & !load").never_matches());
  CHECK(Predicate::parse("load | load & store") == Predicate::parse("load"));
  CHECK(Predicate::parse("true").always());
  CHECK(Predicate::parse("load | !load").always() == false);  // two terms, not simplified to true
  CHECK(Predicate::parse("load & true") == Predicate::parse("load"));
  CHECK(Predicate::parse("false | store") == Predicate::parse("store"));
}

TEST_CASE("names are case-insensitive and C spellings of the operators work", "[predicate]") {
  CHECK(Predicate::parse("LOAD && DC.Miss") == Predicate::parse("load & dc.miss"));
  CHECK(Predicate::parse("load || store") == Predicate::parse("load | store"));
}

TEST_CASE("to_string gives a canonical form that parses back to the same predicate", "[predicate]") {
  for (const char* text : {"load & dc.miss & !dtlb.l1_miss", "(load | store) & dc.miss", "!(load | store)",
                           "branch & (return | branch.taken)", "true", "load & !load"}) {
    const auto p = Predicate::parse(text);
    CHECK(Predicate::parse(p.to_string()) == p);
  }
  CHECK(Predicate::parse("dc.miss & load").to_string() == "load & dc.miss");  // vocabulary order
  CHECK(Predicate::parse("(load | store) & dc.miss").to_string() == "(load & dc.miss) | (store & dc.miss)");
}

TEST_CASE("used() is every condition mentioned, required or forbidden", "[predicate]") {
  CHECK(Predicate::parse("load & !dc.miss | store").used() ==
        ConditionSet{condition("load"), condition("dc.miss"), condition("store")});
}

TEST_CASE("errors name the column and what was expected", "[predicate]") {
  CHECK(parse_error("load & dc.mis") ==
        "predicate 'load & dc.mis': column 8: unknown condition 'dc.mis' (did you mean dc.miss, ic.miss, dc.miss_no_mab?)");
  CHECK(parse_error("load &") == "predicate 'load &': column 7: expected a condition name, '!' or '(' at the end");
  CHECK(parse_error("(load | store") == "predicate '(load | store': column 14: expected ')' to close the '(' at column 1");
  CHECK(parse_error("load store") == "predicate 'load store': column 6: expected '&', '|' or the end, found 's'");
  CHECK(parse_error("load & @") == "predicate 'load & @': column 8: expected a condition name, '!' or '(', found '@'");
  CHECK(parse_error("") == "predicate '': column 1: expected a condition name, '!' or '(' (the predicate is empty)");
  CHECK(parse_error("lod").find("did you mean load") != std::string::npos);
}

TEST_CASE("an expression that expands past the term limit is refused", "[predicate]") {
  // Nine binary ORs in a conjunction expand to 2^9 = 512 terms > 256.
  std::string text;
  const char* pairs[][2] = {{"load", "store"},        {"dc.miss", "ic.miss"},       {"branch", "return"},
                            {"mem.locked", "resync"}, {"src.l3", "src.dram"},       {"src.io", "src.cache"},
                            {"uop.mmx_64", "uop.x87_fp"}, {"l2.miss", "dc.mab_hit"}, {"uop.packed_sp", "uop.scalar_sp"}};
  for (auto& p : pairs) text += std::string(text.empty() ? "" : " & ") + "(" + p[0] + " | " + p[1] + ")";
  CHECK_THROWS_WITH(Predicate::parse(text), Catch::Contains("too complex"));
}
