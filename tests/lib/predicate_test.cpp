// The predicate language: parsing, normal form, evaluation and errors.

#include <catch2/catch.hpp>

#include <cstddef>  // std::size_t
#include <fstream>  // std::ifstream
#include <string>   // std::string
#include <vector>   // std::vector

#include <tagop/error.hpp>
#include <tagop/measures.hpp>
#include <tagop/predicate.hpp>

#include "run_command.hpp"  // source_path

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

namespace {

// Eight ORs of two conditions, in a conjunction: 2^8 = 256 terms, the most
// a predicate may have; each pair from `names`, starting at `first`.
std::string wide_conjunction(std::size_t first) {
  static const char* const names[] = {
      "load",          "store",         "dc.miss",      "ic.miss",         "branch",         "return",
      "mem.locked",    "resync",        "src.l3",       "src.dram",        "src.io",         "src.cache",
      "uop.mmx_64",    "uop.x87_fp",    "l2.miss",      "dc.mab_hit",      "uop.packed_sp",  "uop.scalar_sp",
      "dtlb.l1_miss",  "dtlb.l2_miss",  "itlb.l1_miss", "itlb.l2_miss",    "mem.uncacheable", "mem.misaligned",
      "branch.taken",  "branch.mispredicted", "fetch.killed", "fetch.completed", "dtlb.l1_page_2m",
      "stlf.forwarded", "src.remote",   "src.cache_owned"};
  std::string text;
  for (std::size_t i = first; i < first + 16; i += 2)
    text += std::string(text.empty() ? "(" : " & (") + names[i] + " | " + names[i + 1] + ")";
  return text;
}

}  // namespace

TEST_CASE("parentheses nest at most 64 deep, with a clear error past that", "[predicate][hostile]") {
  auto nested = [](std::size_t depth) { return std::string(depth, '(') + "load" + std::string(depth, ')'); };
  CHECK(Predicate::parse(nested(64)) == Predicate::parse("load"));
  CHECK(parse_error(nested(65)) ==
        "predicate '" + nested(65) + "': column 65: parentheses nested more than 64 deep");
  // 20,000 of them overflowed the stack before there was a bound.
  CHECK_THAT(parse_error(std::string(20000, '(')), Catch::Contains("predicate of 20000 characters"));
}

TEST_CASE("a run of '!' takes no stack, and the text is at most 4096 characters", "[predicate][hostile]") {
  CHECK(Predicate::parse(std::string(4000, '!') + "load") == Predicate::parse("load"));
  CHECK(Predicate::parse(std::string(4001, '!') + "load") == Predicate::parse("!load"));
  CHECK(Predicate::parse(std::string(4096 - 4, ' ') + "load") == Predicate::parse("load"));
  CHECK(parse_error(std::string(4097 - 4, ' ') + "load") ==
        "predicate of 4097 characters ('                                ...'): at most 4096");
  CHECK_THAT(parse_error(std::string(110000, '!') + "load"), Catch::Contains("at most 4096"));
}

TEST_CASE("the simplifier keeps to its term limit while the terms grow", "[predicate][hostile]") {
  const std::string x = wide_conjunction(0), y = wide_conjunction(16);
  REQUIRE(Predicate::parse(x).terms().size() == 256);
  REQUIRE(Predicate::parse(y).terms().size() == 256);
  // 256 x 256 terms, each absorbed by one of x's: the product is x.
  CHECK(Predicate::parse("(" + x + ") & (" + x + ")") == Predicate::parse(x));
  // 65,536 distinct terms: refused once a thousand are kept, not after.
  CHECK(parse_error("(" + x + ") & (" + y + ")") == "predicate too complex: more than 1024 terms once expanded (at most 256)");
  // 257 terms after absorption: refused at the end.
  CHECK(parse_error(x + " | dtlb.l1_miss & itlb.l1_miss") == "predicate too complex: 257 terms once expanded (at most 256)");
}

TEST_CASE("the normal form keeps the terms of the whole, in the order of their first appearance", "[predicate]") {
  // The simplification as it was defined before it was made incremental:
  // drop contradictions, then every term that another at least as general
  // absorbs (of two equal terms, the first stays).
  auto reference = [](std::vector<tagop::Term> terms) {
    std::erase_if(terms, [](const tagop::Term& t) { return t.require.intersects(t.forbid); });
    std::vector<tagop::Term> out;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      bool absorbed = false;
      for (std::size_t j = 0; j < terms.size() && !absorbed; ++j)
        absorbed = i != j && terms[i].require.contains_all(terms[j].require) &&
                   terms[i].forbid.contains_all(terms[j].forbid) && (!(terms[i] == terms[j]) || j < i);
      if (!absorbed) out.push_back(terms[i]);
    }
    return out;
  };
  const tagop::Condition conditions[] = {condition("load"), condition("store"), condition("dc.miss"),
                                         condition("l2.miss")};
  std::uint64_t state = 12345;
  auto next = [&] { return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (int round = 0; round < 500; ++round) {
    std::vector<tagop::Term> terms;
    Predicate p = Predicate::never();
    for (std::uint64_t n = next() % 12; n > 0; --n) {
      tagop::Term t;
      for (const tagop::Condition c : conditions) {
        const std::uint64_t pick = next() % 4;  // required, forbidden, or neither
        if (pick == 0) t.require.insert(c);
        if (pick == 1) t.forbid.insert(c);
      }
      terms.push_back(t);
      p = p | Predicate::of(t);
    }
    INFO("round " << round);
    CHECK(p.terms() == reference(terms));
  }
}

namespace {

// The names of an ABI snapshot file (tests/lib/abi), without its comments.
std::vector<std::string> snapshot(const std::string& file) {
  std::ifstream in(source_path("tests/lib/abi/" + file));
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') names.push_back(line);
  return names;
}

}  // namespace

TEST_CASE("conditions and measures keep the positions compiled code holds: 0.1's first, in order", "[model][abi]") {
  // A program built against 0.1's headers holds condition("dc.miss") as a
  // position in the table; a library that moved it would answer another
  // question. New conditions and measures go at the end.
  const std::vector<std::string> conditions = snapshot("conditions-0.1.txt");
  REQUIRE(conditions.size() >= 78);
  REQUIRE(tagop::condition_count >= conditions.size());
  for (std::size_t i = 0; i < conditions.size(); ++i) CHECK(tagop::condition_table[i].name == conditions[i]);
  const std::vector<std::string> measures = snapshot("measures-0.1.txt");
  REQUIRE(measures.size() >= 8);
  REQUIRE(tagop::measure_count >= measures.size());
  for (std::size_t i = 0; i < measures.size(); ++i) CHECK(tagop::measure_table[i].name == measures[i]);
}
