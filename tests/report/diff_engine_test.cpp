// tagop/report/diff.hpp, the engine under `tagop diff`, through the C++
// API: the z-test against numbers worked by hand, and two reports of
// synthetic captures whose rows, shares and z are worked out here from
// the sample counts written.

#include <catch2/catch.hpp>

#include <unistd.h>  // getpid

#include <cstdint>     // std::uint32_t
#include <filesystem>  // temp_directory_path, remove
#include <map>         // std::map
#include <string>      // std::string
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <tagop/error.hpp>
#include <tagop/perf_data_reader.hpp>
#include <tagop/perf_data_writer.hpp>
#include <tagop/report/diff.hpp>
#include <tagop/report/report.hpp>

#include "../software_event_attr.hpp"

namespace fs = std::filesystem;
using namespace tagop::perf_data;
using namespace tagop::report;

namespace {

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("tagop-diff-engine-" + std::to_string(::getpid()) + "-" + name)).string();
}

// cpu-clock samples (period 1000) of process `pid` ("prog"): `per_lib[i]`
// in /nonexistent/lib{a,b,c}.so, which no machine has (rows by module).
std::string capture(const std::string& name, std::uint32_t pid, const std::vector<int>& per_lib) {
  const std::string path = temp(name);
  PerfDataWriter w(path, {{.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {7}, .name = "cpu-clock"}});
  w.comm(pid, pid, "prog");
  const char* libs[] = {"/nonexistent/liba.so", "/nonexistent/libb.so", "/nonexistent/libc.so"};
  for (std::uint64_t i = 0; i < 3; ++i) w.mmap2(pid, pid, 0x10000000 * (i + 1), 0x1000, 0, libs[i], {}, {}, misc_user);
  std::uint64_t time = 1;
  for (std::size_t i = 0; i < per_lib.size(); ++i)
    for (int n = 0; n < per_lib[i]; ++n)
      w.sample(0, {.ip = 0x10000000u * (i + 1) + 0x10, .pid = pid, .tid = pid, .time = time++, .period = 1000});
  w.finish();
  return path;
}

struct Pair {
  PerfDataReader reader_a, reader_b;
  Report a, b;
  Pair(const std::string& file_a, const std::string& file_b, GroupBy by)
      : reader_a(file_a), reader_b(file_b), a(reader_a, {.by = by}), b(reader_b, {.by = by}) {}
};

}  // namespace

TEST_CASE("two_proportion_z against hand-computed values", "[diff][report]") {
  // 10 of 100 against 20 of 100: pooled p = 30/200 = 0.15,
  // se = sqrt(0.15 * 0.85 * (1/100 + 1/100)) = 0.0504975, z = 0.1 / se.
  CHECK(two_proportion_z(10, 100, 20, 100) == Approx(1.98030).epsilon(1e-5));
  CHECK(two_proportion_z(20, 100, 10, 100) == Approx(-1.98030).epsilon(1e-5));
  // 30 of 40 against 20 of 40: p = 0.625, se = sqrt(0.625 * 0.375 * 0.05) = 0.108253.
  CHECK(two_proportion_z(30, 40, 20, 40) == Approx(-2.30940).epsilon(1e-5));
  // No samples on a side, or a pooled share of 0 or 1: no evidence either way.
  CHECK(two_proportion_z(0, 0, 5, 10) == 0);
  CHECK(two_proportion_z(0, 10, 0, 20) == 0);
  CHECK(two_proportion_z(10, 10, 20, 20) == 0);
}

