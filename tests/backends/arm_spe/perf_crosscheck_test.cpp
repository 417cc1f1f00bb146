// perf's own SPE decoder against tagop's. Captures are written with
// SpeCaptureWriter from packets built by the Arm ARM's formats
// (spe_bytes.hpp); `perf report -D` (perf 6.1: arm_spe_dump() with
// arm-spe-pkt-decoder.c) prints every packet's offset, bytes and meaning,
// and each line must be what tagop's decode_packets() and describe() give
// the same bytes. `perf script --itrace` synthesises samples per SPE event
// (arm-spe.c), and their counts must be those of the derived events with
// the same perf event name, counted by tagop's engine on tagop's samples.
//
// Known differences, each on purpose:
// - perf's remote-access event is the remote access event bit; tagop's
//   src.remote is also true for a load whose Neoverse data source is
//   REMOTE: the test's records set the two together;
// - perf prints up to 16 consecutive zero bytes as one PAD line; tagop
//   decodes one padding packet per byte (the test merges them as perf does);
// - perf writes a Neoverse transfer from another core's cache as an L2 or
//   L3 hit with a peer snoop, which tagop's read_data_src() reads as a hit
//   at that level (see the memory samples' test);
// - alignment packets are not written: perf aligns to the address of its
//   own copy of the buffer in memory, tagop to the offset in the buffer.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <tagop/arm_spe/derived_events.hpp>
#include <tagop/arm_spe/perf_capture.hpp>
#include <tagop/engine.hpp>
#include <tagop/mem_data_src.hpp>

#include "../../run_command.hpp"
#include "../../splitmix.hpp"
#include "spe_bytes.hpp"

using namespace tagop;
using namespace tagop::arm_spe;
using namespace spe_bytes;

