// `tagop spe` on captures written from hand-built packets: the totals, the
// rows, the samples as JSON lines and the packets, each against what the
// test wrote; damaged data and a file without SPE get clear messages.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <tagop/arm_spe/perf_capture.hpp>
#include <tagop/arm_spe/report.hpp>
#include <tagop/error.hpp>
#include <tagop/perf_data_writer.hpp>

#include "../../run_command.hpp"
#include "spe_bytes.hpp"

using namespace tagop;
using namespace tagop::arm_spe;
using namespace spe_bytes;

namespace {

std::string temp_path(const char* what) {
  return (std::filesystem::temp_directory_path() /
          ("tagop-spe-cli-" + std::string(what) + "-" + std::to_string(::getpid()) + ".data"))
      .string();
}

// 5 loads at 0x400100 (2 of them L1D refills from DRAM, latency 200 each;
// 3 hits, latency 4), 3 mispredicted branches at 0x400200, 1 store at
// 0x400300 that did not retire.
Buffer known_buffer() {
  Buffer b;
  for (int i = 0; i < 5; ++i) {
    const bool miss = i < 2;
    b.address(address_pc, Buffer::code_address(0x400100, 0, true));
    b.load();
    b.events(bit(retired) | bit(l1d_access) | (miss ? bit(l1d_refill) | bit(llc_access) | bit(llc_miss) : 0));
    b.data_source(miss ? 0xE : 0x0);
    b.address(address_data_virtual, 0x7f0000001000 + 64 * i);
    b.counter(counter_total_latency, miss ? 200 : 4);
    b.end();
  }
  for (int i = 0; i < 3; ++i) {
    b.address(address_pc, Buffer::code_address(0x400200, 0, true));
    b.branch(true, false);
    b.events(bit(retired) | bit(mispredicted));
    b.address(address_branch_target, Buffer::code_address(0x400280, 0, true));
    b.counter(counter_total_latency, 1);
    b.end();
  }
  b.address(address_pc, Buffer::code_address(0x400300, 0, true));
  b.store();
  b.events(bit(l1d_access));
  b.counter(counter_total_latency, 9);
  b.timestamp(123456);
  return b;
}

std::string write_known(const char* what, bool damage = false) {
  const std::string path = temp_path(what);
  SpeCaptureWriter w(path, {});
  w.perf().comm(700, 701, "spe-cli");
  Buffer b = known_buffer();
  if (damage) b.bytes.insert(b.bytes.begin() + 11, std::byte{0x05});  // in the first record, after its op type
  w.buffer(b.bytes, 701, 2);
  w.finish();
  return path;
}

// The value on the totals line of an event: "  SPE load ops   5".
std::string total_of(const std::string& out, const std::string& event) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  " + event + " ", 0) == 0) {
      std::istringstream words(line.substr(event.size() + 2));
      std::string value;
      words >> value;
      return value;
    }
  return "(none)";
}

}  // namespace

TEST_CASE("tagop spe totals derived events as the test wrote them", "[spe][cli]") {
  const std::string path = write_known("totals");
  const RunResult r = run_tagop("spe " + path);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("9 SPE records, 9 selected"));
  CHECK_THAT(r.out, Catch::Contains("MIDR 0x413fd0c1, data sources: Neoverse"));
  CHECK(total_of(r.out, "SPE load ops") == "5");
  CHECK(total_of(r.out, "SPE L1D refill loads") == "2");
  CHECK(total_of(r.out, "SPE loads from DRAM") == "2");
  CHECK(total_of(r.out, "SPE LLC refill loads") == "2");
  CHECK(total_of(r.out, "SPE mispredicted branches") == "3");
  CHECK(total_of(r.out, "SPE ops not retired") == "1");
  CHECK(total_of(r.out, "SPE store ops") == "1");
  // 2 x 200 + 3 x 4 + 3 x 1 + 9.
  CHECK(total_of(r.out, "SPE total latency") == "424");
  CHECK(total_of(r.out, "SPE L1D refill load latency") == "400");
  // The rows: the loads' address first (5 samples), then the branches'.
  const auto first = r.out.find("0x400100"), second = r.out.find("0x400200");
  CHECK(first != std::string::npos);
  CHECK(second != std::string::npos);
  CHECK(first < second);

  // tagop report reads samples, not AUX data: it says where to go.
  const RunResult report = run_tagop("report " + path);
  CHECK(report.exit_code != 0);
  CHECK_THAT(report.err, Catch::Contains("it holds Arm SPE data, which 'tagop spe " + path + "' reads"));

  const RunResult where = run_tagop("spe " + path + " --where 'load & !dc.miss'");
  CHECK_THAT(where.out, Catch::Contains("9 SPE records, 3 selected by 'load & !dc.miss'"));
  CHECK(total_of(where.out, "SPE load total latency") == "12");
  std::filesystem::remove(path);
}