TEST_CASE("diff_reports: rows of either capture, shares, z and the sorts, by hand", "[diff][report]") {
  // A: liba 30, libb 10 (of 40); B: liba 20, libc 20 (of 40).
  const std::string fa = capture("a.data", 10, {30, 10, 0}), fb = capture("b.data", 20, {20, 0, 20});
  {
    Pair p(fa, fb, GroupBy::module);
    const std::vector<Column> columns{resolve_event_column(p.a.query_names(), "cpu-clock")};
    std::vector<DiffColumn> table = diff_reports(p.a, p.b, columns);
    REQUIRE(table.size() == 1);
    DiffColumn& c = table.front();
    CHECK(c.counted);
    CHECK(c.total_a == 40000.0);
    CHECK(c.total_b == 40000.0);
    CHECK(c.samples_a == 40);
    CHECK(c.samples_b == 40);
    REQUIRE(c.rows.size() == 3);
    std::map<std::string, DiffRow> rows;
    for (const DiffRow& r : c.rows) rows[r.name] = r;
    const DiffRow& liba = rows.at("liba.so");
    CHECK(liba.module == "/nonexistent/liba.so");
    CHECK((liba.in_a && liba.in_b));
    CHECK(liba.a == 30000.0);
    CHECK(liba.b == 20000.0);
    CHECK(liba.difference() == -10000.0);
    CHECK(*liba.relative() == Approx(-100.0 / 3));
    CHECK(liba.share_a == Approx(75));
    CHECK(liba.share_b == Approx(50));
    CHECK(liba.delta() == Approx(-25));
    CHECK(*liba.z == Approx(-2.30940).epsilon(1e-5));
    CHECK(liba.beyond_noise);  // |z| > 1.96
    // Only in A: 0 in B. p = 10/80, se = sqrt(0.125 * 0.875 * 0.05) = 0.0739510, z = -0.25 / se.
    const DiffRow& libb = rows.at("libb.so");
    CHECK((libb.in_a && !libb.in_b));
    CHECK(libb.b == 0.0);
    CHECK(libb.samples_b == 0);
    CHECK(libb.difference() == -10000.0);
    CHECK(*libb.relative() == Approx(-100));
    CHECK(*libb.z == Approx(-3.38062).epsilon(1e-5));
    // Only in B: A is 0, so no relative change. p = 0.25, se = 0.0968246, z = 0.5 / se.
    const DiffRow& libc = rows.at("libc.so");
    CHECK((!libc.in_a && libc.in_b));
    CHECK(libc.a == 0.0);
    CHECK(!libc.relative());
    CHECK(libc.delta() == Approx(50));
    CHECK(*libc.z == Approx(5.16398).epsilon(1e-5));

    const auto order = [&c] {
      std::vector<std::string> names;
      for (const DiffRow& r : c.rows) names.push_back(r.name);
      return names;
    };
    // |delta|: libc 50, then liba and libb 25 each, by name.
    sort_diff_rows(c, DiffSort::delta);
    CHECK(order() == std::vector<std::string>{"libc.so", "liba.so", "libb.so"});
    sort_diff_rows(c, DiffSort::z);
    CHECK(order() == std::vector<std::string>{"libc.so", "libb.so", "liba.so"});
    // |relative|: libb 100%, liba 33%; libc has none and goes last.
    sort_diff_rows(c, DiffSort::relative);
    CHECK(order() == std::vector<std::string>{"libb.so", "liba.so", "libc.so"});
    // |difference|: 10000, 10000, 20000.
    sort_diff_rows(c, DiffSort::difference);
    CHECK(order() == std::vector<std::string>{"libc.so", "liba.so", "libb.so"});
  }
  SECTION("by process: the same name at another pid is the same row") {
    Pair p(fa, fb, GroupBy::process);
    const std::vector<Column> columns{resolve_event_column(p.a.query_names(), "cpu-clock")};
    const std::vector<DiffColumn> table = diff_reports(p.a, p.b, columns);
    REQUIRE(table.front().rows.size() == 1);
    const DiffRow& prog = table.front().rows.front();
    CHECK(prog.name == "prog");
    CHECK((prog.in_a && prog.in_b));
    CHECK(prog.a == 40000.0);
    CHECK(prog.b == 40000.0);
    CHECK(prog.delta() == Approx(0));
    CHECK(*prog.z == 0);  // every sample in the row on both sides
  }
  fs::remove(fa);
  fs::remove(fb);
}

