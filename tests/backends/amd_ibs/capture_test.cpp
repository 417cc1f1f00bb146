// IbsCapture on Zen captures: the sample's address when IbsRipInvalid is
// set (the record's own, not exact, as Linux's perf_ibs_handle_irq writes
// it), payloads whose caps word disagrees with them (a warning each, said
// once, and what can be decoded is), families with no IBS layout.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <tagop/amd_ibs/perf_capture.hpp>
#include <tagop/error.hpp>
#include <tagop/perf_data_reader.hpp>

#include "../../run_command.hpp"
#include "decoded_samples.hpp"

using namespace tagop;
using namespace tagop::amd_ibs;
using namespace tagop::perf_data;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tagop-capture-" + std::to_string(::getpid()) + "-" + name)).string();
}

constexpr std::uint64_t bit(unsigned n) { return std::uint64_t{1} << n; }

IbsRegisters load_op(std::uint64_t rip, std::uint64_t data) {
  IbsRegisters op;
  op.unit = IbsUnit::op;
  op.set(IbsRegister::IbsOpRip, rip);
  op.set(IbsRegister::IbsOpData, data);
  op.set(IbsRegister::IbsOpData3, 1 | bit(7) | bit(20));
  return op;
}

}  // namespace

TEST_CASE("an op whose IbsRipInvalid is set has the record's own address, not exact", "[ibs][perfdata]") {
  const std::string path = temp_path("rip.data");
  {
    IbsCaptureWriter w(path, {.family = 0x19, .model = 0x11});
    w.sample(load_op(0x401234, 0), 7, 7, 0, 1, 0x401999);
    // IbsOpRip holds garbage; Linux gives the sample the interrupted address.
    w.sample(load_op(0xdeadbeef, bit(38)), 7, 7, 0, 2, 0x402000);
    w.finish();
  }
  PerfDataReader reader(path);
  const IbsCapture capture(reader.info());
  DecodedSamples d(capture);
  reader.read(d);
  REQUIRE(d.samples.size() == 2);
  CHECK(d.samples[0].ip == 0x401234);
  CHECK(d.samples[0].ip_exact);
  CHECK(d.samples[1].ip == 0x402000);
  CHECK_FALSE(d.samples[1].ip_exact);
  CHECK(d.samples[1].conditions.contains(condition("op.rip_invalid")));
  // The decoder alone, without the record: no address, not exact.
  const Sample alone = capture.decoder().decode(load_op(0xdeadbeef, bit(38)));
  CHECK(alone.ip == 0);
  CHECK_FALSE(alone.ip_exact);
  std::filesystem::remove(path);
}

TEST_CASE("tagop report attributes a RipInvalid op to the interrupted address", "[ibs][cli]") {
  const std::string path = temp_path("rip-report.data");
  {
    IbsCaptureWriter w(path, {.family = 0x17, .model = 0x31});
    w.perf().comm(7, 7, "prog");
    w.perf().mmap2(7, 7, 0x400000, 0x10000, 0, "/opt/prog");
    // Many ops at one address, then RipInvalid ops whose IbsOpRip is 0 but
    // whose interrupted address is inside the module.
    for (int i = 0; i < 40; ++i) w.sample(load_op(0x401000, 0), 7, 7, 0, static_cast<std::uint64_t>(i), 0);
    for (int i = 0; i < 10; ++i) w.sample(load_op(0, bit(38)), 7, 7, 0, static_cast<std::uint64_t>(100 + i), 0x408000);
    w.finish();
  }
  const RunResult r = run_tagop("report " + path + " --by address --json");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("prog+0x1000") && Catch::Contains("prog+0x8000"));
  CHECK_THAT(r.out, !Catch::Contains("[unknown]+0x0"));
  std::filesystem::remove(path);
}

