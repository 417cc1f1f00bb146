// perf's PERF_SAMPLE_RAW payload for IBS: caps word, then registers in MSR
// order, optional ones as the caps announce them; sized by its own size.

#include <cstring>

#include <catch2/catch.hpp>

#include <tagop/amd_ibs/registers.hpp>
#include <tagop/error.hpp>

using namespace tagop::amd_ibs;

namespace {

std::vector<std::byte> payload(std::uint32_t caps_word, std::vector<std::uint64_t> regs) {
  std::vector<std::byte> out(4 + 8 * regs.size());
  std::memcpy(out.data(), &caps_word, 4);
  for (std::size_t i = 0; i < regs.size(); ++i) std::memcpy(out.data() + 4 + 8 * i, &regs[i], 8);
  return out;
}

}  // namespace

TEST_CASE("a Family 10h op payload is 60 bytes: caps and seven registers", "[ibs]") {
  const auto bytes = payload(0x1F, {1, 2, 3, 4, 5, 6, 7});
  REQUIRE(bytes.size() == 60);
  const auto raw = parse_perf_raw(IbsUnit::op, bytes);
  CHECK(raw.caps == 0x1F);
  CHECK(raw.registers.get(IbsRegister::IbsOpCtl) == 1);
  CHECK(raw.registers.get(IbsRegister::IbsOpRip) == 2);
  CHECK(raw.registers.get(IbsRegister::IbsOpData3) == 5);
  CHECK(raw.registers.get(IbsRegister::IbsDcPhysAd) == 7);
  CHECK_FALSE(raw.registers.has(IbsRegister::IbsBrTarget));
  CHECK(perf_raw_size(IbsUnit::op, 0x1F) == 60);
  CHECK(perf_raw_size(IbsUnit::fetch, 0x1F) == 28);
}

TEST_CASE("optional registers follow the caps, in order, and only if the payload has them", "[ibs]") {
  const std::uint32_t c = caps::BrnTrgt | caps::IbsOpData4;
  const auto raw = parse_perf_raw(IbsUnit::op, payload(c, {1, 2, 3, 4, 5, 6, 7, 0xB7, 0xD4}));
  CHECK(raw.registers.get(IbsRegister::IbsBrTarget) == 0xB7);
  CHECK(raw.registers.get(IbsRegister::IbsOpData4) == 0xD4);
  // OpData4 without BrnTrgt sits right after the fixed registers.
  const auto only4 = parse_perf_raw(IbsUnit::op, payload(caps::IbsOpData4, {1, 2, 3, 4, 5, 6, 7, 0xD4}));
  CHECK(only4.registers.get(IbsRegister::IbsOpData4) == 0xD4);
  // The caps announce a register the payload lacks: it is absent.
  const auto short_one = parse_perf_raw(IbsUnit::op, payload(c, {1, 2, 3, 4, 5, 6, 7}));
  CHECK_FALSE(short_one.registers.has(IbsRegister::IbsBrTarget));
}

TEST_CASE("write_perf_raw is the inverse of parse_perf_raw", "[ibs]") {
  IbsRegisters regs;
  regs.unit = IbsUnit::fetch;
  regs.set(IbsRegister::IbsFetchCtl, 0x1234);
  regs.set(IbsRegister::IbsFetchLinAd, 0x401000);
  regs.set(IbsRegister::IbsFetchPhysAd, 0x9000);
  regs.set(IbsRegister::IbsFetchCtlExtd, 0x77);
  std::vector<std::byte> out(perf_raw_size(IbsUnit::fetch, caps::IbsFetchCtlExtd));
  REQUIRE(out.size() == 36);
  write_perf_raw(regs, caps::IbsFetchCtlExtd, out);
  CHECK(out == payload(caps::IbsFetchCtlExtd, {0x1234, 0x401000, 0x9000, 0x77}));
  const auto back = parse_perf_raw(IbsUnit::fetch, out);
  CHECK(back.registers.value == regs.value);
}

TEST_CASE("payloads shorter than the fixed registers, or ragged, are refused", "[ibs]") {
  CHECK_THROWS_WITH(parse_perf_raw(IbsUnit::op, payload(0, {1, 2, 3})),
                    "ibs_op raw payload of 28 bytes is shorter than its 7 fixed registers (60 bytes)");
  auto ragged = payload(0, {1, 2, 3, 4, 5, 6, 7});
  ragged.resize(63);
  CHECK_THROWS_WITH(parse_perf_raw(IbsUnit::op, ragged), Catch::Contains("not a caps word and whole registers"));
  CHECK_THROWS_AS(parse_perf_raw(IbsUnit::fetch, std::vector<std::byte>(3)), tagop::Error);
}