TEST_CASE("match_events: by attr type and config as perf diff; events without samples left out", "[diff][report]") {
  // A: cpu-clock:ppp (3 samples in liba), task-clock (none), dummy:HG (none).
  // B: page-faults (2), cpu-clock (1 in liba, 1 in libb).
  const std::string fa = temp("match-a.data"), fb = temp("match-b.data");
  {
    PerfDataWriter w(fa, {{.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {7}, .name = "cpu-clock:ppp"},
                          {.attr = software_event_attr(PERF_COUNT_SW_TASK_CLOCK, 1000), .ids = {8}, .name = "task-clock"},
                          {.attr = software_event_attr(PERF_COUNT_SW_DUMMY, 1), .ids = {9}, .name = "dummy:HG"}});
    w.mmap2(5, 5, 0x10000000, 0x1000, 0, "/nonexistent/liba.so", {}, {}, misc_user);
    for (std::uint64_t t = 1; t <= 3; ++t) w.sample(0, {.ip = 0x10000010, .pid = 5, .tid = 5, .time = t, .period = 1000});
    w.finish();
  }
  {
    PerfDataWriter w(fb, {{.attr = software_event_attr(PERF_COUNT_SW_PAGE_FAULTS, 1), .ids = {7}, .name = "page-faults"},
                          {.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {8}, .name = "cpu-clock"}});
    w.mmap2(5, 5, 0x10000000, 0x1000, 0, "/nonexistent/liba.so", {}, {}, misc_user);
    w.mmap2(5, 5, 0x20000000, 0x1000, 0, "/nonexistent/libb.so", {}, {}, misc_user);
    w.sample(0, {.ip = 0x10000010, .pid = 5, .tid = 5, .time = 1, .period = 1});
    w.sample(0, {.ip = 0x10000010, .pid = 5, .tid = 5, .time = 2, .period = 1});
    w.sample(1, {.ip = 0x10000010, .pid = 5, .tid = 5, .time = 3, .period = 1000});
    w.sample(1, {.ip = 0x20000010, .pid = 5, .tid = 5, .time = 4, .period = 1000});
    w.finish();
  }
  {
    Pair p(fa, fb, GroupBy::module);
    const EventMatches m = match_events(p.a, p.reader_a.info(), p.b, p.reader_b.info());
    REQUIRE(m.matched.size() == 1);
    CHECK(m.matched[0].a == 0);
    CHECK(m.matched[0].b == 1);
    CHECK(m.matched[0].name_a == "cpu-clock:ppp");
    CHECK(m.matched[0].name_b == "cpu-clock");
    CHECK(m.only_a.empty());
    CHECK(m.only_b == std::vector<std::string>{"page-faults"});
    CHECK(m.empty_a == std::vector<std::string>{"task-clock", "dummy:HG"});
    CHECK(m.empty_b.empty());
    // The matched columns: A's cpu-clock:ppp against B's cpu-clock, whose
    // query is B's second.
    const std::vector<DiffColumn> table =
        diff_reports(p.a, p.b, {resolve_event_column(p.a.query_names(), "cpu-clock:ppp")},
                     {resolve_event_column(p.b.query_names(), "cpu-clock")});
    REQUIRE(table.size() == 1);
    CHECK(table[0].samples_a == 3);
    CHECK(table[0].samples_b == 2);
    std::map<std::string, double> share_b;
    for (const DiffRow& r : table[0].rows) share_b[r.name] = r.share_b;
    CHECK(share_b == std::map<std::string, double>{{"liba.so", 50.0}, {"libb.so", 50.0}});
    CHECK_THROWS_AS(diff_reports(p.a, p.b, {}, {}), tagop::Error);
  }
  fs::remove(fa);
  fs::remove(fb);
}
