// Every derived event's total over Zen captures (Zen 2, Zen 3 with and
// without its errata, Zen 4, Zen 5, Zen 6 and a Family 1Ah model newer than
// the table of generations), written by IbsCaptureWriter and read back
// through PerfDataReader, IbsCapture and the engine, against totals
// computed here from the raw register bits. The rules below are written out
// from their sources, not from tagop's tables, each where it is used:
// Linux's arch/x86/events/amd/ibs.c (perf_ibs_get_mem_lvl(),
// perf_ibs_get_mem_snoop(), perf_ibs_cache_hit_st_valid(),
// perf_ibs_get_tlb_lvl(), perf_ibs_get_op_data2(): 6.1, and the Zen 5 DTLB
// change of 6.15), perf's amd-sample-raw.c (errata #1238 and #1347; Zen 6's
// fetch status, 2026), and seed 000's Family 10h words as the reference
// sheet reads them. Availability is per sample, as Linux's: a sample that
// cannot decide an event is in neither its count nor its sum, and the
// engine's QueryResult::undecided counts it; an event no sample counted
// while some could not decide it is not available, and event_availability()
// must say why.

#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <tagop/amd_ibs/derived_events.hpp>
#include <tagop/amd_ibs/event_availability.hpp>
#include <tagop/amd_ibs/families.hpp>
#include <tagop/amd_ibs/perf_capture.hpp>
#include <tagop/engine.hpp>
#include <tagop/perf_data_reader.hpp>
#include "../../splitmix.hpp"
#include "decoded_samples.hpp"

using namespace tagop;
using namespace tagop::amd_ibs;
using namespace tagop::perf_data;