namespace {

struct DumpLine {
  std::size_t offset = 0, size = 0;
  std::string text;
};

// `perf report -D`: after ". ... ARM SPE data: size 0x... bytes", one line
// per packet: ".  00000000:  b0 34 12 ...   PC 0x401234 el0 ns=1".
std::vector<std::vector<DumpLine>> parse_dump(const std::string& out) {
  std::vector<std::vector<DumpLine>> buffers;
  static const std::regex line(R"(^\.\s+([0-9a-f]{8}):\s+((?:[0-9a-f]{2} )+)\s*(.*)$)");
  std::istringstream in(out);
  bool inside = false;
  for (std::string text; std::getline(in, text);) {
    if (text.find("ARM SPE data: size") != std::string::npos) {
      buffers.emplace_back();
      inside = true;
      continue;
    }
    std::smatch m;
    if (inside && std::regex_match(text, m, line)) {
      DumpLine d;
      d.offset = std::stoul(m[1], nullptr, 16);
      d.size = m[2].str().size() / 3;
      d.text = m[3];
      while (!d.text.empty() && d.text.back() == ' ') d.text.pop_back();
      buffers.back().push_back(d);
    } else if (inside && text.rfind(".  ", 0) != 0) {
      inside = false;
    }
  }
  return buffers;
}

// tagop's decode of one buffer, in perf's lines: runs of padding merged as
// perf merges them, a damaged byte as "Bad packet!".
std::vector<DumpLine> tagop_lines(std::span<const std::byte> bytes) {
  std::vector<DumpLine> lines;
  PacketStream s = decode_packets(bytes);
  std::size_t p = 0, e = 0;
  for (std::size_t at = 0; at < bytes.size();) {
    if (e < s.errors.size() && s.errors[e].offset == at) {
      lines.push_back({at, 1, "Bad packet!"});
      ++e, ++at;
      continue;
    }
    REQUIRE(p < s.packets.size());
    const Packet& pk = s.packets[p++];
    REQUIRE(pk.offset == at);
    DumpLine d{at, pk.size, describe(pk)};
    while (!d.text.empty() && d.text.back() == ' ') d.text.pop_back();
    if (pk.type == PacketType::padding)
      while (d.size < 16 && p < s.packets.size() && s.packets[p].type == PacketType::padding &&
             s.packets[p].offset == at + d.size)
        ++d.size, ++p;
    at += d.size;
    lines.push_back(d);
  }
  return lines;
}

// A buffer of realistic records: loads and stores with memory events,
// branches with branch events, other ops, every packet type and size.
Buffer random_buffer(std::uint64_t& state, int records) {
  Buffer b;
  const unsigned sources[] = {0x0, 0x8, 0x9, 0xA, 0xB, 0xC, 0xE, 0xD};
  for (int i = 0; i < records; ++i) {
    const std::uint64_t r = splitmix(state);
    const bool kernel = (r >> 60) == 0;
    b.address(address_pc, Buffer::code_address(kernel ? 0xffff800008010000 + (r & 0xFFFC) : 0x400000 + (r & 0xFFFC),
                                               kernel ? 1 : 0, true));
    const unsigned cls = (r >> 16) % 3;
    std::uint64_t ev = bit(retired) * ((r >> 20) % 8 != 0);
    if (cls == 1) {
      const bool is_store = (r >> 24) & 1;
      // Subclasses: GP-REG, SIMD-FP, an atomic (AT, EXCL, AR) and an SVE access.
      const unsigned subclasses[] = {0x00, 0x04, 0x02 | 0x04 | 0x10, 0x08 | 0x30 | 0x80};
      b.op_type(1, subclasses[(r >> 25) % 4] | (is_store ? 1 : 0));
      ev |= bit(l1d_access) | bit(tlb_access);
      for (unsigned n : {l1d_refill, tlb_walk, llc_access, llc_miss, remote_access, alignment})
        if ((splitmix(state) % 4) == 0) ev |= bit(n);
      // A load's Neoverse data source says REMOTE when, and only when, its
      // remote access event is set (perf reads only the event).
      unsigned source = sources[(r >> 30) % 7];  // not REMOTE
      if (ev & bit(remote_access)) source = 0xD;
      // A load's data from anywhere but the L1D refilled the L1D.
      if (!is_store) ev = source == 0x0 ? ev & ~bit(l1d_refill) : ev | bit(l1d_refill);
      b.events(ev, (r >> 28) % 2 ? 2 : 4);
      if (!is_store) b.data_source(source, 2);
      b.address(address_data_virtual, ((r >> 33) % 2 ? 0x00ff000000000000 : 0) | (splitmix(state) & 0xFFFFFFFFFF));
      b.address(address_data_physical, 0x8000000000000000 | (splitmix(state) & 0xFFFFFFF000));
      b.counter(counter_translation_latency, static_cast<std::uint16_t>(splitmix(state) % 100));
    } else if (cls == 2) {
      b.branch((r >> 24) & 1, (r >> 25) & 1);
      if ((r >> 26) & 1) ev |= bit(not_taken);
      if ((r >> 27) % 4 == 0) ev |= bit(mispredicted);
      b.events(ev, 1);
      b.address(address_branch_target, Buffer::code_address(0x400000 + (splitmix(state) & 0xFFFC), 0, true));
    } else {
      b.op_type(0, (r >> 24) & 1);  // other, conditional select or not
      b.events(ev, 1);
    }
    b.counter(counter_total_latency, static_cast<std::uint16_t>(splitmix(state) % 1000));
    b.counter(counter_issue_latency, static_cast<std::uint16_t>(splitmix(state) % 50));
    if ((r >> 40) % 3 == 0) b.context(4000, (r >> 44) & 1);
    if ((r >> 45) % 2) b.timestamp(splitmix(state) >> 8);
    else b.end();
    if ((r >> 46) % 5 == 0) b.pad(), b.pad(), b.pad();
  }
  return b;
}

std::string temp_path(const char* what) {
  return (std::filesystem::temp_directory_path() /
          ("tagop-spe-" + std::string(what) + "-" + std::to_string(::getpid()) + ".data"))
      .string();
}

}  // namespace

