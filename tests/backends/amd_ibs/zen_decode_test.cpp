// The Zen layouts sample by sample: each rule the field table carries, on
// hand-built registers whose bits are written out here from Linux's
// arch/x86/include/asm/amd/ibs.h.

#include <catch2/catch.hpp>

#include "ibs_bits.hpp"

using namespace ibs_bits;
using namespace tagop;
using namespace tagop::amd_ibs;

namespace {

constexpr std::uint64_t L2Miss = bit(20), SwPf = bit(21), NoMabAlloc = bit(16), UcMemAcc = bit(14);
constexpr std::uint64_t RmtNode = bit(4), CacheHitSt = bit(5);
constexpr std::uint64_t data_src(std::uint64_t v) { return (v & 7) | (v >> 3) << 6; }  // DataSrcHi in 7:6

bool holds(const Sample& s, std::string_view c) { return s.conditions.contains(*find_condition(c)); }
bool decided(const Sample& s, std::string_view c) { return s.observed.contains(*find_condition(c)); }

}  // namespace

TEST_CASE("Zen: a data source only for a load that missed the DC and the L2", "[ibs][zen]") {
  const IbsDecoder zen2(0x17, 0x31);
  const Sample l2_hit = zen2.decode(op(0, 3 | RmtNode, LdOp | DcMiss));
  CHECK_FALSE(holds(l2_hit, "src.dram"));
  CHECK_FALSE(holds(l2_hit, "nb.valid"));
  CHECK_FALSE(holds(l2_hit, "src.remote"));
  const Sample store = zen2.decode(op(0, 3, StOp | DcMiss | L2Miss));
  CHECK_FALSE(holds(store, "src.dram"));
  const Sample dram = zen2.decode(op(0, 3 | RmtNode, LdOp | DcMiss | L2Miss));
  CHECK((holds(dram, "src.dram") && holds(dram, "src.remote") && holds(dram, "nb.valid")));
}

TEST_CASE("Zen 1-3 data sources: 2 is the local node cache, 4 a remote node's", "[ibs][zen]") {
  const IbsDecoder zen2(0x17, 0x31);
  const Sample node = zen2.decode(op(0, 2 | RmtNode | CacheHitSt, LdOp | DcMiss | L2Miss));
  CHECK(holds(node, "nb.valid"));
  CHECK_FALSE(decided(node, "src.l3"));
  CHECK_FALSE(decided(node, "src.cache"));
  CHECK_FALSE(holds(node, "src.remote"));  // local whatever RmtNode says
  const Sample remote = zen2.decode(op(0, 4, LdOp | DcMiss | L2Miss));
  CHECK((holds(remote, "src.cache") && holds(remote, "src.remote")));
  // No state reported for 4: no HITM (Linux's perf_ibs_get_mem_snoop()).
  CHECK((decided(remote, "src.cache_owned") && !holds(remote, "src.cache_owned")));
  CHECK((decided(remote, "src.cache_modified") && !holds(remote, "src.cache_modified")));
  CHECK(holds(node, "src.cache_owned"));  // source 2's state is reported
  const Sample node_m = zen2.decode(op(0, 2, LdOp | DcMiss | L2Miss));
  CHECK((holds(node_m, "src.cache_modified") && !holds(node_m, "src.cache_owned")));
  const Sample io = zen2.decode(op(0, 7, LdOp | DcMiss | L2Miss | UcMemAcc));
  CHECK(holds(io, "src.io"));  // an uncacheable access's source when it is I/O
  CHECK(holds(io, "dc.miss"));  // ... whose cache outcome Linux reads
  // RmtNode counts for DRAM only (RMT_NODE_APPLICABLE): I/O is local.
  const Sample io_rmt = zen2.decode(op(0, 7 | RmtNode, LdOp | DcMiss | L2Miss));
  CHECK((holds(io_rmt, "src.io") && decided(io_rmt, "src.remote") && !holds(io_rmt, "src.remote")));
  const Sample uc = zen2.decode(op(0, 3, LdOp | DcMiss | L2Miss | UcMemAcc | miss_lat(300)));
  CHECK_FALSE(holds(uc, "src.dram"));
  CHECK_FALSE(holds(uc, "nb.valid"));
  // "DcMiss, L2Miss, DataSrc, DcMissLat etc. are all invalid for Uncached
  // memory accesses" (perf_ibs_get_mem_lvl()).
  CHECK_FALSE(decided(uc, "dc.miss"));
  CHECK_FALSE(decided(uc, "l2.miss"));
  CHECK_FALSE(uc.has_measure(measure("dc.miss_latency")));
  CHECK(holds(uc, "mem.uncacheable"));
  // Before Zen the rule is not Linux's, and CodeAnalyst counted the bits.
  CHECK(holds(IbsDecoder(0x10, 4).decode(op(0, 0, LdOp | DcMiss | UcMemAcc)), "dc.miss"));
}

