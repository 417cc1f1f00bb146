// perf's own IBS decoder against tagop's, field by field. Zen captures are
// written with IbsCaptureWriter (Family 17h, 19h model 01h with its errata,
// 19h model 11h with the Zen 4 capabilities and the zen4_ibs_extensions PMU
// capability perf needs, 1Ah with Zen 5's, which perf 6.1 does not know),
// `perf report -D` prints every sample's registers
// (tools/perf/util/amd-sample-raw.c: Debian 12 has perf 6.1), and each
// field perf prints must have the value tagop's IbsDecoder::explain()
// gives it. perf prints a field only where it means something; so must
// tagop mark the others ignored or invalid, except where the two read the
// bits differently: each such difference is listed below by name and
// reason, and each must occur in the samples.

#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <tagop/amd_ibs/decoder.hpp>
#include <tagop/amd_ibs/families.hpp>
#include <tagop/amd_ibs/perf_capture.hpp>

#include "../../run_command.hpp"
#include "../../splitmix.hpp"

using namespace tagop::amd_ibs;

namespace {

// One sample as perf printed it: field -> value text, and the registers'
// hex values by perf's line names.
struct PerfSample {
  std::map<std::string, std::string> fields;
  std::map<std::string, std::uint64_t> lines;
};

// The fields of one of perf's lines, "Name value Name value ...", with
// perf's few irregular ones: "CntCtl 1=uOps", "CacheHitSt 0=M-state",
// "OpMemWidth  8 bytes", "DataSrc 3=DRAM" (the rest of the line).
void parse_fields(std::string text, PerfSample& out) {
  static const std::regex data_src(R"( DataSrc (\d+)=.*$)");
  std::smatch m;
  if (std::regex_search(text, m, data_src)) {
    out.fields["DataSrc"] = m[1];
    text = m.prefix();
  }
  std::istringstream words(text);
  for (std::string name, value; words >> name >> value;) {
    if (const auto eq = value.find('='); eq != std::string::npos) value.resize(eq);
    if (name == "OpMemWidth") words >> std::ws, words.ignore(5);  // "bytes"
    out.fields[name] = value;
  }
}

// `perf report -D`: each sample's decoded lines come before its
// PERF_RECORD_SAMPLE line, which carries its time (written as its index).
std::map<std::uint64_t, PerfSample> parse_perf(const std::string& text) {
  std::map<std::uint64_t, PerfSample> out;
  static const std::regex reg_line(R"(^(ibs_fetch_ctl|ic_ibs_ext_ctl|ibs_op_ctl|ibs_op_data|ibs_op_data2|ibs_op_data3):\s+([0-9a-f]{16})(.*)$)");
  static const std::regex addr_line(R"(^(IbsFetchLinAd|IbsFetchPhysAd|IbsOpRip|IbsDCLinAd|IbsDCPhysAd|IbsBrTarget):\s+([0-9a-f]{16})$)");
  static const std::regex sample_line(R"(^\d+ (\d+) 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE)");
  PerfSample pending;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, reg_line)) {
      pending.lines[m[1]] = std::stoull(m[2], nullptr, 16);
      parse_fields(m[3], pending);
    } else if (std::regex_match(line, m, addr_line)) {
      pending.fields[m[1]] = m[2];
    } else if (std::regex_search(line, m, sample_line)) {
      out[std::stoull(m[1])] = std::move(pending);
      pending = {};
    }
  }
  return out;
}

// A field of tagop's decode, by name.
struct Tagop {
  std::map<std::string_view, DecodedField> fields;
  bool has(std::string_view n) const { return fields.count(n) != 0; }
  std::uint64_t value(std::string_view n) const { return fields.at(n).value; }
  bool meaningful(std::string_view n) const {
    const auto it = fields.find(n);
    return it != fields.end() && !it->second.ignored && !it->second.invalid;
  }
};

// What perf prints for a field, computed from tagop's fields: perf's name,
// tagop's field, and how perf shows the value.
struct Correspondence {
  IbsUnit unit;
  std::string_view perf, tagop;
  std::function<std::string(const Tagop&)> expected;
};