TEST_CASE("perf report -D and tagop decode SPE packets alike line by line", "[spe][perf]") {
  const std::string perf = find_in_path("perf");
  REQUIRE_FALSE(perf.empty());
  const std::string path = temp_path("dump");
  std::uint64_t state = 0x5be;
  std::vector<std::vector<std::byte>> written;
  for (int i = 0; i < 3; ++i) written.push_back(random_buffer(state, 150).bytes);
  // Less usual packets: extended headers (index 8 and above, which perf
  // prints raw), an unknown op class, a context at EL2, 8-byte events and a
  // damaged byte, then a packet the buffer ends inside.
  Buffer odd;
  odd.address(address_pc, Buffer::code_address(0x400000, 0, true));
  odd.counter(9, 77);
  odd.address(11, 0x1234);
  odd.op_type(3, 0x10);
  odd.events(bit(retired) | bit(17) | bit(18), 8);
  odd.context(7, 1);
  // Load/store subclasses perf 6.1 names (NV-SYSREG, UNSPEC-REG) and those
  // it does not (MTE tag 0x14, memcpy 0x20, memset 0x25), an SVE other op,
  // a previous-branch-target address (index 4, SPEv1p2), which perf 6.1
  // prints raw.
  for (unsigned sub : {0x14u, 0x20u, 0x25u, 0x30u, 0x10u}) odd.op_type(1, sub), odd.op_type(1, sub | 1);
  odd.op_type(0, 0x08 | 0x02 | 0x04 | 0x30);
  odd.address(4, 0x8000000000401234);
  odd.byte(0x05);
  odd.end();
  odd.counter(counter_total_latency, 5);
  odd.bytes.pop_back();
  written.push_back(odd.bytes);
  {
    SpeCaptureWriter w(path, {});
    w.perf().comm(4000, 4000, "spe-test");
    for (std::size_t i = 0; i < written.size(); ++i)
      w.buffer(written[i], 4000, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i));
    w.finish();
  }
  const RunResult r = run_shell(perf + " report -D -i " + path + " 2>&1");
  INFO(r.out.substr(0, 3000));
  const auto dumps = parse_dump(r.out);
  REQUIRE(dumps.size() == written.size());
  std::size_t lines = 0;
  for (std::size_t i = 0; i < written.size(); ++i) {
    // perf dumps the buffer with the writer's padding to 8 bytes.
    std::vector<std::byte> padded = written[i];
    padded.resize((padded.size() + 7) / 8 * 8);
    const std::vector<DumpLine> ours = tagop_lines(padded);
    REQUIRE(ours.size() == dumps[i].size());
    for (std::size_t j = 0; j < ours.size(); ++j) {
      INFO("buffer " << i << " line " << j);
      CHECK(ours[j].offset == dumps[i][j].offset);
      CHECK(ours[j].size == dumps[i][j].size);
      CHECK(ours[j].text == dumps[i][j].text);
      ++lines;
    }
  }
  CHECK(lines > 3000);
  std::filesystem::remove(path);
}

TEST_CASE("perf script's synthesised SPE samples count as tagop's derived events", "[spe][perf]") {
  const std::string perf = find_in_path("perf");
  REQUIRE_FALSE(perf.empty());
  const std::string path = temp_path("script");
  std::uint64_t state = 0x37;
  {
    SpeCaptureWriter w(path, {});
    w.perf().comm(4000, 4000, "spe-test");
    for (std::uint32_t i = 0; i < 4; ++i) w.buffer(random_buffer(state, 200).bytes, 4000, i, i);
    w.finish();
  }
  const SpeCaptureDecode d = decode_spe_capture(path);
  CHECK(d.problems.empty());
  CHECK(d.pmu_type == 8);
  CHECK(d.midr == 0x413FD0C1u);
  CHECK(d.encoding == DataSourceEncoding::neoverse);
  REQUIRE(d.samples.size() == 800);
  for (const Sample& s : d.samples) CHECK(s.pid == 4000);
  Aggregator agg;
  for (const Sample& s : d.samples) agg.add(s);
  const std::vector<QueryResult> ours = agg.evaluate(derived_event_queries());

  // f: l1d-miss/l1d-access, m: llc-miss/llc-access, t: tlb-miss/tlb-access,
  // b: branch-miss, a: remote-access, M: memory.
  const RunResult r = run_shell(perf + " script -i " + path + " --itrace=fmtbaM -F event 2>/dev/null");
  REQUIRE(r.exit_code == 0);
  std::map<std::string, std::uint64_t> perf_counts;
  std::istringstream in(r.out);
  for (std::string word; in >> word;)
    if (word.back() == ':') ++perf_counts[word.substr(0, word.size() - 1)];
  INFO(r.out.substr(0, 2000));
  const auto table = derived_event_table();
  std::size_t compared = 0;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].perf_event.empty()) continue;
    INFO(table[i].name << " = perf's " << table[i].perf_event);
    CHECK(ours[i].undecided == 0);
    CHECK(ours[i].count == perf_counts[std::string(table[i].perf_event)]);
    CHECK(ours[i].count > 0);
    ++compared;
  }
  CHECK(compared == 6);
  std::filesystem::remove(path);
}