TEST_CASE("Zen 4: five-bit sources with capability bit 11, and the supplying line's state", "[ibs][zen]") {
  const IbsDecoder zen4(0x19, 0x11);
  REQUIRE((zen4.caps() & caps::Zen4Ext));
  const std::uint64_t miss = LdOp | DcMiss | L2Miss;
  CHECK(holds(zen4.decode(op(0, data_src(1), miss)), "src.l3"));
  // Source 1: the L3 as Linux counts it, or another core's L1/L2 in the
  // CCX: which is not said; its line's state is reported.
  const Sample ccx = zen4.decode(op(0, data_src(1) | RmtNode, miss));
  CHECK((holds(ccx, "src.l3") && !decided(ccx, "src.cache") && holds(ccx, "src.cache_modified")));
  CHECK((decided(ccx, "src.remote") && !holds(ccx, "src.remote")));
  const Sample near = zen4.decode(op(0, data_src(2) | CacheHitSt, miss));
  CHECK((holds(near, "src.cache") && !holds(near, "src.remote") && holds(near, "src.cache_owned")));
  const Sample far = zen4.decode(op(0, data_src(5), miss));
  CHECK((holds(far, "src.cache") && holds(far, "src.remote") && !holds(far, "src.cache_owned")));
  CHECK(holds(zen4.decode(op(0, data_src(6) | RmtNode, miss)), "src.pmem"));
  CHECK(holds(zen4.decode(op(0, data_src(6) | RmtNode, miss)), "src.remote"));
  CHECK(holds(zen4.decode(op(0, data_src(8), miss)), "src.cxl"));
  const Sample peer = zen4.decode(op(0, data_src(12) | RmtNode, miss));
  CHECK(holds(peer, "nb.valid"));
  CHECK_FALSE(holds(peer, "src.dram"));
  CHECK_FALSE(holds(peer, "src.remote"));  // Linux names no level for 12, nor reads RmtNode
  // The memories and I/O report no line state.
  for (std::uint64_t source : {3, 6, 7, 8, 12}) {
    const Sample s = zen4.decode(op(0, data_src(source), miss));
    INFO("DataSrc " << source);
    CHECK((decided(s, "src.cache_modified") && !holds(s, "src.cache_modified")));
  }
  // RmtNode for DRAM, long-latency and extension memory; not for I/O.
  CHECK(holds(zen4.decode(op(0, data_src(8) | RmtNode, miss)), "src.remote"));
  CHECK_FALSE(holds(zen4.decode(op(0, data_src(7) | RmtNode, miss)), "src.remote"));
  // perf (2026): TlbRefillLat and DCPhysAd only with the addresses valid.
  const std::uint64_t refill = std::uint64_t{77} << 48;
  CHECK_FALSE(zen4.decode(op(0, 0, LdOp | DcLinAddrValid | DcL1tlbMiss | refill)).has_measure(
      measure("dtlb.refill_latency")));
  CHECK(zen4.decode(op(0, 0, LdOp | DcLinAddrValid | DcPhyAddrValid | DcL1tlbMiss | refill))
            .has_measure(measure("dtlb.refill_latency")));
  CHECK(IbsDecoder(0x19, 0x21).decode(op(0, 0, LdOp | DcLinAddrValid | refill)).has_measure(measure("dtlb.refill_latency")));
  CHECK(zen4.decode(op(0, 0, LdOp | DcPhyAddrValid, 0x401000, 0, 0x1234)).data_physical == 0);
  CHECK(zen4.decode(op(0, 0, LdOp | DcPhyAddrValid | DcLinAddrValid, 0x401000, 0x5000, 0x1234)).data_physical == 0x1234);
  // The same bits on Zen 3 read three: DataSrcHi is reserved there.
  CHECK_FALSE(holds(IbsDecoder(0x19, 0x21).decode(op(0, data_src(8), miss)), "nb.valid"));
}

TEST_CASE("Family 19h models 00h-0Fh: errata #1238, #1293, #1347", "[ibs][zen]") {
  const IbsDecoder zen3(0x19, 0x01);
  // #1293: with SwPf or DcMissNoMabAlloc, IbsL2Miss is not valid and IbsOpData2 is ignored.
  const Sample pf = zen3.decode(op(0, 3, LdOp | DcMiss | L2Miss | SwPf));
  CHECK_FALSE(decided(pf, "l2.miss"));
  CHECK_FALSE(holds(pf, "src.dram"));
  CHECK(decided(pf, "src.dram"));
  const Sample nomab = zen3.decode(op(0, 3, LdOp | DcMiss | L2Miss | NoMabAlloc | miss_lat(9)));
  CHECK_FALSE(decided(nomab, "l2.miss"));
  CHECK_FALSE(nomab.has_measure(measure("mem.open_requests")));
  CHECK(holds(zen3.decode(op(0, 3, LdOp | DcMiss | L2Miss)), "src.dram"));
  // The same on a later Zen 3 model: no erratum.
  CHECK(holds(IbsDecoder(0x19, 0x21).decode(op(0, 3, LdOp | DcMiss | L2Miss | SwPf)), "src.dram"));
  // #1238: IbsIcMiss decides nothing; killed fetches are read without it.
  const Sample ic = zen3.decode(fetch(IcMiss));
  CHECK_FALSE(decided(ic, "ic.miss"));
  CHECK(holds(ic, "fetch.killed"));
  // #1347: 1 is 16K, 2 is 2M.
  CHECK_FALSE(holds(zen3.decode(fetch(FetchComp | PhyAddrValid | PgSz2M)), "itlb.page_2m"));
  CHECK(holds(zen3.decode(fetch(FetchComp | PhyAddrValid | PgSz1G)), "itlb.page_2m"));
  CHECK(holds(IbsDecoder(0x19, 0x21).decode(fetch(FetchComp | PhyAddrValid | PgSz2M)), "itlb.page_2m"));
}