std::string plain(const Tagop& t, std::string_view n) { return std::to_string(t.value(n)); }
std::string hex16(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::vector<Correspondence> correspondences() {
  std::vector<Correspondence> out;
  IbsUnit unit = IbsUnit::fetch;
  auto computed = [&](std::string_view perf, std::string_view ours, std::function<std::string(const Tagop&)> f) {
    out.push_back({unit, perf, ours, std::move(f)});
  };
  auto same = [&](std::string_view perf, std::string_view ours) {
    computed(perf, ours, [ours](const Tagop& t) { return plain(t, ours); });
  };
  auto address = [&](std::string_view perf, std::string_view ours) {
    computed(perf, ours, [ours](const Tagop& t) { return hex16(t.value(ours)); });
  };
  // ibs_fetch_ctl; perf prints the counts times 16.
  computed("fetch.MaxCnt", "IbsFetchMaxCnt", [](const Tagop& t) { return std::to_string(t.value("IbsFetchMaxCnt") << 4); });
  computed("fetch.Cnt", "IbsFetchCnt", [](const Tagop& t) { return std::to_string(t.value("IbsFetchCnt") << 4); });
  for (auto [p, o] : {std::pair{"Lat", "IbsFetchLat"}, {"fetch.En", "IbsFetchEn"}, {"fetch.Val", "IbsFetchVal"},
                      {"Comp", "IbsFetchComp"}, {"IcMiss", "IbsIcMiss"}, {"PhyAddrValid", "IbsPhyAddrValid"},
                      {"L1TlbMiss", "IbsL1TlbMiss"}, {"L2TlbMiss", "IbsL2TlbMiss"}, {"RandEn", "IbsRandEn"},
                      {"fetch.L2Miss", "IbsFetchL2Miss"}, {"fetch.L3MissOnly", "L3MissOnly"},
                      {"FetchOcMiss", "FetchOcMiss"}, {"FetchL3Miss", "FetchL3Miss"},
                      {"IbsItlbRefillLat", "IbsItlbRefillLat"}})
    same(p, o);
  // The page size as perf names it, from tagop's meaning of the value.
  computed("L1TlbPgSz", "IbsL1TlbPgSz", [](const Tagop& t) {
                   const std::string m = t.fields.at("IbsL1TlbPgSz").meaning;
                   if (m.starts_with("reserved")) return std::string("RESERVED");
                   return m.substr(0, m.find(' ')) + m.substr(m.find(' ') + 1, 1) + "B";  // "16 KiB" -> "16KB"
                 });
  address("IbsFetchLinAd", "IbsFetchLinAd");
  address("IbsFetchPhysAd", "IbsFetchPhysAd");
  // ibs_op_ctl: MaxCnt joins IbsOpMaxCntExt (bits 26:20) above IbsOpMaxCnt, times 16.
  unit = IbsUnit::op;
  computed("op.MaxCnt", "IbsOpMaxCnt", [](const Tagop& t) {
                   return std::to_string((t.value("IbsOpMaxCntExt") << 16 | t.value("IbsOpMaxCnt")) << 4);
                 });
  for (auto [p, o] : {std::pair{"op.L3MissOnly", "L3MissOnly"}, {"op.En", "IbsOpEn"}, {"op.Val", "IbsOpVal"},
                      {"CntCtl", "IbsOpCntCtl"}, {"CurCnt", "IbsOpCurCnt"}, {"CompToRetCtr", "IbsCompToRetCtr"},
                      {"TagToRetCtr", "IbsTagToRetCtr"}, {"OpReturn", "IbsOpReturn"}, {"OpBrnTaken", "IbsOpBrnTaken"},
                      {"OpBrnMisp", "IbsOpBrnMisp"}, {"BrnRet", "IbsOpBrnRet"}, {"RipInvalid", "IbsRipInvalid"},
                      {"BrnFuse", "IbsOpBrnFuse"}, {"Microcode", "IbsOpMicrocode"}, {"CacheHitSt", "CacheHitSt"},
                      {"RmtNode", "RmtNode"}, {"DataSrc", "DataSrc"}, {"LdOp", "IbsLdOp"}, {"StOp", "IbsStOp"},
                      {"DcL1TlbMiss", "IbsDcL1tlbMiss"}, {"DcL2TlbMiss", "IbsDcL2tlbMiss"},
                      {"DcL1TlbHit2M", "IbsDcL1tlbHit2M"}, {"DcL1TlbHit1G", "IbsDcL1tlbHit1G"},
                      {"DcL2TlbHit2M", "IbsDcL2tlbHit2M"}, {"DcMiss", "IbsDcMiss"}, {"DcMisAcc", "IbsDcMisAcc"},
                      {"DcWcMemAcc", "IbsDcWcMemAcc"}, {"DcUcMemAcc", "IbsDcUcMemAcc"}, {"DcLockedOp", "IbsDcLockedOp"},
                      {"DcMissNoMabAlloc", "DcMissNoMabAlloc"}, {"DcLinAddrValid", "IbsDcLinAddrValid"},
                      {"DcPhyAddrValid", "IbsDcPhyAddrValid"}, {"DcL2TlbHit1G", "IbsDcL2tlbHit1G"},
                      {"op.L2Miss", "IbsL2Miss"}, {"SwPf", "IbsSwPf"}, {"OpDcMissOpenMemReqs", "IbsOpDcMissOpenMemReqs"},
                      {"DcMissLat", "IbsDcMissLat"}, {"TlbRefillLat", "IbsTlbRefillLat"}})
    same(p, o);
  // perf prints the width in bytes: 2^(n-1).
  computed("OpMemWidth", "IbsOpMemWidth", [](const Tagop& t) {
                   return std::to_string(1u << (t.value("IbsOpMemWidth") - 1));
                 });
  // Zen 5's: perf 6.1 prints none of them.
  same("LdLatThrsh", "LdLatThrsh");
  same("LdLatEn", "LdLatEn");
  same("DcPageSize", "DcPageSize");
  address("IbsOpRip", "IbsOpRip");
  address("IbsDCLinAd", "IbsDcLinAd");
  address("IbsDCPhysAd", "IbsDcPhysAd");
  address("IbsBrTarget", "IbsBrTarget");
  return out;
}

// perf names some fields alike on the fetch and op lines: tell them apart.
void qualify(PerfSample& s, bool fetch) {
  for (const char* name : {"MaxCnt", "Cnt", "En", "Val", "L2Miss", "L3MissOnly"}) {
    const auto it = s.fields.find(name);
    if (it == s.fields.end()) continue;
    s.fields[std::string(fetch ? "fetch." : "op.") + name] = it->second;
    s.fields.erase(it);
  }
}

struct Family {
  unsigned family, model;
  const char* what;
};

// A known difference between perf 6.1's printout and tagop's decode: where
// one shows a field that the other does not (their values, where both
// show them, must still agree).
struct Difference {
  std::string_view name;
  std::string_view reason;
  // Whether this difference explains the field being shown by one and not
  // the other in this sample.
  std::function<bool(std::string_view perf_field, const Family&, const Tagop&)> explains;
  std::size_t seen = 0;
};

bool zen3_errata(const Family& f) { return f.family == 0x19 && f.model < 0x10; }

std::vector<Difference> known_differences() {
  return {
      {"branch flags without BrnRet",
       "perf prints OpReturn, OpBrnTaken and OpBrnMisp only for a retired branch; tagop decodes the bits always (the "
       "derived events test them with `branch`)",
       [](std::string_view f, const Family&, const Tagop& t) {
         return (f == "OpReturn" || f == "OpBrnTaken" || f == "OpBrnMisp") && t.value("IbsOpBrnRet") == 0;
       }},
      {"IbsBrTarget without a taken branch",
       "perf prints IbsBrTarget only for a retired branch with a non-zero target; tagop reports the register as given",
       [](std::string_view f, const Family&, const Tagop& t) {
         return f == "IbsBrTarget" && (t.value("IbsOpBrnRet") == 0 || t.value("IbsBrTarget") == 0);
       }},
      {"OpMemWidth 0",
       "perf prints OpMemWidth only when it is not 0 (no access); tagop shows the 0",
       [](std::string_view f, const Family&, const Tagop& t) { return f == "OpMemWidth" && t.value("IbsOpMemWidth") == 0; }},
      {"DataSrc of an op that did not miss the L2",
       "perf prints IbsOpData2 for every op; tagop, as Linux's perf_ibs_get_mem_lvl() (6.1), reads DataSrc and RmtNode "
       "only for a load that missed the DC and the L2, an uncacheable access's source only when it is I/O (7), and "
       "RmtNode only for memory (RMT_NODE_APPLICABLE: not for I/O nor a cache's source)",
       [](std::string_view f, const Family&, const Tagop& t) {
         return (f == "DataSrc" || f == "RmtNode") && (t.fields.at("DataSrc").ignored || t.fields.at("RmtNode").ignored);
       }},
      {"DataSrc 0 and reserved sources",
       "perf prints no DataSrc for source 0 (no valid status) and, on Zen 4, for sources above 12; tagop shows the value",
       [](std::string_view f, const Family&, const Tagop& t) {
         return f == "DataSrc" && (t.value("DataSrc") == 0 || t.value("DataSrc") > 12);
       }},
      {"CacheHitSt of an op whose data source is not read",
       "perf prints CacheHitSt for source 2 (Zen 1-3; 1, 2 and 5 on Zen 4) of any op; tagop reads it, as Linux's "
       "perf_ibs_get_mem_snoop() reads a HITM, only for a load whose data source it reads",
       [](std::string_view f, const Family&, const Tagop& t) {
         return f == "CacheHitSt" && t.has("CacheHitSt") && t.fields.at("CacheHitSt").ignored;
       }},
      {"CacheHitSt on Zen 3",
       "perf 6.1 prints CacheHitSt on Family 19h models 00h-0Fh and 20h-5Fh, where Linux's "
       "perf_ibs_cache_hit_st_valid() (6.1) says it is not valid: tagop has no such field there",
       [](std::string_view f, const Family& fam, const Tagop& t) {
         return f == "CacheHitSt" && fam.family == 0x19 && !t.has("CacheHitSt");
       }},
      {"IcMiss on Family 19h models 00h-0Fh",
       "erratum #1238: perf omits IcMiss; tagop shows the bit as a field that decides nothing",
       [](std::string_view f, const Family& fam, const Tagop&) { return f == "IcMiss" && zen3_errata(fam); }},
      {"Zen 5 fields perf 6.1 does not know",
       "IBS capability bits 12 and 19 (Linux 6.15): the load-latency filter in IbsOpCtl (LdLatThrsh, LdLatEn) and "
       "DcPageSize, one page size in IbsOpData3 5:4 where perf 6.1 still prints DcL1TlbHit2M, DcL1TlbHit1G, and the "
       "now reserved DcL2TlbHit2M (6) and DcL2TlbHit1G (19)",
       [](std::string_view f, const Family& fam, const Tagop&) {
         return fam.family == 0x1A && (f == "LdLatThrsh" || f == "LdLatEn" || f == "DcPageSize" || f == "DcL1TlbHit2M" ||
                                       f == "DcL1TlbHit1G" || f == "DcL2TlbHit2M" || f == "DcL2TlbHit1G");
       }},
      {"an uncacheable access's cache outcome on Zen",
       "perf 6.1 prints DcMiss, L2Miss, DcMissNoMabAlloc, OpDcMissOpenMemReqs and DcMissLat for every op; Linux's "
       "perf_ibs_get_mem_lvl() reads none of them for an uncacheable access whose data source is not I/O (\"DcMiss, "
       "L2Miss, DataSrc, DcMissLat etc. are all invalid for Uncached memory accesses\"), nor does tagop",
       [](std::string_view f, const Family& fam, const Tagop& t) {
         return fam.family >= 0x17 &&
                (f == "DcMiss" || f == "op.L2Miss" || f == "DcMissNoMabAlloc" || f == "OpDcMissOpenMemReqs" ||
                 f == "DcMissLat") &&
                t.value("IbsDcUcMemAcc") == 1;
       }},
      {"TlbRefillLat and IbsDCPhysAd without their addresses on Zen 4 and later",
       "perf 6.1 prints TlbRefillLat always and IbsDCPhysAd with DcPhyAddrValid; newer perf (\"perf amd ibs: Suppress "
       "bogus TlbRefillLat and DCPhysAd on Zen4+\", 2026) needs DcPhyAddrValid for the one and DcLinAddrValid too for "
       "the other there, as tagop does",
       [](std::string_view f, const Family& fam, const Tagop& t) {
         const bool zen4_on = fam.family > 0x19 || generation(fam.family, fam.model) == "Zen 4";
         return zen4_on && ((f == "TlbRefillLat" && t.value("IbsDcPhyAddrValid") == 0) ||
                            (f == "IbsDCPhysAd" && t.value("IbsDcLinAddrValid") == 0));
       }},
      {"Zen 6's fetch status without a translation",
       "perf 6.1 prints the fetch's outcome bits and latencies always; newer perf (\"perf amd ibs: Make Fetch status "
       "bits dependent on PhyAddrValid for newer platforms\", 2026) prints them on Zen 6 only with PhyAddrValid, as "
       "tagop reads them",
       [](std::string_view f, const Family& fam, const Tagop& t) {
         return fam.family == 0x1A && fam.model == 0x50 &&
                (f == "Lat" || f == "IcMiss" || f == "L1TlbMiss" || f == "L2TlbMiss" || f == "fetch.L2Miss" ||
                 f == "FetchOcMiss" || f == "FetchL3Miss" || f == "IbsItlbRefillLat") &&
                t.value("IbsPhyAddrValid") == 0;
       }},
      {"Zen 5's DTLB bits without a physical address",
       "perf 6.1 prints DcL1TlbMiss and DcL2TlbMiss always; on Zen 5 they are valid only with DcPhyAddrValid "
       "(Linux 6.15), and tagop marks them not valid without it",
       [](std::string_view f, const Family& fam, const Tagop& t) {
         return fam.family == 0x1A && (f == "DcL1TlbMiss" || f == "DcL2TlbMiss") && t.value("IbsDcPhyAddrValid") == 0;
       }},
  };
}

IbsRegisters random_registers(IbsUnit unit, std::uint64_t& state) {
  IbsRegisters r;
  r.unit = unit;
  auto next = [&] { return splitmix(state); };
  if (unit == IbsUnit::fetch) {
    // MaxCnt left 0 so that the writer fills in the period, IbsFetchEn and
    // IbsFetchVal; IbsFetchCnt and bits 32-61 random.
    r.set(IbsRegister::IbsFetchCtl, (next() & 0x3FFF'FFFF'FFFF'0000ull) & ~(std::uint64_t{3} << 48));
    r.set(IbsRegister::IbsFetchLinAd, next() & 0x7FFF'FFFF'FFFFull);
    r.set(IbsRegister::IbsFetchPhysAd, next() & 0xFFFF'FFFF'FFFFull);
    r.set(IbsRegister::IbsFetchCtlExtd, next() & 0xFFFF);
  } else {
    // IbsOpCurCnt and L3MissOnly random, the rest filled in by the writer.
    r.set(IbsRegister::IbsOpCtl, (next() & 0xFFFF'FFFF'0000'0000ull) | (next() & (1u << 16)));
    r.set(IbsRegister::IbsOpRip, next() & 0x7FFF'FFFF'FFFFull);
    r.set(IbsRegister::IbsOpData, next() & 0x1FF'FFFF'FFFFull);
    // Often a load that missed the DC and the L2, so that DataSrc is read.
    std::uint64_t data3 = next();
    if (next() % 2) data3 |= 1 | 1 << 7 | 1 << 20;
    r.set(IbsRegister::IbsOpData2, next() & 0xFF);
    r.set(IbsRegister::IbsOpData3, data3);
    r.set(IbsRegister::IbsDcLinAd, next());
    r.set(IbsRegister::IbsDcPhysAd, next() & 0xFFFF'FFFF'FFFFull);
    r.set(IbsRegister::IbsBrTarget, next() % 5 == 0 ? 0 : next());
  }
  return r;
}

}  // namespace

TEST_CASE("perf report -D and tagop decode Zen IBS samples alike, field by field", "[ibs][perf]") {
  const std::string perf = find_in_path("perf");
  // linux-perf is a dependency (scripts/install-deps.sh): CI has it.
  REQUIRE_FALSE(perf.empty());
  const Family families[] = {{0x17, 0x31, "Zen 2"},
                             {0x19, 0x01, "Zen 3, errata #1238, #1293, #1347"},
                             {0x19, 0x11, "Zen 4, capability bit 11"},
                             {0x1A, 0x02, "Zen 5, capability bits 12 and 19"},
                             {0x1A, 0x50, "Zen 6, which perf 6.1 reads as any Family 1Ah"}};
  std::vector<Difference> differences = known_differences();
  std::map<std::string, std::size_t> compared;
  for (const Family& fam : families) {
    INFO("Family " << std::hex << fam.family << "h model " << fam.model << "h (" << fam.what << ")");
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("tagop-crosscheck-" + std::to_string(::getpid()) + ".data"))
                                 .string();
    std::uint64_t state = fam.family * 256 + fam.model;
    std::vector<IbsRegisters> written;
    std::uint32_t caps = 0;
    {
      IbsCaptureWriter w(path, {.family = fam.family, .model = fam.model});
      caps = w.capabilities();
      for (std::uint64_t i = 0; i < 600; ++i) {
        IbsRegisters r = random_registers(i % 3 ? IbsUnit::op : IbsUnit::fetch, state);
        w.sample(r, 100, 100, 0, i, 0xffffffff81000000ull + i);
        // What the writer wrote: the control register as it fills it in.
        r.set(r.unit == IbsUnit::fetch ? IbsRegister::IbsFetchCtl : IbsRegister::IbsOpCtl, 0);
        written.push_back(r);
      }
      w.finish();
    }
    const RunResult run = run_shell(perf + " report -D -i " + path);
    std::filesystem::remove(path);
    REQUIRE(run.exit_code == 0);
    const auto printed = parse_perf(run.out);
    REQUIRE(printed.size() == written.size());
    const IbsDecoder decoder(fam.family, fam.model, caps);
    for (std::uint64_t i = 0; i < written.size(); ++i) {
      PerfSample p = printed.at(i);
      const bool fetch = written[i].unit == IbsUnit::fetch;
      qualify(p, fetch);
      // perf's line holds the register as the writer completed it.
      IbsRegisters regs = written[i];
      if (fetch) regs.set(IbsRegister::IbsFetchCtl, p.lines.at("ibs_fetch_ctl"));
      else regs.set(IbsRegister::IbsOpCtl, p.lines.at("ibs_op_ctl"));
      if (!fetch) CHECK(p.lines.at("ibs_op_data3") == regs.get(IbsRegister::IbsOpData3));
      Tagop t;
      for (DecodedField& f : decoder.explain(regs)) t.fields.emplace(f.spec->name, std::move(f));
      INFO("sample " << i);
      for (const Correspondence& c : correspondences()) {
        if (c.unit != regs.unit) continue;
        const auto shown = p.fields.find(std::string(c.perf));
        const bool perf_shows = shown != p.fields.end();
        if (!t.has(c.tagop) && !perf_shows) continue;
        INFO(c.perf << " / " << c.tagop);
        if (perf_shows && t.has(c.tagop)) {
          CHECK(shown->second == c.expected(t));
          ++compared[std::string(c.perf)];
        }
        if (perf_shows == t.meaningful(c.tagop)) continue;
        bool explained = false;
        for (Difference& d : differences)
          if (d.explains(c.perf, fam, t)) {
            ++d.seen;
            explained = true;
            break;
          }
        INFO("perf " << (perf_shows ? "shows" : "omits") << " it, tagop " << (t.meaningful(c.tagop) ? "reads it" : "does not"));
        CHECK(explained);
      }
    }
  }
  // Every field perf prints was compared somewhere, and every listed
  // difference happened.
  const std::set<std::string_view> unknown_to_perf{"LdLatThrsh", "LdLatEn", "DcPageSize"};
  for (const Correspondence& c : correspondences()) {
    INFO(c.perf);
    if (unknown_to_perf.count(c.perf)) CHECK(compared[std::string(c.perf)] == 0);
    else CHECK(compared[std::string(c.perf)] > 0);
  }
  for (const Difference& d : differences) {
    INFO(d.name);
    CHECK(d.seen > 0);
  }
}
