// The decoder: fields, conditions, measures and addresses of hand-built
// registers, and what is observed when a register is missing.

#include <catch2/catch.hpp>

#include <tagop/error.hpp>

#include "ibs_bits.hpp"

using namespace ibs_bits;
using namespace tagop;
using namespace tagop::amd_ibs;

TEST_CASE("an op sample's addresses, measures and conditions", "[ibs]") {
  const IbsDecoder decoder(0x10, 0x04);
  const auto regs = op(BrnRet | BrnTaken | tag_to_ret(0x123) | comp_to_ret(0x45), ReqSrcL3,
                       LdOp | DcMiss | DcLinAddrValid | DcPhyAddrValid | miss_lat(0x2A), 0x4005d0, 0x7ffd1000, 0x12345678);
  const Sample s = decoder.decode(regs);
  CHECK(s.kind() == SampleKind::op);
  CHECK(s.ip == 0x4005d0);
  CHECK(s.data_linear == 0x7ffd1000);
  CHECK(s.data_physical == 0x12345678);
  CHECK(s.measures[measure("op.tag_to_retire").index] == 0x123);
  CHECK(s.measures[measure("op.comp_to_retire").index] == 0x45);
  CHECK(s.measures[measure("dc.miss_latency").index] == 0x2A);
  CHECK(s.conditions == ConditionSet{condition("op"), condition("branch"), condition("branch.taken"),
                                     condition("load"), condition("dc.miss"), condition("dc.lin_addr_valid"),
                                     condition("dc.phys_addr_valid"), condition("nb.valid"), condition("src.l3")});
}

TEST_CASE("addresses the hardware marks invalid are not used", "[ibs]") {
  const IbsDecoder decoder(0x10);
  const Sample s = decoder.decode(op(0, 0, LdOp, 0x1000, 0xdead0000, 0xbeef0000));
  CHECK(s.data_linear == 0);
  CHECK(s.data_physical == 0);
  const Sample f = decoder.decode(fetch(FetchComp, 0x401000, 0x9000));
  CHECK(f.ip == 0x401000);
  CHECK(f.ip_physical == 0);  // IbsPhyAddrValid is clear
  CHECK(decoder.decode(fetch(FetchComp | PhyAddrValid, 0x401000, 0x9000)).ip_physical == 0x9000);
}

TEST_CASE("a fetch sample's latency and page size", "[ibs]") {
  const IbsDecoder decoder(0x10);
  const Sample s = decoder.decode(fetch(FetchComp | PhyAddrValid | PgSz2M | fetch_lat(0x1F4)));
  CHECK(s.kind() == SampleKind::fetch);
  CHECK(s.measures[measure("fetch.latency").index] == 500);
  CHECK(s.conditions == ConditionSet{condition("fetch"), condition("fetch.completed"), condition("itlb.translated"),
                                     condition("itlb.page_2m")});
}

TEST_CASE("a register that was not given leaves its conditions unobserved", "[ibs]") {
  const IbsDecoder decoder(0x10);
  IbsRegisters regs;
  regs.unit = IbsUnit::op;
  regs.set(IbsRegister::IbsOpData3, LdOp | DcMiss);
  const Sample s = decoder.decode(regs);
  CHECK(s.observed.contains(condition("dc.miss")));
  CHECK_FALSE(s.observed.contains(condition("branch")));  // IbsOpData absent
  CHECK_FALSE(s.observed.contains(condition("src.dram")));  // IbsOpData2 absent
  CHECK_FALSE(s.has_measure(measure("op.tag_to_retire")));
  CHECK(s.has_measure(measure("dc.miss_latency")));
}

TEST_CASE("explain lists every field of the family with its value", "[ibs]") {
  const IbsDecoder decoder(0x10);
  const auto fields = decoder.explain(fetch(IcMiss | PgSz1G | fetch_lat(3)));
  std::map<std::string, std::uint64_t> by_name;
  std::map<std::string, bool> ignored;
  for (const auto& f : fields) {
    by_name[std::string(f.spec->name)] = f.value;
    ignored[std::string(f.spec->name)] = f.ignored;
  }
  CHECK(by_name.at("IbsFetchLat") == 3);
  CHECK(by_name.at("IbsIcMiss") == 1);
  CHECK(by_name.at("IbsL1TlbPgSz") == 2);
  CHECK(ignored.at("IbsL1TlbPgSz"));  // no translation
  CHECK(by_name.at("IbsFetchEn") == 1);
  CHECK(by_name.count("IbsFetchL2Miss") == 0);  // Family 19h and later only
  CHECK(IbsDecoder(0x19).explain(fetch(0)).size() == fields.size() + 1);
}

TEST_CASE("families without an IBS layout are refused, with the ones that have one", "[ibs]") {
  CHECK_THROWS_WITH(IbsDecoder(0x0F), Catch::Contains("family 0xf has no Instruction-Based Sampling layout"));
  CHECK_THROWS_WITH(IbsDecoder(0x14), Catch::Contains("family 0x14 has no") && Catch::Contains("19h (Zen 3, Zen 4)"));
  // Unknown ones too: a family after the newest this table knows.
  CHECK_THROWS_WITH(IbsDecoder(0xFF), Catch::Contains("family 0xff has no") && Catch::Contains("1Ah (Zen 5, Zen 6)"));
  CHECK_THROWS_WITH(IbsDecoder(0x1B), Catch::Contains("family 0x1b has no"));
  CHECK_THROWS_WITH(IbsDecoder(0x11), Catch::Contains("family 0x11 has no"));
  for (unsigned family : {0x10u, 0x12u, 0x15u, 0x16u, 0x17u, 0x18u, 0x19u, 0x1Au}) CHECK_NOTHROW(IbsDecoder(family));
}
