// FlatIndex: every key inserted is found with its value, through the
// table's growth; keys never inserted are not; a second insert replaces
// the value. With u64 keys and with a struct key whose hash collides often.

#include <catch2/catch.hpp>

#include <cstdint>

#include "../../report/flat_index.hpp"

using tagop::report::FlatIndex;

namespace {

// A key whose hash has only 16 values: long probe runs.
struct Pair {
  std::uint32_t a = 0, b = 0;
  bool operator==(const Pair& o) const { return a == o.a && b == o.b; }
  friend std::uint64_t flat_hash(const Pair& p) { return (p.a ^ p.b) & 15; }
};

}  // namespace

TEST_CASE("FlatIndex finds what was inserted, through growth", "[report]") {
  FlatIndex<std::uint64_t> index;
  const std::uint64_t n = 20000;  // the table starts at 1024 slots
  for (std::uint64_t i = 0; i < n; ++i) index.insert(i * 7919 + 3, static_cast<std::uint32_t>(i));
  for (std::uint64_t i = 0; i < n; ++i) REQUIRE(index.find(i * 7919 + 3) == i);
  CHECK(index.find(1) == FlatIndex<std::uint64_t>::none);
  CHECK(index.find(n * 7919 + 3) == FlatIndex<std::uint64_t>::none);
  index.insert(3, 42);
  CHECK(index.find(3) == 42);
  CHECK(index.find(7919 + 3) == 1);
}

TEST_CASE("FlatIndex with a struct key and a colliding hash", "[report]") {
  FlatIndex<Pair> index;
  for (std::uint32_t a = 0; a < 40; ++a)
    for (std::uint32_t b = 0; b < 40; ++b) index.insert(Pair{a, b}, a * 40 + b);
  for (std::uint32_t a = 0; a < 40; ++a)
    for (std::uint32_t b = 0; b < 40; ++b) REQUIRE(index.find(Pair{a, b}) == a * 40 + b);
  CHECK(index.find(Pair{40, 0}) == FlatIndex<Pair>::none);
}