TEST_CASE("Zen 3's CacheHitSt is not valid; Zen 2's and Zen 4's are", "[ibs][zen]") {
  const std::uint64_t miss = LdOp | DcMiss | L2Miss;
  CHECK_FALSE(IbsDecoder(0x19, 0x21).observable(IbsUnit::op).contains(condition("src.cache_owned")));
  CHECK(IbsDecoder(0x17, 0x01).observable(IbsUnit::op).contains(condition("src.cache_owned")));
  CHECK(holds(IbsDecoder(0x19, 0x61).decode(op(0, data_src(5) | CacheHitSt, miss)), "src.cache_owned"));
}

TEST_CASE("Zen 5: one DTLB page size, and the DTLB only with a physical address", "[ibs][zen]") {
  const IbsDecoder zen5(0x1A, 0x02);
  REQUIRE((zen5.caps() & caps::OpDtlbPgSize));
  // DcPageSize (5:4) = 1: 2 MiB, for either level.
  const Sample big = zen5.decode(op(0, 0, LdOp | DcLinAddrValid | DcPhyAddrValid | bit(4)));
  CHECK((holds(big, "dtlb.l1_page_2m") && holds(big, "dtlb.l2_page_2m") && !holds(big, "dtlb.l1_miss")));
  // Without IbsDcPhyAddrValid the DTLB bits and page size are undecided.
  const Sample no_phys = zen5.decode(op(0, 0, LdOp | DcLinAddrValid | DcL1tlbMiss));
  CHECK_FALSE(decided(no_phys, "dtlb.l1_miss"));
  CHECK_FALSE(decided(no_phys, "dtlb.l1_page_2m"));
  // Bits 6 and 19 are reserved there: no L2 page-size flags of their own.
  CHECK_FALSE(holds(zen5.decode(op(0, 0, LdOp | DcLinAddrValid | DcPhyAddrValid | DcL2tlbHit2M)), "dtlb.l2_page_2m"));
}

TEST_CASE("IbsFetchL2Miss from Family 17h, for a completed fetch; Zen 4's fetch additions", "[ibs][zen]") {
  const std::uint64_t FetchL2Miss = bit(58), FetchOcMiss = bit(60), FetchL3Miss = bit(61);
  const IbsDecoder zen2(0x17, 0x31);
  CHECK(holds(zen2.decode(fetch(FetchComp | FetchL2Miss)), "fetch.l2_miss"));
  CHECK_FALSE(holds(zen2.decode(fetch(IcMiss | FetchL2Miss)), "fetch.l2_miss"));
  CHECK_FALSE(decided(zen2.decode(fetch(FetchComp)), "fetch.oc_miss"));
  const Sample zen4 = IbsDecoder(0x19, 0x11).decode(fetch(FetchComp | FetchOcMiss | FetchL3Miss));
  CHECK((holds(zen4, "fetch.oc_miss") && holds(zen4, "fetch.l3_miss")));
}

TEST_CASE("Zen 6: the fetch's outcome only with IbsPhyAddrValid; a completed fetch is not killed", "[ibs][zen]") {
  const IbsDecoder zen6(0x1A, 0x50);
  const Sample bare = zen6.decode(fetch(IcMiss | L1TlbMiss | fetch_lat(40)));
  CHECK_FALSE(decided(bare, "ic.miss"));
  CHECK_FALSE(decided(bare, "itlb.l1_miss"));
  CHECK_FALSE(bare.has_measure(measure("fetch.latency")));
  CHECK_FALSE(decided(bare, "fetch.killed"));  // it may have missed the IC: not said
  const Sample done = zen6.decode(fetch(FetchComp | IcMiss));
  CHECK((decided(done, "fetch.killed") && !holds(done, "fetch.killed")));
  CHECK(holds(done, "fetch.completed"));
  const Sample translated = zen6.decode(fetch(FetchComp | PhyAddrValid | IcMiss | fetch_lat(40)));
  CHECK(holds(translated, "ic.miss"));
  CHECK(translated.has_measure(measure("fetch.latency")));
  // Zen 5 reads them always.
  CHECK(holds(IbsDecoder(0x1A, 0x02).decode(fetch(IcMiss)), "ic.miss"));
}