namespace {

bool bit(std::uint64_t v, unsigned n) { return (v >> n) & 1; }
std::uint64_t bits(std::uint64_t v, unsigned lo, unsigned width) { return (v >> lo) & ((std::uint64_t{1} << width) - 1); }

struct Processor {
  unsigned family, model;
  const char* name;
  bool zen4_sources;       // IBS capability bit 11: five-bit DataSrc
  bool zen5_dtlb;          // capability bit 19: one page size, DTLB bits need IbsDcPhyAddrValid
  bool errata;             // Family 19h models 00h-0Fh: #1238, #1293, #1347
  bool cache_state_valid;  // not Zen 3 (perf_ibs_cache_hit_st_valid)
  bool zen6_fetch;         // the fetch's status bits need IbsPhyAddrValid
};

const Processor processors[] = {
    {0x17, 0x31, "Zen 2", false, false, false, true, false},
    {0x19, 0x01, "Zen 3, models 00h-0Fh", false, false, true, false, false},
    {0x19, 0x21, "Zen 3, model 21h", false, false, false, false, false},
    {0x19, 0x11, "Zen 4", true, false, false, true, false},
    {0x1A, 0x02, "Zen 5", true, true, false, true, false},
    {0x1A, 0x50, "Zen 6", true, true, false, true, true},
    // Past the table of generations: decoded as the nearest model it knows
    // (CFh, Zen 6), with a warning.
    {0x1A, 0xD0, "Family 1Ah model D0h", true, true, false, true, true},
};

enum class Outcome { no, yes, undecided };
struct Verdict {
  Outcome outcome = Outcome::no;
  std::uint64_t amount = 1;  // a latency event's cycles
};
Verdict yes_if(bool b, std::uint64_t amount = 1) { return {b ? Outcome::yes : Outcome::no, amount}; }
const Verdict undecided{Outcome::undecided, 0};

// Events no sample of the processor can be counted toward.
std::set<std::uint16_t> never(const Processor& p) {
  // Reserved or redefined on every Zen: IbsOpBrnResync, the bank
  // conflicts, store-to-load forwarding, the MAB hit.
  std::set<std::uint16_t> out{0xF109, 0xF209, 0xF20A, 0xF20B, 0xF20C, 0xF210};
  if (!p.zen4_sources) out.insert(0xF242);  // Zen 1-3 never name the L3 apart
  if (!p.cache_state_valid) out.insert({0xF249, 0xF24A});
  if (p.errata) out.insert({0xF008, 0xF009});  // IbsIcMiss unusable, #1238
  return out;
}

Verdict fetch_event(std::uint16_t select, std::uint64_t ctl, const Processor& p) {
  const bool comp = bit(ctl, 50), ic_miss = bit(ctl, 51), phys = bit(ctl, 52), l1 = bit(ctl, 55), l2 = bit(ctl, 56);
  const std::uint64_t size = bits(ctl, 53, 2), lat = bits(ctl, 32, 16);
  // Zen 6 (perf, "Make Fetch status bits dependent on PhyAddrValid for
  // newer platforms"): without IbsPhyAddrValid only IbsFetchComp of the
  // status bits is valid, and neither latency.
  const bool status = !p.zen6_fetch || phys;
  // Killed: none of the outcome bits; without IbsIcMiss under #1238. A
  // completed fetch is not killed whatever the other bits say.
  const bool killed = !comp && !(ic_miss && !p.errata) && !phys && !l1 && !l2;
  const Verdict killed_v = status || comp ? yes_if(killed) : undecided;
  const Verdict attempted_v = status || comp ? yes_if(!killed) : undecided;
  auto needs_status = [&](bool b) { return status ? yes_if(b) : undecided; };
  // #1347's encoding: 0 4K, 1 16K, 2 2M, 3 1G; else 0 4K, 1 2M, 2 1G.
  const std::uint64_t size_2m = p.errata ? 2 : 1;
  switch (select) {
    case 0xF000: return yes_if(true);
    case 0xF001: return killed_v;
    case 0xF002: return attempted_v;
    case 0xF003: return yes_if(comp);
    case 0xF004: return comp ? yes_if(false) : killed_v.outcome == Outcome::undecided ? undecided : yes_if(!killed);
    case 0xF005: return yes_if(phys && !l1);
    case 0xF006: return needs_status(l1 && !l2);
    case 0xF007: return needs_status(l1 && l2);
    case 0xF008: return needs_status(ic_miss);
    case 0xF009: return comp ? needs_status(!ic_miss) : yes_if(false);
    case 0xF00A: return yes_if(phys && size == 0);
    case 0xF00B: return yes_if(phys && size == size_2m);
    case 0xF00E: return status ? yes_if(!killed, lat) : undecided;
  }
  FAIL("no fetch event " << select);
  return {};
}

// Where a load's data came from, as Linux's perf_ibs_get_mem_lvl() and
// perf_ibs_get_mem_snoop() read IbsOpData2.
struct Source {
  bool valid = false;      // a data source was reported for this load
  bool ambiguous = false;  // Zen 1-3's local node cache: the L3 or another core's cache
  bool ccx = false;        // Zen 4's source 1: the L3 (as Linux counts it) or another core's L1/L2 in the CCX
  bool l3 = false, peer_cache = false, dram = false, io = false, remote = false;
  bool modified = false, owned = false;  // the line's state, where the source reports one
};

Source source_of(std::uint64_t data2, std::uint64_t data3, const Processor& p) {
  Source s;
  const bool load = bit(data3, 0), dc_miss = bit(data3, 7), uc = bit(data3, 14), no_mab = bit(data3, 16);
  const bool l2_miss = bit(data3, 20), sw_pf = bit(data3, 21);
  // An L2 hit (or no miss) returns before DataSrc; #1293 zeroes IbsOpData2.
  if (!load || !dc_miss || !l2_miss) return s;
  if (p.errata && (no_mab || sw_pf)) return s;
  const std::uint64_t src = p.zen4_sources ? (bits(data2, 6, 2) << 3 | bits(data2, 0, 3)) : bits(data2, 0, 3);
  if (uc && src != 7) return s;  // uncached: DataSrc is not valid
  // RmtNode counts for DRAM, and on Zen 4 for long-latency and extension
  // memory (RMT_NODE_APPLICABLE, ZEN4_RMT_NODE_BITS).
  const bool rmt_node = bit(data2, 4);
  // HITM: CacheHitSt 0 for source 2 (1, 2 and 5 on Zen 4), where it is valid.
  const bool state = bit(data2, 5);
  auto line_state = [&] {
    s.modified = p.cache_state_valid && !state;
    s.owned = p.cache_state_valid && state;
  };
  if (!p.zen4_sources) {
    switch (src) {
      case 2: s.valid = s.ambiguous = true; line_state(); break;
      case 3: s.valid = s.dram = true; s.remote = rmt_node; break;
      case 4: s.valid = s.peer_cache = s.remote = true; break;
      case 7: s.valid = s.io = true; break;
      default: break;
    }
  } else {
    switch (src) {
      case 1: s.valid = s.l3 = s.ccx = true; line_state(); break;
      case 2: s.valid = s.peer_cache = true; line_state(); break;
      case 3: s.valid = s.dram = true; s.remote = rmt_node; break;
      case 5: s.valid = s.peer_cache = s.remote = true; line_state(); break;
      // PMEM and CXL: not DRAM; another processor's memory (12): Linux
      // reports no level for it, nor RmtNode.
      case 6: case 8: s.valid = true; s.remote = rmt_node; break;
      case 12: s.valid = true; break;
      case 7: s.valid = s.io = true; break;
      default: break;
    }
  }
  return s;
}

Verdict op_event(std::uint16_t select, std::uint64_t data, std::uint64_t data2, std::uint64_t d3, const Processor& p) {
  const bool br = bit(data, 37), misp = bit(data, 36), taken = bit(data, 35), ret = bit(data, 34);
  const bool ld = bit(d3, 0), st = bit(d3, 1), ls = ld || st, miss = bit(d3, 7), lin = bit(d3, 17), phys = bit(d3, 18);
  const std::uint64_t lat = bits(d3, 32, 16);
  // The DTLB: Zen 5 reports its bits only with a physical address, and one
  // page size for the translation (bits 5:4, 3 reserved).
  const bool dtlb_known = !p.zen5_dtlb || phys;
  const bool l1m = bit(d3, 2), l2m = bit(d3, 3);
  bool l1_2m = bit(d3, 4), l1_1g = bit(d3, 5), l2_2m = bit(d3, 6), l2_1g = bit(d3, 19), size_known = true;
  if (p.zen5_dtlb) {
    const std::uint64_t size = bits(d3, 4, 2);
    l1_2m = l2_2m = size == 1;
    l1_1g = l2_1g = size == 2;
    size_known = phys && size != 3;
  }
  const bool translated = ls && lin;
  auto dtlb = [&](bool b) { return translated && !dtlb_known ? undecided : yes_if(translated && b); };
  auto page = [&](bool level, bool b) {
    if (!translated || (dtlb_known && !level)) return yes_if(false);
    return dtlb_known && size_known ? yes_if(b) : undecided;
  };
  const bool l1_level = !l1m || l2m, l2_level = l1m && !l2m;
  const Source s = source_of(data2, d3, p);
  // Linux reads no cache outcome of an uncacheable access whose DataSrc is
  // not I/O (perf_ibs_get_mem_lvl(): "DcMiss, L2Miss, DataSrc, DcMissLat
  // etc. are all invalid for Uncached memory accesses"). The one
  // difference, named: Linux compares the raw DataSrc, tagop the source
  // as decided, which needs a load that missed the DC and the L2; an
  // uncacheable access with a raw 7 that is not one is an L1 or L2 hit to
  // Linux and undecided here (a contradiction real hardware does not
  // report: an uncacheable access hits no cache).
  const bool miss_known = !bit(d3, 14) || s.io;
  auto needs_miss = [&](bool selected, bool b, std::uint64_t amount = 1) {
    return selected && !miss_known ? undecided : yes_if(selected && b, amount);
  };
  switch (select) {
    case 0xF100: return yes_if(true);
    case 0xF101: return yes_if(true, bits(data, 16, 16));
    case 0xF102: return yes_if(true, bits(data, 0, 16));
    case 0xF103: return yes_if(br);
    case 0xF104: return yes_if(br && misp);
    case 0xF105: return yes_if(br && taken);
    case 0xF106: return yes_if(br && misp && taken);
    case 0xF107: return yes_if(br && ret);
    case 0xF108: return yes_if(br && ret && misp);
    case 0xF200: return yes_if(ls);
    case 0xF201: return yes_if(ld);
    case 0xF202: return yes_if(st);
    case 0xF203: return dtlb(!l1m);
    case 0xF204: return dtlb(l1m && !l2m);
    case 0xF205: return dtlb(l1m && l2m);
    case 0xF206: return needs_miss(ls, miss);
    case 0xF207: return needs_miss(ls, !miss);
    case 0xF208: return yes_if(ls && bit(d3, 8));
    case 0xF20D: return yes_if(ls && bit(d3, 14));
    case 0xF20E: return yes_if(ls && bit(d3, 13));
    case 0xF20F: return yes_if(ls && bit(d3, 15));
    case 0xF211: return page(l1_level, !l1_2m && !l1_1g);
    case 0xF212: return page(l1_level, l1_2m);
    case 0xF213: return page(l1_level, l1_1g);
    case 0xF215: return page(l2_level, !l2_2m && !l2_1g);
    case 0xF216: return page(l2_level, l2_2m);
    case 0xF219: return needs_miss(ld, miss, lat);
    case 0xF240: return yes_if(s.valid && !s.remote);
    case 0xF241: return yes_if(s.valid && s.remote);
    case 0xF242: return yes_if(s.l3 && !s.remote);
    // Zen 4's source 1 may be another core's L1/L2: undecided, not false.
    case 0xF243: return s.ambiguous || s.ccx ? undecided : yes_if(s.peer_cache && !s.remote);
    case 0xF244: return yes_if(s.peer_cache && s.remote);
    case 0xF245: return yes_if(s.dram && !s.remote);
    case 0xF246: return yes_if(s.dram && s.remote);
    case 0xF247: return yes_if(s.io && !s.remote);
    case 0xF248: return yes_if(s.io && s.remote);
    case 0xF249: return yes_if(s.modified);
    case 0xF24A: return yes_if(s.owned);
    case 0xF24B: return yes_if(s.valid && !s.remote, lat);
    case 0xF24C: return yes_if(s.valid && s.remote, lat);
  }
  FAIL("no op event " << select);
  return {};
}

struct Written {
  IbsRegisters regs;
  std::uint64_t ctl;  // IbsFetchCtl as the writer completed it
};

std::vector<IbsRegisters> random_samples(const Processor& p, std::uint64_t& state, int count) {
  std::vector<IbsRegisters> out;
  auto next = [&] { return splitmix(state); };
  for (int i = 0; i < count; ++i) {
    IbsRegisters r;
    if (i % 4 == 0) {
      r.unit = IbsUnit::fetch;
      // Outcome bits 50-56 and 58 random, a quarter of the fetches killed.
      std::uint64_t ctl = (next() & (std::uint64_t{0x17F} << 50)) | (next() & 0xFFFF) << 32;
      if (next() % 4 == 0) ctl &= ~(std::uint64_t{0x1F} << 50 | std::uint64_t{3} << 55);
      r.set(IbsRegister::IbsFetchCtl, ctl);
      r.set(IbsRegister::IbsFetchLinAd, 0x400000 + (next() & 0xFFF));
    } else {
      r.unit = IbsUnit::op;
      std::uint64_t data3 = (next() & 0x3F'FFFF) | (next() & 0xFFFF) << 32;
      // Half the ops are loads that missed the DC and the L2, so that the
      // data sources are read; few uncacheable.
      if (next() % 2) data3 |= 1 | 1 << 7 | 1 << 20;
      if (next() % 4) data3 &= ~std::uint64_t{1 << 14};
      // Zen 5: a physical address with each linear one, and no reserved
      // page size (the cases without are tested on their own below).
      if (p.zen5_dtlb) {
        if (bit(data3, 17)) data3 |= 1 << 18;
        if (bits(data3, 4, 2) == 3) data3 &= ~std::uint64_t{1 << 5};
      }
      r.set(IbsRegister::IbsOpRip, 0x400000 + (next() & 0xFFF));
      r.set(IbsRegister::IbsOpData, next() & 0x3F'FFFF'FFFFull);
      r.set(IbsRegister::IbsOpData2, next() & 0xFF);
      r.set(IbsRegister::IbsOpData3, data3);
    }
    out.push_back(r);
  }
  return out;
}

struct Expectation {
  std::uint64_t value = 0;      // the count, or the sum of a latency event
  std::uint64_t undecided = 0;  // samples that cannot decide the event
  bool available() const { return value != 0 || undecided == 0; }
};

std::map<std::uint16_t, Expectation> expected(const Processor& p, const std::vector<IbsRegisters>& samples) {
  std::map<std::uint16_t, Expectation> out;
  const std::set<std::uint16_t> none = never(p);
  for (const IbsDerivedEventSpec& e : derived_event_table()) {
    Expectation& x = out[e.select];
    for (const IbsRegisters& r : samples) {
      if (r.unit != e.unit) continue;
      if (none.count(e.select)) {
        ++x.undecided;
        continue;
      }
      const Verdict v = r.unit == IbsUnit::fetch
                            ? fetch_event(e.select, r.get(IbsRegister::IbsFetchCtl), p)
                            : op_event(e.select, r.get(IbsRegister::IbsOpData), r.get(IbsRegister::IbsOpData2),
                                       r.get(IbsRegister::IbsOpData3), p);
      if (v.outcome == Outcome::undecided) ++x.undecided;
      if (v.outcome == Outcome::yes) x.value += v.amount;
    }
  }
  return out;
}

// The samples written as a capture of this processor and read back.
struct ReadBack {
  std::vector<Sample> samples;
  Aggregator aggregator;
  std::vector<std::string> warnings;
};

ReadBack read_back(unsigned family, unsigned model, const std::vector<IbsRegisters>& samples, const std::string& path) {
  {
    IbsCaptureWriter w(path, {.family = family, .model = model});
    for (std::size_t i = 0; i < samples.size(); ++i) w.sample(samples[i], 1, 1, 0, i);
    w.finish();
  }
  PerfDataReader reader(path);
  const IbsCapture capture(reader.info());
  DecodedSamples t(capture);
  reader.read(t);
  std::filesystem::remove(path);
  return {std::move(t.samples), std::move(t.aggregator), capture.warnings()};
}

std::map<std::uint16_t, QueryResult> totals_of(const Processor& p, const std::vector<IbsRegisters>& samples,
                                               const std::string& path) {
  const ReadBack t = read_back(p.family, p.model, samples, path);
  const auto results = t.aggregator.evaluate(derived_event_queries());
  std::map<std::uint16_t, QueryResult> out;
  const auto table = derived_event_table();
  for (std::size_t i = 0; i < table.size(); ++i) out[table[i].select] = results[i];
  return out;
}

void check_against(const Processor& p, const std::vector<IbsRegisters>& samples,
                   const std::map<std::uint16_t, QueryResult>& got) {
  const auto want = expected(p, samples);
  const IbsDecoder decoder(p.family, nearest_known_model(p.family, p.model).value_or(p.model));
  for (const IbsDerivedEventSpec& e : derived_event_table()) {
    INFO(p.name << ": event " << select_string(e.select));
    const QueryResult& r = got.at(e.select);
    const Expectation& x = want.at(e.select);
    CHECK((e.sums.empty() ? r.count : r.total) == x.value);
    CHECK(r.undecided == x.undecided);
    CHECK(r.available() == x.available());
    // Where some sample cannot decide it, the per-processor decision says why.
    if (x.undecided) {
      const EventAvailability a = event_availability(e, decoder);
      CHECK(a.verdict != EventAvailability::Verdict::available);
      CHECK_FALSE(a.reasons.empty());
    }
  }
}

std::string temp_path() {
  return (std::filesystem::temp_directory_path() / ("tagop-zen-totals-" + std::to_string(::getpid()) + ".data")).string();
}

}  // namespace

TEST_CASE("every derived event's total on Zen captures is the kernel's and perf's reading of the raw bits",
          "[ibs][perfdata][zen]") {
  for (const Processor& p : processors) {
    std::uint64_t state = p.family * 256 + p.model;
    const auto samples = random_samples(p, state, 4000);
    const auto got = totals_of(p, samples, temp_path());
    check_against(p, samples, got);
    INFO(p.name);
    // The random bits reach every source the processor reports.
    for (std::uint16_t sel : {0xF240, 0xF241, 0xF244, 0xF245, 0xF246, 0xF247, 0xF24B, 0xF24C})
      CHECK(got.at(sel).count > 0);
    if (p.zen4_sources)
      for (std::uint16_t sel : {0xF242, 0xF243}) CHECK(got.at(sel).count > 0);
    if (p.cache_state_valid)
      for (std::uint16_t sel : {0xF249, 0xF24A}) CHECK(got.at(sel).count > 0);
    // RmtNode does not make I/O remote (Linux's RMT_NODE_APPLICABLE).
    CHECK(got.at(0xF248).count == 0);
    CHECK(got.at(0xF248).available());
    // A few uncacheable accesses: the DC events count the others.
    for (std::uint16_t sel : {0xF206, 0xF207, 0xF219}) {
      CHECK(got.at(sel).undecided > 0);
      CHECK(got.at(sel).available());
    }
  }
}

TEST_CASE("Zen 1-3 loads that name no local node cache leave 0xF243 decided", "[ibs][perfdata][zen]") {
  // Without source 2 (the L3 or another core's cache, not said which).
  for (const Processor& p : {processors[0], processors[2]}) {
    std::uint64_t state = 99 + p.model;
    auto samples = random_samples(p, state, 2000);
    for (IbsRegisters& r : samples) {
      if (r.unit != IbsUnit::op) continue;
      const std::uint64_t d2 = r.get(IbsRegister::IbsOpData2);
      if (bits(d2, 0, 3) == 2) r.set(IbsRegister::IbsOpData2, d2 & ~std::uint64_t{7});
    }
    const auto got = totals_of(p, samples, temp_path());
    check_against(p, samples, got);
    INFO(p.name);
    CHECK(got.at(0xF243).undecided == 0);
    CHECK(got.at(0xF249).available() == p.cache_state_valid);
  }
}

TEST_CASE("Zen 4 counts a Modified line from the own CCX as Linux's HITM, and leaves its supplier undecided",
          "[ibs][perfdata][zen]") {
  // Linux reports HITM for DataSrc 1, 2 and 5 with CacheHitSt 0
  // (perf_ibs_get_mem_snoop()); source 1 is "local L3 or other L1/L2 in
  // CCX", which Linux counts an L3 hit: another core's cache, maybe.
  const Processor& zen4 = processors[3];
  auto load = [](std::uint64_t source, bool owned) {
    IbsRegisters r;
    r.unit = IbsUnit::op;
    r.set(IbsRegister::IbsOpData3, 1 | 1 << 7 | 1 << 20);  // a load that missed the DC and the L2
    r.set(IbsRegister::IbsOpData2, (source & 7) | (source >> 3) << 6 | std::uint64_t{owned} << 5);
    return r;
  };
  std::vector<IbsRegisters> samples;
  for (int i = 0; i < 3; ++i) samples.push_back(load(1, false));
  samples.push_back(load(1, true));
  samples.push_back(load(2, false));
  samples.push_back(load(5, true));
  samples.push_back(load(3, false));  // DRAM: no line state
  samples.push_back(load(7, false));  // I/O: no line state
  const auto got = totals_of(zen4, samples, temp_path());
  check_against(zen4, samples, got);
  CHECK(got.at(0xF249).count == 4);  // the three of source 1 and the one of 2
  CHECK(got.at(0xF24A).count == 2);
  CHECK(got.at(0xF242).count == 4);  // source 1 as Linux counts it: the L3
  CHECK(got.at(0xF243).count == 1);  // source 2; the four of source 1 undecided
  CHECK(got.at(0xF243).undecided == 4);
}

TEST_CASE("Zen 5 counts the DTLB events over the accesses that have a physical address", "[ibs][perfdata][zen]") {
  const Processor& zen5 = processors[4];
  std::uint64_t state = 5;
  auto samples = random_samples(zen5, state, 400);
  IbsRegisters r;
  r.unit = IbsUnit::op;
  r.set(IbsRegister::IbsOpData3, 1 | 1 << 17);  // a load with a linear address, no physical one
  samples.push_back(r);
  const auto got = totals_of(zen5, samples, temp_path());
  check_against(zen5, samples, got);
  // Linux's perf_ibs_get_tlb_lvl() (6.15) drops that one sample's DTLB
  // level and keeps the others'.
  for (std::uint16_t sel : {0xF203, 0xF204, 0xF205, 0xF211, 0xF212, 0xF213, 0xF215, 0xF216}) {
    INFO(select_string(sel));
    CHECK(got.at(sel).undecided == 1);
    CHECK(got.at(sel).available());
  }
  CHECK(got.at(0xF203).count + got.at(0xF204).count + got.at(0xF205).count > 0);
}

TEST_CASE("a Family 1Ah model past the table of generations decodes as the nearest known one, with a warning",
          "[ibs][perfdata][zen]") {
  CHECK(generation(0x1A, 0x50) == "Zen 6");
  CHECK(generation(0x1A, 0x02) == "Zen 5");
  CHECK(nearest_known_model(0x1A, 0x50) == std::nullopt);
  CHECK(nearest_known_model(0x1A, 0xD0) == 0xCFu);
  CHECK(nearest_known_model(0x1A, 0x30) == 0x2Fu);
  CHECK(nearest_known_model(0x19, 0xB0) == 0xAFu);
  CHECK(nearest_known_model(0x10, 0x09) == std::nullopt);  // before Zen every model has its layout
  IbsRegisters r;
  r.unit = IbsUnit::fetch;
  r.set(IbsRegister::IbsFetchCtl, std::uint64_t{1} << 51);  // an IC miss without a translation
  const ReadBack t = read_back(0x1A, 0xD0, {r}, temp_path());
  bool warned = false;
  for (const std::string& w : t.warnings)
    warned = warned || (w.find("model D0h") != std::string::npos && w.find("model CFh (Zen 6)") != std::string::npos);
  CHECK(warned);
  // Decoded as Zen 6: the IC miss is not valid without IbsPhyAddrValid.
  REQUIRE(t.samples.size() == 1);
  CHECK_FALSE(t.samples[0].observed.contains(condition("ic.miss")));
}