TEST_CASE("tagop spe --json gives the same totals and rows as a record", "[spe][cli]") {
  const std::string path = write_known("json");
  const RunResult r = run_tagop("spe " + path + " --json --where 'load | branch'");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j.at("schema") == "tagop.spe/1");
  // The buffer known_buffer() wrote: 9 records, 5 loads and 3 branches selected.
  CHECK(j.at("records") == 9);
  CHECK(j.at("selected") == 8);
  CHECK(j.at("where") == "load | branch");
  CHECK(j.at("midr") == "0x413fd0c1");
  CHECK(j.at("data_sources") == "neoverse");
  const nlohmann::json& totals = j.at("totals");
  CHECK(totals.at("SPE load ops") == 5);
  CHECK(totals.at("SPE L1D refill loads") == 2);
  CHECK(totals.at("SPE mispredicted branches") == 3);
  CHECK(totals.at("SPE store ops") == 0);  // the store is not selected
  CHECK(totals.at("SPE total latency") == 2 * 200 + 3 * 4 + 3 * 1);
  REQUIRE(j.at("rows").size() == 2);
  CHECK(j.at("rows")[0].at("ip") == "0x400100");
  CHECK(j.at("rows")[0].at("samples") == 5);
  CHECK(j.at("rows")[0].at("values").at("SPE L1D refill loads") == 2);
  CHECK(j.at("rows")[1].at("ip") == "0x400200");
  CHECK(j.at("rows")[1].at("values").at("SPE mispredicted branches") == 3);
  // perf's name for the same samples is in the event list.
  bool l1d_miss = false;
  for (const auto& e : j.at("events")) l1d_miss |= e.value("perf_event", "") == "l1d-miss" && e.at("name") == "SPE L1D refill ops";
  CHECK(l1d_miss);
  CHECK(run_tagop("spe " + path + " --packets --json").exit_code == 2);
  std::filesystem::remove(path);
}

TEST_CASE("tagop spe --samples prints each sample's conditions and measures", "[spe][cli]") {
  const std::string path = write_known("samples");
  const RunResult r = run_tagop("spe " + path + " --samples --where 'branch | store'");
  REQUIRE(r.exit_code == 0);
  std::istringstream in(r.out);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  REQUIRE(lines.size() == 4);
  for (int i = 0; i < 3; ++i) {
    CHECK(lines[i]["ip"] == "0x400200");
    CHECK(lines[i]["branch_target"] == "0x400280");
    CHECK(lines[i]["pid"] == 700);
    CHECK(lines[i]["tid"] == 701);
    CHECK(lines[i]["cpu"] == 2);
    const auto& c = lines[i]["conditions"];
    CHECK(std::find(c.begin(), c.end(), "branch.mispredicted") != c.end());
    CHECK(lines[i]["measures"]["op.total_latency"] == 1);
  }
  CHECK(lines[3]["ip"] == "0x400300");
  CHECK(lines[3]["timestamp"] == 123456);
  const auto& c = lines[3]["conditions"];
  CHECK(std::find(c.begin(), c.end(), "op.not_retired") != c.end());
  const auto& n = lines[3]["not"];
  CHECK(std::find(n.begin(), n.end(), "dc.miss") != n.end());
  std::filesystem::remove(path);
}

