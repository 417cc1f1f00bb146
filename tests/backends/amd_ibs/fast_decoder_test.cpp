// FastIbsDecoder gives exactly IbsDecoder's samples: random registers, every
// family the layout table distinguishes, repeated so that most decodes come
// from its cache.

#include <catch2/catch.hpp>

#include <array>
#include <cstring>
#include <map>
#include <vector>

#include <tagop/amd_ibs/decoder.hpp>
#include <tagop/amd_ibs/families.hpp>
#include <tagop/amd_ibs/fast_decoder.hpp>
#include "../../splitmix.hpp"

using namespace tagop;
using namespace tagop::amd_ibs;

namespace {

bool same(const Sample& a, const Sample& b) {
  return a.conditions == b.conditions && a.observed == b.observed && a.measures == b.measures &&
         a.measured == b.measured && a.ip == b.ip && a.ip_physical == b.ip_physical && a.data_linear == b.data_linear &&
         a.data_physical == b.data_physical && a.branch_target == b.branch_target && a.ip_exact == b.ip_exact;
}

}  // namespace

TEST_CASE("FastIbsDecoder decodes as IbsDecoder does", "[ibs][perfdata]") {
  const auto [family, model] = GENERATE(table<unsigned, unsigned>(
      {{0x10, 2}, {0x10, 4}, {0x12, 1}, {0x15, 0x02}, {0x15, 0x30}, {0x15, 0x60}, {0x16, 0}, {0x17, 1}, {0x19, 0x01}, {0x19, 0x11}, {0x1A, 0x02}}));
  INFO("family " << family << " model " << model);
  const IbsDecoder slow(family, model);
  const FastIbsDecoder fast(family, model);
  std::uint64_t state = family * 1000 + model;
  for (int i = 0; i < 20000; ++i) {
    IbsRegisters r;
    r.unit = (i % 2) ? IbsUnit::op : IbsUnit::fetch;
    for (const RegisterInfo& info : register_table) {
      if (info.unit != r.unit || info.id == IbsRegister::IbsCtl) continue;
      // Few distinct condition bits, so that the cache is hit; some
      // registers missing, as in payloads without the optional ones.
      std::uint64_t v = splitmix(state);
      if (i % 7 != 0) v &= 0xFFFF'0000'FFFF'00FFull | (splitmix(state) & 0x0000'FFFF'0000'FF00ull & -std::uint64_t(i % 3 == 0));
      if (splitmix(state) % 10 != 0) r.set(info.id, v);
    }
    const Sample a = slow.decode(r), b = fast.decode(r);
    REQUIRE(same(a, b));
  }
}

TEST_CASE("FastIbsDecoder reads perf raw payloads as parse_perf_raw and IbsDecoder do", "[ibs][perfdata]") {
  const auto [family, model] = GENERATE(table<unsigned, unsigned>({{0x10, 4}, {0x15, 0x60}, {0x17, 0x31}, {0x19, 0x01}, {0x19, 0x11}, {0x1A, 0x02}}));
  INFO("family " << family << " model " << model);
  // A payload is decoded with the layout its own caps word picks.
  std::map<std::uint32_t, IbsDecoder> slow;
  const FastIbsDecoder fast(family, model);
  std::uint64_t state = 77 + family;
  std::map<std::uint32_t, Sample> by_kind;
  for (int i = 0; i < 20000; ++i) {
    const IbsUnit unit = (i % 2) ? IbsUnit::op : IbsUnit::fetch;
    // Every payload size the unit can have: the fixed registers, then 0-2 optional ones.
    const std::size_t fixed = unit == IbsUnit::fetch ? 3 : 7;
    const std::size_t count = fixed + splitmix(state) % 3;
    std::vector<std::byte> payload(4 + 8 * count);
    // Caps with and without the bits that change the layout (11, 12, 16, 19).
    const std::uint32_t caps = static_cast<std::uint32_t>(splitmix(state)) & 0x91FFF;
    std::memcpy(payload.data(), &caps, 4);
    for (std::size_t r = 0; r < count; ++r) {
      std::uint64_t v = splitmix(state) & (0xFFFF'0000'FFFF'00FFull | (splitmix(state) & 0x0000'FFFF'0000'FF00ull));
      std::memcpy(payload.data() + 4 + 8 * r, &v, 8);
    }
    // A word without IBSFFV or the unit's sampling bit is not Linux's: the
    // family's own capabilities give the layout (and the optional registers).
    const std::uint32_t sampling = unit == IbsUnit::fetch ? 2 : 4;
    const std::uint32_t used = (caps & 1) && (caps & sampling) ? caps : capabilities_of(family, model);
    const IbsDecoder& decoder = slow.try_emplace(used, family, model, used).first->second;
    std::vector<std::byte> as_read = payload;
    std::memcpy(as_read.data(), &used, 4);
    const Sample expected = decoder.decode(parse_perf_raw(unit, as_read).registers);
    Sample got;
    const std::uint64_t control = fast.decode_perf_raw(unit, payload, got);
    std::uint64_t first = 0;
    std::memcpy(&first, payload.data() + 4, 8);
    REQUIRE(control == first);
    REQUIRE(same(expected, got));
    // Without a Sample: the same control, conditions and measures.
    std::uint64_t kind_control = 0;
    const std::uint32_t kind = fast.kind_of(unit, payload, kind_control);
    REQUIRE(kind_control == first);
    if (kind != FastIbsDecoder::no_kind) {
      std::array<std::uint64_t, measure_count> totals{};
      FastIbsDecoder::add_measures(fast.measure_fields(kind), payload, totals);
      for (std::size_t m = 0; m < measure_count; ++m) REQUIRE(totals[m] == expected.measures[m]);
      const auto& facts = fast.facts(kind);
      REQUIRE(facts.conditions == expected.conditions);
      REQUIRE(facts.observed == expected.observed);
      REQUIRE(facts.measured == expected.measured);
    }
    // Samples of one kind agree on everything the engine keys on. (Random
    // bits make more kinds than the bounded cache holds: those have none.)
    if (kind == FastIbsDecoder::no_kind) continue;
    const auto [it, fresh] = by_kind.emplace(kind, got);
    if (!fresh) {
      REQUIRE(it->second.conditions == got.conditions);
      REQUIRE(it->second.observed == got.observed);
      REQUIRE(it->second.measured == got.measured);
    }
  }
  CHECK(by_kind.size() > 1000);
  std::vector<std::byte> short_payload(4 + 8 * 2);
  Sample s;
  CHECK_THROWS_WITH(fast.decode_perf_raw(IbsUnit::op, short_payload, s), Catch::Contains("shorter than"));
  std::vector<std::byte> odd_payload(4 + 8 * 7 + 3);
  CHECK_THROWS_WITH(fast.decode_perf_raw(IbsUnit::op, odd_payload, s), Catch::Contains("4 + 8n"));
  std::uint64_t control = 0;
  CHECK_THROWS_WITH(fast.kind_of(IbsUnit::op, short_payload, control), Catch::Contains("shorter than"));
}
