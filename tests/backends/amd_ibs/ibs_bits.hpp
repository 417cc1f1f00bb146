#pragma once
// IBS register bits as shared/reference/amd-ibs.md lists them (Family 10h
// BKDG), written out here independently of the layout table so that the
// tests check the table, not the table against itself.

#include <cstdint>
#include <map>

#include <tagop/amd_ibs/decoder.hpp>
#include <tagop/amd_ibs/derived_events.hpp>

namespace ibs_bits {

constexpr std::uint64_t bit(unsigned n) { return std::uint64_t{1} << n; }

// IbsFetchCtl
constexpr std::uint64_t fetch_lat(std::uint64_t cycles) { return cycles << 32; }
constexpr std::uint64_t FetchEn = bit(48), FetchVal = bit(49), FetchComp = bit(50), IcMiss = bit(51),
                        PhyAddrValid = bit(52), PgSz2M = bit(53), PgSz1G = bit(54), L1TlbMiss = bit(55),
                        L2TlbMiss = bit(56), RandEn = bit(57);
// IbsOpData
constexpr std::uint64_t comp_to_ret(std::uint64_t c) { return c; }
constexpr std::uint64_t tag_to_ret(std::uint64_t c) { return c << 16; }
constexpr std::uint64_t BrnResync = bit(32), MispReturn = bit(33), Return = bit(34), BrnTaken = bit(35),
                        BrnMisp = bit(36), BrnRet = bit(37);
// IbsOpData2
constexpr std::uint64_t ReqSrcL3 = 1, ReqSrcCache = 2, ReqSrcDram = 3, ReqSrcOther = 7, ReqDstRemote = bit(4),
                        CacheHitOwned = bit(5);
// IbsOpData3
constexpr std::uint64_t LdOp = bit(0), StOp = bit(1), DcL1tlbMiss = bit(2), DcL2tlbMiss = bit(3),
                        DcL1tlbHit2M = bit(4), DcL1tlbHit1G = bit(5), DcL2tlbHit2M = bit(6), DcMiss = bit(7),
                        DcMisAcc = bit(8), DcLdBnkCon = bit(9), DcStBnkCon = bit(10), DcStToLdFwd = bit(11),
                        DcStToLdCan = bit(12), DcWcMemAcc = bit(13), DcUcMemAcc = bit(14), DcLockedOp = bit(15),
                        DcMabHit = bit(16), DcLinAddrValid = bit(17), DcPhyAddrValid = bit(18),
                        DcL2tlbHit1G = bit(19);
constexpr std::uint64_t miss_lat(std::uint64_t cycles) { return cycles << 32; }

inline tagop::amd_ibs::IbsRegisters fetch(std::uint64_t ctl, std::uint64_t lin = 0x401000, std::uint64_t phys = 0) {
  using namespace tagop::amd_ibs;
  IbsRegisters r;
  r.unit = IbsUnit::fetch;
  r.set(IbsRegister::IbsFetchCtl, ctl | FetchEn | FetchVal);
  r.set(IbsRegister::IbsFetchLinAd, lin);
  r.set(IbsRegister::IbsFetchPhysAd, phys);
  return r;
}

inline tagop::amd_ibs::IbsRegisters op(std::uint64_t data, std::uint64_t data2, std::uint64_t data3,
                                       std::uint64_t rip = 0x401000, std::uint64_t lin = 0, std::uint64_t phys = 0) {
  using namespace tagop::amd_ibs;
  IbsRegisters r;
  r.unit = IbsUnit::op;
  r.set(IbsRegister::IbsOpCtl, bit(17) | bit(18) | 0x1000);
  r.set(IbsRegister::IbsOpRip, rip);
  r.set(IbsRegister::IbsOpData, data);
  r.set(IbsRegister::IbsOpData2, data2);
  r.set(IbsRegister::IbsOpData3, data3);
  r.set(IbsRegister::IbsDcLinAd, lin);
  r.set(IbsRegister::IbsDcPhysAd, phys);
  return r;
}

/// What one sample adds to each available derived event (select -> amount;
/// a latency event whose predicate matches appears with its measure, even
/// 0), through the engine: the thing under test.
inline std::map<std::uint16_t, std::uint64_t> increments(const tagop::amd_ibs::IbsRegisters& regs,
                                                         unsigned family = 0x10, unsigned model = 0) {
  using namespace tagop::amd_ibs;
  const IbsDecoder decoder(family, model);
  tagop::Aggregator a;
  a.add(decoder.decode(regs));
  const auto results = a.evaluate(derived_event_queries());
  std::map<std::uint16_t, std::uint64_t> out;
  const auto table = derived_event_table();
  for (std::size_t i = 0; i < table.size(); ++i)
    if (results[i].available() && results[i].count > 0)
      out[table[i].select] = table[i].sums.empty() ? results[i].count : results[i].total;
  return out;
}

}  // namespace ibs_bits