TEST_CASE("tagop spe --packets and damaged data", "[spe][cli]") {
  const std::string path = write_known("damaged", true);
  const RunResult packets = run_tagop("spe " + path + " --packets");
  REQUIRE(packets.exit_code == 0);
  CHECK_THAT(packets.out, Catch::Contains("AUX buffer 0"));
  CHECK_THAT(packets.out, Catch::Contains("PC 0x400100 el0 ns=1"));
  CHECK_THAT(packets.out, Catch::Contains("0000000b: bad packet: unknown header byte 0x05"));
  CHECK_THAT(packets.out, Catch::Contains("TS 123456"));
  const RunResult totals = run_tagop("spe " + path);
  REQUIRE(totals.exit_code == 0);
  // The damaged byte is skipped; every record is still read.
  CHECK_THAT(totals.out, Catch::Contains("9 SPE records"));
  CHECK_THAT(totals.err, Catch::Contains("AUX buffer 0 at file offset"));
  CHECK_THAT(totals.err, Catch::Contains("byte 11: unknown header byte 0x05"));
  std::filesystem::remove(path);
}

TEST_CASE("tagop spe on a capture without SPE data says so", "[spe][cli]") {
  const std::string path = temp_path("nospe");
  {
    perf_data::WriterEvent e;
    e.attr.type = PERF_TYPE_SOFTWARE;
    e.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
    e.ids = {1};
    perf_data::PerfDataWriter w(path, {e});
    w.sample(0, {.ip = 0x1000, .pid = 1, .tid = 1});
    w.finish();
  }
  const RunResult r = run_tagop("spe " + path);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("no Arm SPE data"));
  CHECK_THROWS_WITH(report_spe_capture(path), Catch::Contains("no Arm SPE data"));
  std::filesystem::remove(path);
}

TEST_CASE("SPE captures cut at any byte give records or a clear error", "[spe][cli]") {
  const std::string path = write_known("whole");
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = temp_path("cut");
  std::size_t decoded = 0, refused = 0;
  for (std::size_t size = 0; size < bytes.size(); size += 3) {
    std::ofstream(cut, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(size));
    try {
      const SpeCaptureDecode d = decode_spe_capture(cut);
      CHECK(d.records.size() <= 9);
      ++decoded;
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find(cut) != std::string::npos);
      ++refused;
    }
  }
  CHECK(refused > 0);
  CHECK(decoded + refused == (bytes.size() + 2) / 3);
  // The CLI says the same in words, with a non-zero exit and no crash.
  std::ofstream(cut, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  const RunResult r = run_tagop("spe " + cut);
  CHECK(r.exit_code < 128);
  if (r.exit_code != 0) CHECK_THAT(r.err, Catch::StartsWith("tagop"));
  std::filesystem::remove(cut);
  std::filesystem::remove(path);
}

TEST_CASE("tagop program arm-spe prints the filters of a predicate or an SPE event", "[spe][cli]") {
  // load_filter (config bit 33), ts_enable (0), jitter (16); L1D refill
  // (config1 bit 3); min_latency 64 in config2.
  const RunResult p = run_tagop("program arm-spe 'load & dc.miss' --min-latency 64 --json");
  REQUIRE(p.exit_code == 0);
  const auto j = nlohmann::json::parse(p.out);
  CHECK(j["perf_event_attrs"][0]["pmu"] == "arm_spe_0");
  CHECK(j["perf_event_attrs"][0]["config"] == "0x200010001");
  CHECK(j["perf_event_attrs"][0]["config1"] == "0x8");
  CHECK(j["perf_event_attrs"][0]["config2"] == "0x40");
  // perf's event name: loads and stores (bits 33 and 34), L1D refill.
  const RunResult e = run_tagop("program arm-spe l1d-miss --no-jitter --no-timestamps --json");
  REQUIRE(e.exit_code == 0);
  CHECK(nlohmann::json::parse(e.out)["perf_event_attrs"][0]["config"] == "0x600000000");
  const RunResult bad = run_tagop("program arm-spe 'load &'");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("neither an SPE event nor a predicate"));
}
