// FastIbsDecoder gives exactly IbsDecoder's samples: random registers, every
// family the layout table distinguishes, repeated so that most decodes come
// from its cache.

#include <catch2/catch.hpp>

#include <tagop/amd_ibs/decoder.hpp>
#include <tagop/amd_ibs/fast_decoder.hpp>

using namespace tagop;
using namespace tagop::amd_ibs;

namespace {

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

bool same(const Sample& a, const Sample& b) {
  return a.conditions == b.conditions && a.observed == b.observed && a.measures == b.measures &&
         a.measured == b.measured && a.ip == b.ip && a.ip_physical == b.ip_physical && a.data_linear == b.data_linear &&
         a.data_physical == b.data_physical && a.branch_target == b.branch_target;
}

}  // namespace

TEST_CASE("FastIbsDecoder decodes as IbsDecoder does", "[ibs][perfdata]") {
  const auto [family, model] = GENERATE(table<unsigned, unsigned>(
      {{0x10, 2}, {0x10, 4}, {0x12, 1}, {0x15, 0x02}, {0x15, 0x30}, {0x15, 0x60}, {0x16, 0}, {0x17, 1}, {0x19, 0x11}}));
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
