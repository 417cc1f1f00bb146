// For every derived event on every processor: available, depending on the
// samples, or not available, and which bits decide it, against decisions
// written out here from the processors' manuals and Linux's reading of
// them (the table's readings say the same in words).

#include <catch2/catch.hpp>

#include <set>

#include <tagop/amd_ibs/derived_events.hpp>
#include <tagop/amd_ibs/event_availability.hpp>

using namespace tagop::amd_ibs;
using Verdict = EventAvailability::Verdict;
using Selects = std::set<std::uint16_t>;

namespace {

struct Expected {
  unsigned family, model;
  Selects not_available, depends;
};

// Reserved or redefined on every Zen: IbsOpBrnResync (32), the bank
// conflicts (9, 10), store-to-load forwarding (11, 12), the MAB hit (16).
const Selects zen_lacks{0xF109, 0xF209, 0xF20A, 0xF20B, 0xF20C, 0xF210};

Selects with(Selects s, std::initializer_list<std::uint16_t> more) {
  s.insert(more);
  return s;
}

// On every Zen an uncacheable access's DcMiss, L2Miss and DcMissLat are
// not valid unless its data source is I/O (Linux's perf_ibs_get_mem_lvl()).
const Selects zen_uncacheable{0xF206, 0xF207, 0xF219};

const Expected expected[] = {
    {0x10, 0x04, {}, {}},
    // Zen 2: DataSrc 2 (local node cache) is the L3 or another core's cache,
    // so the L3 is never named (0xF242) and a load from it leaves the
    // sibling-cache event undecided; the cache state is that of source 2,
    // where Linux reads a HITM, and no other source's.
    {0x17, 0x31, with(zen_lacks, {0xF242}), with(zen_uncacheable, {0xF243})},
    // Zen 3 with its errata: no usable IbsIcMiss (#1238), no valid CacheHitSt.
    {0x19, 0x01, with(zen_lacks, {0xF008, 0xF009, 0xF242, 0xF249, 0xF24A}), with(zen_uncacheable, {0xF243})},
    {0x19, 0x21, with(zen_lacks, {0xF242, 0xF249, 0xF24A}), with(zen_uncacheable, {0xF243})},
    // Zen 4 names every source, but source 1 may be another core's L1/L2.
    {0x19, 0x11, zen_lacks, with(zen_uncacheable, {0xF243})},
    // Zen 5: the DTLB bits need a physical address.
    {0x1A, 0x02, zen_lacks,
     with(zen_uncacheable, {0xF203, 0xF204, 0xF205, 0xF211, 0xF212, 0xF213, 0xF215, 0xF216, 0xF243})},
    // Zen 6: and the fetch's outcome bits need a translation (perf, 2026).
    {0x1A, 0x50, zen_lacks,
     with(zen_uncacheable, {0xF001, 0xF002, 0xF004, 0xF006, 0xF007, 0xF008, 0xF009, 0xF00E, 0xF203, 0xF204, 0xF205,
                            0xF211, 0xF212, 0xF213, 0xF215, 0xF216, 0xF243})},
};

}  // namespace

TEST_CASE("each derived event's decision on each processor", "[ibs]") {
  for (const Expected& x : expected) {
    const IbsDecoder decoder(x.family, x.model);
    INFO(processor_text(decoder));
    Selects not_available, depends;
    for (const IbsDerivedEventSpec& e : derived_event_table()) {
      const EventAvailability a = event_availability(e, decoder);
      INFO(select_string(e.select) << ": " << verdict_name(a.verdict));
      if (a.verdict == Verdict::not_available) not_available.insert(e.select);
      if (a.verdict == Verdict::depends) depends.insert(e.select);
      // Every event that is not always available says why; every one says
      // what decides each of its conditions.
      if (a.verdict != Verdict::available) CHECK_FALSE(a.reasons.empty());
      CHECK(a.deciders.size() == [&] {
        auto used = (e.predicate.empty() ? tagop::Predicate() : tagop::Predicate::parse(e.predicate)).used();
        used.erase(tagop::ConditionSet{tagop::condition("fetch"), tagop::condition("op")});
        return used.members().size();
      }());
    }
    CHECK(not_available == x.not_available);
    CHECK(depends == x.depends);
  }
}

TEST_CASE("the bits that decide an event, and the readings beside it, are the processor's", "[ibs]") {
  auto decision = [](std::uint16_t select, unsigned family, unsigned model) {
    return event_availability(*find_derived_event(select), IbsDecoder(family, model));
  };
  auto mentions = [](const std::vector<std::string>& lines, const std::string& text) {
    for (const std::string& l : lines)
      if (l.find(text) != std::string::npos) return true;
    return false;
  };
  // The remote cache: source 4 on Zen 1-3, 5 on Zen 4, the northbridge's
  // source 2 with NbIbsReqDstProc on Family 10h.
  const auto zen2 = decision(0xF244, 0x17, 0x31);
  CHECK(zen2.verdict == Verdict::available);
  CHECK(mentions(zen2.deciders, "src.cache: DataSrc (IbsOpData2[2:0]) = 4"));
  CHECK(mentions(zen2.deciders, "undecided when DataSrc = 2"));
  REQUIRE(zen2.readings.size() == 1);
  CHECK_THAT(std::string(zen2.readings[0]->text), Catch::Contains("DataSrc 4"));
  const auto zen4 = decision(0xF244, 0x19, 0x11);
  CHECK(mentions(zen4.deciders, "src.cache: DataSrc (IbsOpData2[7:6,2:0]) = 2 or 5"));
  CHECK_THAT(std::string(zen4.readings[0]->text), Catch::Contains("DataSrc 5"));
  CHECK(mentions(decision(0xF244, 0x10, 4).deciders, "src.remote: NbIbsReqDstProc (IbsOpData2[4])"));
  // Zen 3's unusable IbsIcMiss, and the erratum's killed fetches.
  const auto ic = decision(0xF008, 0x19, 0x01);
  CHECK(mentions(ic.reasons, "ic.miss is not reported"));
  CHECK(mentions(decision(0xF001, 0x19, 0x01).deciders, "fetch.killed: derived: !fetch.completed & "));
  // Zen 4's cache state, where a source was reported; the memories and I/O
  // report none.
  const auto owned = decision(0xF24A, 0x19, 0x11);
  CHECK(mentions(owned.deciders, "CacheHitSt (IbsOpData2[5]) = 1 (when nb.valid)"));
  CHECK(mentions(owned.deciders, "DataSrc (IbsOpData2[7:6,2:0]) = 3 or 6 or 7 or 8 or 12 rules it out"));
  CHECK(owned.verdict == Verdict::available);
  CHECK(decision(0xF24A, 0x19, 0x21).verdict == Verdict::not_available);
  // The rules that take a fact back say which samples, and why.
  CHECK(mentions(decision(0xF206, 0x19, 0x11).reasons, "mem.uncacheable & !nb.valid & !src.io"));
  CHECK(mentions(decision(0xF008, 0x1A, 0x50).reasons, "Zen 6 reports the fetch's outcome only with IbsPhyAddrValid"));
  CHECK(decision(0xF008, 0x1A, 0x02).verdict == Verdict::available);
  // Every reading applies to processors some test above names.
  for (const IbsDerivedEventSpec& e : derived_event_table())
    for (const EventReading& r : e.readings) {
      INFO(select_string(e.select) << " " << r.processors.name);
      bool applies = false;
      for (const Expected& x : expected)
        applies = applies || r.processors.contains(x.family, x.model, IbsDecoder(x.family, x.model).caps());
      CHECK(applies);
    }
}