TEST_CASE("perf script's SPE memory samples have tagop's addresses latencies and data sources", "[spe][perf]") {
  // perf synthesises a memory sample for each load and store: its ip, data
  // address, weight (the total latency) and a perf_mem_data_src that perf
  // builds from the Neoverse data source and the events
  // (arm__synth_data_source_neoverse()). tagop's read_data_src() reads that
  // value's conditions; where it and the SPE sample both decide a
  // condition, they must agree.
  const std::string perf = find_in_path("perf");
  REQUIRE_FALSE(perf.empty());
  const std::string path = temp_path("mem");
  std::uint64_t state = 0x3e3;
  {
    // pa_enable (config bit 1): perf record asks for PERF_SAMPLE_PHYS_ADDR then.
    SpeCaptureWriter w(path, {.config = 2});
    w.perf().comm(4000, 4000, "spe-test");
    w.buffer(random_buffer(state, 1500).bytes, 4000, 0, 0);
    w.finish();
  }
  const SpeCaptureDecode d = decode_spe_capture(path);
  std::vector<const Sample*> memory;
  for (const Sample& s : d.samples)
    if (s.conditions.contains(condition("load")) || s.conditions.contains(condition("store"))) memory.push_back(&s);
  const RunResult r =
      run_shell(perf + " script -i " + path + " --itrace=M -F hw:ip,addr,weight,data_src,phys_addr 2>/dev/null");
  REQUIRE(r.exit_code == 0);
  // "        7ffc0010      1a00101042 |OP LOAD|...|BLK  N/A             321           400100        12345000"
  static const std::regex line(
      R"(^\s*([0-9a-f]+)\s+([0-9a-f]+) \|.*\|BLK\s+\S+\s+(\d+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s*$)");
  std::istringstream in(r.out);
  std::size_t i = 0;
  std::map<std::string, std::size_t> decided;
  for (std::string text; std::getline(in, text);) {
    std::smatch m;
    INFO(text);
    REQUIRE(std::regex_match(text, m, line));
    REQUIRE(i < memory.size());
    const Sample& ours = *memory[i++];
    CHECK(std::stoull(m[4], nullptr, 16) == ours.ip);
    CHECK(std::stoull(m[1], nullptr, 16) == ours.data_linear);
    CHECK(std::stoull(m[3]) == ours.measures[measure("op.total_latency").index]);
    CHECK(std::stoull(m[5], nullptr, 16) == ours.data_physical);
    CHECK(ours.data_physical != 0);
    const std::uint64_t data_src = std::stoull(m[2], nullptr, 16);
    const DataSrcReading theirs = read_data_src(data_src);
    ConditionSet compared = theirs.observed & ours.observed;
    // perf writes a transfer from another core's cache (peer core 0x9,
    // local cluster 0xA, peer cluster 0xC) as an L2 or L3 hit with a peer
    // snoop (PERF_MEM_SNOOPX_PEER); read_data_src() reads the level, not
    // the peer snoop, so it says an L2 hit or src.l3 where SPE's data
    // source says another core's cache (src.cache, past the core's L2).
    const bool peer_snoop = (data_src >> PERF_MEM_SNOOPX_SHIFT) & PERF_MEM_SNOOPX_PEER;
    if (peer_snoop && !(data_src >> PERF_MEM_REMOTE_SHIFT & PERF_MEM_REMOTE_REMOTE)) {
      ++decided["peer snoop (known difference)"];
      compared.erase(ConditionSet{condition("src.cache"), condition("src.l3"), condition("l2.miss"),
                                  condition("nb.valid")});
    }
    for (Condition c : compared.members()) {
      INFO(c.name());
      CHECK(theirs.conditions.contains(c) == ours.conditions.contains(c));
      ++decided[std::string(c.name())];
    }
  }
  CHECK(i == memory.size());
  CHECK(memory.size() > 400);
  // The conditions both read, each decided on many samples.
  for (const char* name : {"load", "store", "dc.miss", "src.dram", "src.l3", "src.remote", "l2.miss",
                           "peer snoop (known difference)"}) {
    INFO(name);
    CHECK(decided[name] > 20);
  }
  std::filesystem::remove(path);
}
