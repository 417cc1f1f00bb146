// The radix sort (of the report's addresses, of symbols) against std::stable_sort: the same order, equal
// keys in their first order, on keys shaped like the report's (addresses
// that share their high bytes, a few spaces) and on edge cases.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "../../lib/report/huge_pages.hpp"
#include "../../lib/radix_sort.hpp"

namespace {

struct Ref {
  std::uint64_t ip;
  std::uint32_t space, tag;  // tag: the first position, to see stability
  bool operator==(const Ref&) const = default;
};

// Returns the items as radix_sort left them.
template <typename Vector, typename Key>
Vector check_against_stable_sort(Vector items, Key key) {
  for (std::uint32_t i = 0; i < items.size(); ++i) items[i].tag = i;
  std::vector<Ref> expected(items.begin(), items.end());
  std::stable_sort(expected.begin(), expected.end(), [&](const Ref& a, const Ref& b) { return key(a) < key(b); });
  tagop::radix_sort(items, key);
  REQUIRE(std::vector<Ref>(items.begin(), items.end()) == expected);
  return items;
}

}  // namespace

TEST_CASE("radix_sort orders as std::stable_sort does") {
  std::mt19937_64 random(17);
  auto ip_of = [](const Ref& r) { return r.ip; };

  SECTION("addresses inside one library: the high bytes shared, many duplicates") {
    std::vector<Ref> items(50000);
    for (Ref& r : items) r.ip = 0x7f1200000000ull + (random() % 20000) * 4;
    check_against_stable_sort(items, ip_of);
  }
  SECTION("any 64-bit keys, kernel addresses among them") {
    std::vector<Ref> items(20000);
    for (Ref& r : items) r.ip = random() | (random() % 2 ? 0xffff000000000000ull : 0);
    check_against_stable_sort(items, ip_of);
  }
  SECTION("a 32-bit key of a few values, after a sort by address: by (space, address)") {
    std::vector<Ref, tagop::report::HugePageAllocator<Ref>> items(300000);
    for (Ref& r : items) {
      r.ip = random() % 100000;
      r.space = static_cast<std::uint32_t>(random() % 5) * 300;  // above 255: two bytes differ
    }
    tagop::radix_sort(items, ip_of);
    const auto sorted = check_against_stable_sort(items, [](const Ref& r) { return r.space; });
    REQUIRE(std::is_sorted(sorted.begin(), sorted.end(), [](const Ref& a, const Ref& b) {
      return a.space != b.space ? a.space < b.space : a.ip < b.ip;
    }));
  }
  SECTION("edge cases: empty, one item, every key the same") {
    check_against_stable_sort(std::vector<Ref>{}, ip_of);
    check_against_stable_sort(std::vector<Ref>{{42, 0, 0}}, ip_of);
    check_against_stable_sort(std::vector<Ref>(1000, Ref{0xdead, 1, 0}), ip_of);
  }
}
