// Self-checks of the tables, like libpfm4's: what a typo in the data would
// break.

#include <map>
#include <set>

#include <catch2/catch.hpp>

#include <tagop/amd_ibs/decoder.hpp>
#include <tagop/amd_ibs/derived_events.hpp>
#include <tagop/amd_ibs/families.hpp>
#include <tagop/amd_ibs/layout.hpp>

using namespace tagop::amd_ibs;

namespace {

// Every family with a layout, at models where fields come and go, with the
// capabilities each reports by default and with every layout bit flipped
// (a capture's caps word decides the layout).
template <typename Check>
void for_each_layout(Check&& check) {
  for (const IbsFamily& fam : ibs_families()) {
    for (unsigned model : {0x00u, 0x01u, 0x10u, 0x11u, 0x21u, 0x30u, 0x44u, 0x60u, 0xA0u}) {
      const std::uint32_t base = capabilities_of(fam.family, model);
      std::set<std::uint32_t> caps_sets{base};
      for (std::uint32_t bit = 1; bit; bit <<= 1)
        if (layout_caps_mask() & bit) caps_sets.insert(base ^ bit);
      for (std::uint32_t caps : caps_sets) check(fam.family, model, caps);
    }
  }
}

}  // namespace

TEST_CASE("no two fields of a processor overlap, nor share a name within a unit", "[ibs]") {
  for_each_layout([](unsigned family, unsigned model, std::uint32_t caps) {
    INFO("family " << family << " model " << model << " caps " << caps);
    std::map<IbsRegister, std::uint64_t> used;
    std::map<IbsUnit, std::set<std::string_view>> names;
    for (const FieldSpec& f : field_table()) {
      if (!f.exists(family, model, caps)) continue;
      INFO(f.name);
      CHECK(f.lsb + f.width <= 64);
      CHECK((f.high_width == 0 || f.high_lsb + f.high_width <= 64));
      // The mask written out here, not by FieldSpec::mask().
      std::uint64_t mask = f.width == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << f.width) - 1) << f.lsb;
      if (f.high_width) mask |= ((std::uint64_t{1} << f.high_width) - 1) << f.high_lsb;
      CHECK((used[f.reg] & mask) == 0);
      used[f.reg] |= mask;
      CHECK(names[info(f.reg).unit].insert(f.name).second);
    }
  });
}

TEST_CASE("one-bit flags are one bit wide, and encoded fields' values fit", "[ibs]") {
  for (const FieldSpec& f : field_table()) {
    INFO(f.name);
    if (f.flag) CHECK(f.width == 1);
    if (f.flag) CHECK(f.values.empty());
    if (!f.values.empty()) CHECK(f.values.size() <= (std::size_t{1} << (f.width + f.high_width)));
    std::set<unsigned> seen;
    for (const auto& v : f.values) {
      CHECK(v.value < (std::uint64_t{1} << (f.width + f.high_width)));
      CHECK(seen.insert(v.value).second);
      CHECK_FALSE(v.text.empty());
      // A value cannot both decide a condition and leave it undecided.
      CHECK_FALSE(v.conditions.intersects(v.unknown));
    }
    // Gates read conditions that other fields decide, never the field's own.
    CHECK_FALSE((f.only_if.require | f.only_if.forbid | f.valid_if.require | f.valid_if.forbid).intersects(conditions_of(f)));
    if (tagop::amd_ibs::gated(f.valid_if)) CHECK_FALSE(f.why.empty());
  }
}

TEST_CASE("every rule that takes a fact back says why, and reads none of what it takes back", "[ibs]") {
  for (const UndecidedRule& r : undecided_rule_table()) {
    INFO(r.why);
    CHECK_FALSE(r.why.empty());
    CHECK((!r.unknown.empty() || r.unmeasured != 0));
    CHECK_FALSE((r.when.require | r.when.forbid).intersects(r.unknown));
  }
}

TEST_CASE("the derived-event table: unique selects in order, every predicate parses", "[ibs]") {
  const auto table = derived_event_table();
  CHECK(table.size() == 59);  // seed 000 defines 59 events from 0xF000 to 0xF24C
  for (std::size_t i = 1; i < table.size(); ++i) CHECK(table[i - 1].select < table[i].select);
  CHECK(table.front().select == 0xF000);
  CHECK(table.back().select == 0xF24C);
  REQUIRE(derived_event_queries().size() == table.size());  // throws if one fails to parse
  int latency_events = 0;
  for (const auto& e : table) latency_events += e.sums.empty() ? 0 : 1;
  CHECK(latency_events == 6);  // F00E, F101, F102, F219, F24B, F24C
}

TEST_CASE("every condition a derived event tests is one some field of Family 10h reports", "[ibs]") {
  const IbsDecoder decoder(0x10);
  const auto queries = derived_event_queries();
  const auto table = derived_event_table();
  for (std::size_t i = 0; i < table.size(); ++i) {
    INFO(select_string(table[i].select));
    CHECK(decoder.observable(table[i].unit).contains_all(queries[i].predicate.used()));
  }
}
