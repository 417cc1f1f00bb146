// The process table behind report rows, and the estimates' interval.

#include <catch2/catch.hpp>

#include <cmath>

#include <tagop/error.hpp>
#include <tagop/estimate.hpp>
#include <tagop/process_table.hpp>

using namespace tagop;
using namespace tagop::perf_data;

namespace {

MmapRecord map(std::uint32_t pid, std::uint64_t start, std::uint64_t len, std::uint64_t pgoff, std::string_view file) {
  MmapRecord m;
  m.pid = m.tid = pid;
  m.start = start;
  m.len = len;
  m.pgoff = pgoff;
  m.filename = file;
  m.misc = misc_user;
  return m;
}

}  // namespace

TEST_CASE("the process table follows mmaps, forks and comms", "[perfdata]") {
  ProcessTable t;
  t.add_build_ids({{.pid = -1, .cpumode = misc_user, .build_id = "abcd", .filename = "/bin/a"}});
  t.comm({.offset = 0, .pid = 10, .tid = 10, .exec = true, .comm = "a", .id = {}});
  t.mmap(map(10, 0x400000, 0x1000, 0x2000, "/bin/a"));
  t.mmap(map(10, 0x500000, 0x1000, 0, "/lib/b.so"));
  const Mapping* m = t.find(10, 0x400010);
  REQUIRE(m);
  CHECK(m->file_offset(0x400010) == 0x2010);
  CHECK(t.modules()[m->module].filename == "/bin/a");
  CHECK(t.modules()[m->module].build_id == "abcd");  // from HEADER_BUILD_ID
  CHECK_FALSE(t.find(10, 0x401000));                 // one past the end
  CHECK_FALSE(t.find(11, 0x400010));                 // another process

  // A fork shares the parent's maps and name until the child maps its own.
  t.task({.offset = 0, .fork = true, .pid = 11, .ppid = 10, .tid = 11, .ptid = 10, .time = 0, .id = {}});
  CHECK(t.comm_of(11) == "a");
  REQUIRE(t.find(11, 0x500000));
  t.mmap(map(11, 0x400800, 0x1000, 0, "/bin/c"));  // overlaps /bin/a in the child only
  CHECK(t.modules()[t.find(11, 0x400900)->module].filename == "/bin/c");
  CHECK_FALSE(t.find(11, 0x400010));  // the overlapped mapping is gone in the child
  CHECK(t.modules()[t.find(10, 0x400900)->module].filename == "/bin/a");  // the parent keeps it

  // Kernel mappings (pid -1) serve every process.
  MmapRecord k = map(0xFFFFFFFF, 0xffffffff81000000, 0x1000000, 0, "[kernel.kallsyms]_text");
  k.misc = misc_kernel;
  t.mmap(k);
  REQUIRE(t.find(10, 0xffffffff81000100));
  CHECK(t.modules()[t.find(10, 0xffffffff81000100)->module].kernel);
  // A thread's COMM does not rename its process.
  t.comm({.offset = 0, .pid = 10, .tid = 12, .exec = false, .comm = "worker", .id = {}});
  CHECK(t.comm_of(10) == "a");
  CHECK(t.comm_of(99).empty());
}

TEST_CASE("estimates: samples times the period, Poisson score interval", "[perfdata]") {
  const double z = 1.959963984540054;
  const Estimate e = estimate_from_samples(100, 1000);
  CHECK(e.value == 100000);
  // 100 + z^2/2 -+ z * sqrt(100 + z^2/4) = 101.92 -+ 19.69
  CHECK(e.low == Approx((100 + z * z / 2 - z * std::sqrt(100 + z * z / 4)) * 1000));
  CHECK(e.low == Approx(82230).epsilon(1e-3));
  CHECK(e.high == Approx(121611).epsilon(1e-3));
  const Estimate none = estimate_from_samples(0, 1000);
  CHECK(none.value == 0);
  CHECK(none.low == 0);
  CHECK(none.high == Approx(z * z * 1000));
}

TEST_CASE("estimates of parts sampled at different periods: moment-matched score interval", "[perfdata]") {
  const double z = 1.959963984540054;
  // One period: one Poisson count of all the samples, exactly the single estimate.
  const SampledPart same[] = {{100, 1000}, {50, 1000}};
  const Estimate one = estimate_from_parts(same);
  const Estimate merged = estimate_from_samples(150, 1000);
  CHECK(one.value == merged.value);
  CHECK(one.low == merged.low);
  CHECK(one.high == merged.high);
  CHECK(one.low == Approx(127839.45).epsilon(1e-6));  // by hand: (150 + z^2/2 - z sqrt(150 + z^2/4)) x 1000
  CHECK(one.high == Approx(176002.01).epsilon(1e-6));
  // Two periods: mean 100 x 1000 + 50 x 3000 = 250000, variance 100 x 1000^2
  // + 50 x 3000^2 = 5.5e8; effective period 5.5e8 / 250000 = 2200, count
  // 250000 / 2200 = 113.64; its score interval x 2200 (computed by hand).
  const SampledPart mixed[] = {{100, 1000}, {50, 3000}, {0, 500}};
  const Estimate two = estimate_from_parts(mixed);
  CHECK(two.value == 250000);
  CHECK(two.low == Approx(208066.55).epsilon(1e-6));
  CHECK(two.high == Approx(300384.66).epsilon(1e-6));
  // No samples: [0, z^2 x the largest period].
  const SampledPart none[] = {{0, 1000}, {0, 3000}};
  const Estimate zero = estimate_from_parts(none);
  CHECK(zero.value == 0);
  CHECK(zero.low == 0);
  CHECK(zero.high == Approx(z * z * 3000));
  CHECK(estimate_from_parts({}).high == 0);
  const SampledPart unknown[] = {{5, 0}};
  CHECK_THROWS_AS(estimate_from_parts(unknown), tagop::Error);
}
