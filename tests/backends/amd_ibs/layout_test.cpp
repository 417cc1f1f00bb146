// Self-checks of the tables, like libpfm4's: what a typo in the data would
// break.

#include <map>
#include <set>

#include <catch2/catch.hpp>

#include <tagop/amd_ibs/decoder.hpp>
#include <tagop/amd_ibs/derived_events.hpp>
#include <tagop/amd_ibs/layout.hpp>

using namespace tagop::amd_ibs;

TEST_CASE("no two fields of a processor overlap or share a name", "[ibs]") {
  for (unsigned family : {0x10u, 0x12u, 0x15u, 0x16u, 0x17u, 0x19u}) {
    for (unsigned model : {0x00u, 0x10u, 0x30u, 0x60u}) {
      INFO("family " << family << " model " << model);
      std::map<IbsRegister, std::uint64_t> used;
      std::set<std::string_view> names;
      for (const FieldSpec& f : field_table()) {
        if (!f.exists_on(family, model)) continue;
        CHECK(f.lsb + f.width <= 64);
        const std::uint64_t mask = f.width == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << f.width) - 1) << f.lsb;
        INFO(f.name);
        CHECK((used[f.reg] & mask) == 0);
        used[f.reg] |= mask;
        CHECK(names.insert(f.name).second);
      }
    }
  }
}

TEST_CASE("one-bit flags are one bit wide, and encoded fields are wider", "[ibs]") {
  for (const FieldSpec& f : field_table()) {
    INFO(f.name);
    if (f.flag) CHECK(f.width == 1);
    // The decoder applies only_if to encoded and address fields, after the flags.
    if (f.only_if) CHECK((!f.values[0].text.empty() || f.address != AddressSlot::none));
    if (f.only_if) CHECK_FALSE(f.flag.has_value());
    if (!f.values[0].text.empty()) CHECK(f.width > 1);
    for (const auto& v : f.values)
      if (!v.text.empty()) CHECK(v.value < (std::uint64_t{1} << f.width));
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
