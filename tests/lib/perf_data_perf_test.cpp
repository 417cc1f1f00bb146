// perf itself reads what the writer writes: `perf report -D` on a written
// IBS capture prints the IBS fields (tools/perf/util/amd-sample-raw.c does,
// when HEADER_CPUID says AuthenticAMD and HEADER_PMU_MAPPINGS names ibs_op
// and ibs_fetch), and they are the values put in the registers here.

#include <catch2/catch.hpp>

#include "run_command.hpp"

#include <cstdlib>     // std::getenv
#include <filesystem>
#include <regex>
#include <string>

#include <tagop/amd_ibs/perf_capture.hpp>

using namespace tagop::amd_ibs;

namespace {

bool has(const std::string& text, const std::string& pattern) { return std::regex_search(text, std::regex(pattern)); }

}  // namespace

TEST_CASE("perf report -D decodes the IBS fields of a written capture", "[perfdata][ibs]") {
  const std::string perf = find_in_path("perf");
  if (perf.empty()) {
    SUCCEED("perf is not installed: the cross-check with perf is skipped");
    return;
  }
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tagop-perf-" + std::to_string(::getpid()) + ".data")).string();
  {
    IbsCaptureWriter w(path, {.family = 0x10, .model = 4, .op_period = 0x20000});
    w.perf().comm(4242, 4242, "prog");
    w.perf().mmap2(4242, 4242, 0x400000, 0x10000, 0, "/usr/bin/prog");
    IbsRegisters op;
    op.unit = IbsUnit::op;
    op.set(IbsRegister::IbsOpRip, 0x401234);
    // IbsOpData: BrnRet (37), BrnMisp (36), TagToRetCtr 50 (31:16), CompToRetCtr 7.
    op.set(IbsRegister::IbsOpData, std::uint64_t{1} << 37 | std::uint64_t{1} << 36 | 50u << 16 | 7);
    // IbsOpData3: LdOp (0), DcMiss (7), DcLinAddrValid (17), DcMissLat 300 (47:32).
    op.set(IbsRegister::IbsOpData3, 1 | 1 << 7 | 1 << 17 | std::uint64_t{300} << 32);
    op.set(IbsRegister::IbsDcLinAd, 0x7fff0000);
    w.sample(op, 4242, 4242, 3, 1000);
    IbsRegisters fetch;
    fetch.unit = IbsUnit::fetch;
    // IbsFetchComp (50), IbsIcMiss (51), IbsFetchLat 77 (47:32).
    fetch.set(IbsRegister::IbsFetchCtl, std::uint64_t{1} << 50 | std::uint64_t{1} << 51 | std::uint64_t{77} << 32);
    fetch.set(IbsRegister::IbsFetchLinAd, 0x401000);
    w.sample(fetch, 4242, 4242, 2, 2000);
    w.finish();
  }
  const RunResult report = run_shell(perf + " report -D -i " + path);
  const std::string out = report.out + report.err;
  INFO(out);
  // The op: period 0x20000 is IbsOpMaxCnt 0x2000, which perf prints times 16.
  CHECK(has(out, R"(ibs_op_ctl:\s+[0-9a-f]{16} MaxCnt\s+131072 En 1 Val 1 CntCtl 1)"));
  CHECK(has(out, R"(IbsOpRip:\s+0000000000401234)"));
  CHECK(has(out, R"(ibs_op_data:\s+0000003000320007 CompToRetCtr\s+7 TagToRetCtr\s+50 .*OpBrnMisp 1 BrnRet 1)"));
  CHECK(has(out, R"(ibs_op_data3:\s+0000012c00020081 LdOp 1 StOp 0 .*DcMiss 1 .*DcLinAddrValid 1 .*DcMissLat\s+300)"));
  CHECK(has(out, R"(IbsDCLinAd:\s+000000007fff0000)"));
  // The fetch: 0x10000 is IbsFetchMaxCnt 0x1000; En (48) and Val (49) set by the writer.
  CHECK(has(out, R"(ibs_fetch_ctl:\s+000f004d00001000 MaxCnt\s+65536 Cnt\s+0 Lat\s+77 En 1 Val 1 Comp 1 IcMiss 1)"));
  CHECK(has(out, R"(IbsFetchLinAd:\s+0000000000401000)"));
  // The records around the samples.
  CHECK(has(out, R"(PERF_RECORD_COMM exec: prog:4242/4242)"));
  CHECK(has(out, R"(PERF_RECORD_MMAP2 4242/4242: \[0x400000\(0x10000\) @ 0 .*/usr/bin/prog)"));
  CHECK(has(out, R"(PERF_RECORD_SAMPLE\(IP, 0x4002\): 4242/4242: 0x401234 period: 131072)"));
  CHECK(has(out, R"(PERF_RECORD_SAMPLE\(IP, 0x4002\): 4242/4242: 0x401000 period: 65536)"));

  const RunResult scripted = run_shell(perf + " script -i " + path);
  const std::string script = scripted.out + scripted.err;
  INFO(script);
  CHECK(has(script, R"(prog\s+4242 \[003\] .*131072 ibs_op/cnt_ctl=1/:\s+401234)"));
  CHECK(has(script, R"(prog\s+4242 \[002\] .*65536\s+ibs_fetch//:\s+401000)"));
  std::filesystem::remove(path);
}