TEST_CASE("payloads whose caps word disagrees are warned about once each, and decoded as far as is safe",
          "[ibs][perfdata]") {
  const std::string path = temp_path("caps.data");
  {
    IbsCaptureWriter w(path, {.family = 0x19, .model = 0x01});
    w.sample(load_op(0x401000, 0), 1, 1, 0, 1);
    // Hand-made op payloads, after a good one: seven fixed registers with
    // IbsOpData3 (the fifth) a load that missed the DC and the L2.
    auto payload = [](std::uint32_t caps_word, std::size_t registers) {
      std::vector<std::byte> raw(4 + 8 * registers, std::byte{0});
      std::memcpy(raw.data(), &caps_word, 4);
      const std::uint64_t ctl = bit(17) | bit(18) | 0x1000, data3 = 1 | bit(7) | bit(20);
      std::memcpy(raw.data() + 4, &ctl, 8);
      std::memcpy(raw.data() + 4 + 8 * 4, &data3, 8);
      return raw;
    };
    auto put = [&](const std::vector<std::byte>& raw, std::uint64_t time) {
      w.perf().sample(1, {.ip = 0x401000, .pid = 1, .tid = 1, .time = time, .cpu = 0, .period = 0x10000, .raw = raw});
    };
    put(payload(0x3ff, 7), 2);   // BrnTrgt announced, IbsBrTarget missing: shorter
    put(payload(0x3ff, 9), 3);   // two registers more than announced: longer
    put(payload(0x0, 8), 4);     // no IBSFFV, no OpSam: not Linux's
    put(payload(0xbff, 8), 5);   // Zen 4's layout bit on a Zen 3 model
    put(payload(0x3ff, 7), 6);   // shorter again: not said twice
    w.finish();
  }
  PerfDataReader reader(path);
  const IbsCapture capture(reader.info());
  DecodedSamples d(capture);
  reader.read(d);
  CHECK(d.problems.empty());
  REQUIRE(d.samples.size() == 6);
  for (const Sample& s : d.samples) {
    CHECK(s.conditions.contains(condition("load")));
    CHECK(s.conditions.contains(condition("l2.miss")));
  }
  const auto& w = capture.warnings();
  std::string all;
  for (const std::string& line : w) all += line + "\n";
  INFO(all);
  auto count = [&](const std::string& text) {
    return std::count_if(w.begin(), w.end(), [&](const std::string& s) { return s.find(text) != std::string::npos; });
  };
  CHECK(count("announces 68: the optional registers it lacks are read as absent") == 1);
  CHECK(count("announces 68: the last 8 bytes are ignored") == 1);
  CHECK(count("lacks IBSFFV or OpSam") == 1);
  CHECK(count("in Zen4Ext (bit 11), which change the layout") == 1);
  CHECK(count("differs from the capture's first sample's (0x3ff)") == 1);
  // Each names the record's offset in the file.
  CHECK(count("IBS sample at offset ") == static_cast<long>(w.size()));
  std::filesystem::remove(path);
}

TEST_CASE("a capture from a family with no IBS layout is refused, naming the ones that have one", "[ibs][perfdata]") {
  const std::string path = temp_path("family.data");
  {
    IbsCaptureWriter w(path, {.family = 0x10, .model = 4});
    w.finish();
  }
  PerfDataReader reader(path);
  FileInfo info = reader.info();
  info.cpuid = "AuthenticAMD,255,1,0";
  CHECK_THROWS_WITH(IbsCapture(info), Catch::Contains("family 0xff has no Instruction-Based Sampling layout") &&
                                          Catch::Contains("1Ah (Zen 5, Zen 6)") && Catch::Contains("HEADER_CPUID") &&
                                          Catch::Contains("--family"));
  info.cpuid = "AuthenticAMD,20,1,0";  // Family 14h, Bobcat: no IBS
  CHECK_THROWS_WITH(IbsCapture(info), Catch::Contains("family 0x14 has no"));
  // Hygon's Dhyana (Family 18h) has AMD's IBS.
  info.cpuid = "HygonGenuine,24,0,1";
  CHECK(IbsCapture(info).cpu().family == 0x18);
  std::filesystem::remove(path);
}
