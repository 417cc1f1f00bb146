// tagop diff: two synthetic captures with hand-computed shares, differences
// and z statistics; the errors (other events, a missing file); and perf
// diff's Baseline and Delta on two captures real perf record writes.

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <tagop/amd_ibs/perf_capture.hpp>
#include <tagop/perf_data_writer.hpp>

#include "../run_command.hpp"
#include "../software_event_attr.hpp"

using json = nlohmann::json;
namespace fs = std::filesystem;
using namespace tagop::perf_data;
using namespace tagop::amd_ibs;

namespace {

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("tagop-diff-" + std::to_string(::getpid()) + "-" + name)).string();
}

// cpu-clock samples (period 1000) in three libraries that are not on this
// machine: rows by module. With `page_faults`, a second event too.
std::string capture(const std::string& name, int in_a, int in_b, int in_c, bool page_faults = false) {
  const std::string path = temp(name);
  std::vector<WriterEvent> events = {
      {.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {7}, .name = "cpu-clock"}};
  if (page_faults)
    events.push_back({.attr = software_event_attr(PERF_COUNT_SW_PAGE_FAULTS, 1), .ids = {8}, .name = "page-faults"});
  PerfDataWriter w(path, events);
  w.comm(10, 10, "prog");
  const char* libs[] = {"/nonexistent/liba.so", "/nonexistent/libb.so", "/nonexistent/libc.so"};
  for (int i = 0; i < 3; ++i) w.mmap2(10, 10, 0x10000000 * (i + 1), 0x1000, 0, libs[i], {}, {}, misc_user);
  std::uint64_t time = 1;
  const int counts[] = {in_a, in_b, in_c};
  for (int i = 0; i < 3; ++i)
    for (int n = 0; n < counts[i]; ++n)
      w.sample(0, {.ip = 0x10000000u * (i + 1) + 0x10, .pid = 10, .tid = 10, .time = time++, .period = 1000});
  if (page_faults) w.sample(1, {.ip = 0x10000010, .pid = 10, .tid = 10, .time = time++, .period = 1});
  w.finish();
  return path;
}

// IBS op samples of two processes, "prog" and "other", at pids that
// differ between captures (as between runs), of a processor family.
std::string ibs_capture(const std::string& name, unsigned family, std::uint32_t pid, int prog, int other) {
  const std::string path = temp(name);
  IbsCaptureWriter w(path, {.family = family, .model = family == 0x10 ? 4u : 1u});
  std::uint64_t t = 1;
  for (const auto& [comm, offset, n] : {std::tuple{"prog", 0u, prog}, std::tuple{"other", 1u, other}}) {
    w.perf().comm(pid + offset, pid + offset, comm, true, {.pid = pid + offset, .tid = pid + offset, .time = t++});
    for (int i = 0; i < n; ++i) {
      IbsRegisters op;
      op.unit = IbsUnit::op;
      op.set(IbsRegister::IbsOpRip, 0x401000 + i);
      w.sample(op, pid + offset, pid + offset, 0, t++);
    }
  }
  w.finish();
  return path;
}

// The two-proportion z of the test, computed here from its definition.
double z_of(double a, double na, double b, double nb) {
  const double p = (a + b) / (na + nb);
  return (b / nb - a / na) / std::sqrt(p * (1 - p) * (1 / na + 1 / nb));
}

}  // namespace

TEST_CASE("diff of two synthetic captures: values, shares, deltas and the noise test by hand", "[diff]") {
  // A: 60, 30, 10 of 100 samples; B: 100, 60, 40 of 200.
  const std::string a = capture("a.data", 60, 30, 10), b = capture("b.data", 100, 60, 40);
  const RunResult r = run_tagop("diff " + a + " " + b + " --by module --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  REQUIRE(j["columns"].size() == 1);
  const json& c = j["columns"][0];
  CHECK(c["id"] == "cpu-clock");
  CHECK(c["total_a"] == 100000.0);
  CHECK(c["total_b"] == 200000.0);
  CHECK(c["samples_a"] == 100);
  CHECK(c["samples_b"] == 200);
  REQUIRE(c["rows"].size() == 3);
  // By |delta|: liba and libc move 10 points (by name), libb none.
  CHECK(c["rows"][0]["name"] == "liba.so");
  CHECK(c["rows"][1]["name"] == "libc.so");
  CHECK(c["rows"][2]["name"] == "libb.so");
  std::map<std::string, json> rows;
  for (const json& row : c["rows"]) rows[row["name"]] = row;
  const json& la = rows["liba.so"];
  CHECK(la["a"] == 60000.0);
  CHECK(la["b"] == 100000.0);
  CHECK(la["difference"] == 40000.0);
  CHECK(la["relative_percent"].get<double>() == Approx(200.0 / 3));  // 40000 / 60000
  CHECK(la["share_a"].get<double>() == Approx(60));
  CHECK(la["share_b"].get<double>() == Approx(50));
  CHECK(la["delta"].get<double>() == Approx(-10));
  // pooled 160/300: se = sqrt(0.5333 * 0.4667 * 0.015) = 0.06110; z = -0.1 / 0.06110
  CHECK(la["z"].get<double>() == Approx(-1.63663).epsilon(1e-4));
  CHECK(la["z"].get<double>() == Approx(z_of(60, 100, 100, 200)));
  CHECK(la["beyond_noise"] == false);
  CHECK(rows["libb.so"]["z"].get<double>() == Approx(0).margin(1e-12));
  CHECK(rows["libb.so"]["beyond_noise"] == false);
  // pooled 50/300: se = 0.045644; z = 0.1 / 0.045644 = 2.19089 > 1.96
  CHECK(rows["libc.so"]["z"].get<double>() == Approx(2.19089).epsilon(1e-4));
  CHECK(rows["libc.so"]["beyond_noise"] == true);
  CHECK(rows["libc.so"]["relative_percent"].get<double>() == Approx(300));

  SECTION("--sort z, --top, text and CSV") {
    const json z = json::parse(run_tagop("diff " + a + " " + b + " --by module --sort z --top 1 --json").out);
    REQUIRE(z["columns"][0]["rows"].size() == 1);
    CHECK(z["columns"][0]["rows"][0]["name"] == "libc.so");
    const RunResult text = run_tagop("diff " + a + " " + b + " --by module");
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("two-proportion z-test"));
    CHECK(std::regex_search(text.out, std::regex(R"(10\.00% +20\.00% +\+10\.00 +10000 +40000 +30000 )"
                                                 R"(+\+300\.00% +\+2\.19 +beyond +libc\.so)")));
    const RunResult csv = run_tagop("diff " + a + " " + b + " --by module --format csv");
    REQUIRE(csv.exit_code == 0);
    CHECK_THAT(csv.out, Catch::StartsWith("column,name,module,a,b,difference"));
    CHECK_THAT(csv.out,
               Catch::Contains("cpu-clock,libb.so,/nonexistent/libb.so,30000,60000,30000,100,30,30,0,30,60,0,no\n"));
  }
  SECTION("events matched as perf diff matches them; captures of other events, and a missing file, refused") {
    // B also has page-faults: cpu-clock is compared, page-faults said.
    const std::string more = capture("more.data", 1, 1, 1, true);
    const RunResult m = run_tagop("diff " + a + " " + more + " --by module");
    INFO(m.err);
    CHECK(m.exit_code == 0);
    CHECK_THAT(m.out, Catch::Contains("events compared (by type and config, as perf diff): cpu-clock\n") &&
                          Catch::Contains("not compared, only B has: page-faults\n"));
    fs::remove(more);
    // cpu-clock:ppp is cpu-clock (one type and config), and an event
    // without samples (perf record -a's dummy:HG) is left out.
    const std::string ppp = temp("ppp.data");
    {
      perf_event_attr dummy = software_event_attr(PERF_COUNT_SW_DUMMY, 1);
      PerfDataWriter w(ppp, {{.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {7}, .name = "cpu-clock:ppp"},
                             {.attr = dummy, .ids = {8}, .name = "dummy:HG"}});
      w.comm(10, 10, "prog");
      w.mmap2(10, 10, 0x10000000, 0x1000, 0, "/nonexistent/liba.so", {}, {}, misc_user);
      for (std::uint64_t t = 1; t <= 4; ++t)
        w.sample(0, {.ip = 0x10000010, .pid = 10, .tid = 10, .time = t, .period = 1000});
      w.finish();
    }
    const RunResult p = run_tagop("diff " + ppp + " " + a + " --by module --json");
    INFO(p.err);
    REQUIRE(p.exit_code == 0);
    const json pj = json::parse(p.out);
    CHECK(pj["events"]["matched"] == json::parse(R"([{"a": "cpu-clock:ppp", "b": "cpu-clock"}])"));
    CHECK(pj["events"]["without_samples_a"] == json::array({"dummy:HG"}));
    CHECK(pj["events"]["only_a"].empty());
    CHECK(pj["columns"][0]["samples_a"] == 4);
    CHECK(pj["columns"][0]["samples_b"] == 100);
    const RunResult pt = run_tagop("diff " + ppp + " " + a + " --by module");
    CHECK_THAT(pt.out, Catch::Contains("events compared (by type and config, as perf diff): A cpu-clock:ppp with B "
                                       "cpu-clock\n") &&
                           Catch::Contains("not compared, without samples (as perf report hides them): A dummy:HG\n"));
    // Nothing in common: refused, each side's events named.
    const std::string faults = temp("faults.data");
    {
      PerfDataWriter w(faults, {{.attr = software_event_attr(PERF_COUNT_SW_PAGE_FAULTS, 1), .ids = {8}, .name = "page-faults"}});
      w.sample(0, {.ip = 0x10000010, .pid = 10, .tid = 10, .time = 1, .period = 1});
      w.finish();
    }
    const RunResult e = run_tagop("diff " + a + " " + faults);
    CHECK(e.exit_code == 1);
    CHECK_THAT(e.err, Catch::Contains("no event of A") && Catch::Contains("A has cpu-clock; B has page-faults"));
    fs::remove(faults);
    fs::remove(ppp);
    const RunResult missing = run_tagop("diff " + a + " " + temp("missing.data"));
    CHECK(missing.exit_code == 1);
    CHECK_THAT(missing.err, Catch::Contains("B (" + temp("missing.data") + ")"));
    const RunResult sort = run_tagop("diff " + a + " " + b + " --sort nope");
    CHECK(sort.exit_code == 2);
    CHECK_THAT(sort.err, Catch::Contains("--sort 'nope'"));
    const RunResult thread = run_tagop("diff " + a + " " + b + " --by thread");
    CHECK(thread.exit_code == 2);
    CHECK_THAT(thread.err, Catch::Contains("threads have different ids"));
  }
  fs::remove(a);
  fs::remove(b);
}

TEST_CASE("diff of IBS captures: processes matched by name, and another processor refused", "[diff][ibs]") {
  const std::string a = ibs_capture("ibs-a.data", 0x10, 7, 8, 2), b = ibs_capture("ibs-b.data", 0x10, 70, 5, 5);
  const RunResult r = run_tagop("diff " + a + " " + b + " --by process --events 0xF100 --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j["ibs"] == true);
  REQUIRE(j["columns"].size() == 1);
  const json& rows = j["columns"][0]["rows"];
  REQUIRE(rows.size() == 2);
  // 8 of 10 ops -> 5 of 10: delta -30 points; pooled 13/20,
  // se = sqrt(0.65 * 0.35 * 0.2) = 0.21331, z = -0.3 / 0.21331 = -1.4064.
  CHECK(rows[0]["name"] == "other");  // +30 and -30: by name
  CHECK(rows[1]["name"] == "prog");
  CHECK(rows[1]["a"] == 8.0);
  CHECK(rows[1]["b"] == 5.0);
  CHECK(rows[1]["delta"].get<double>() == Approx(-30));
  CHECK(rows[1]["z"].get<double>() == Approx(-1.4064).epsilon(1e-4));
  CHECK(rows[1]["beyond_noise"] == false);
  CHECK(rows[0]["z"].get<double>() == Approx(1.4064).epsilon(1e-4));

  const std::string zen = ibs_capture("ibs-zen.data", 0x19, 7, 8, 2);
  const RunResult other = run_tagop("diff " + a + " " + zen);
  CHECK(other.exit_code == 1);
  CHECK_THAT(other.err, Catch::Contains("processors differ") && Catch::Contains(zen));
  const RunResult mixed = run_tagop("diff " + a + " " + capture("plain.data", 1, 1, 1));
  CHECK(mixed.exit_code == 1);
  CHECK_THAT(mixed.err, Catch::Contains("IBS events"));
  for (const std::string& f : {a, b, zen, temp("plain.data")}) fs::remove(f);
}

TEST_CASE("diff against perf diff's Baseline and Delta on two perf record captures", "[diff][perf]") {
  if (run_shell("perf record -q -o /dev/null -e cpu-clock -- true").exit_code != 0) {
    WARN("perf cannot record here: tagop diff is not compared with perf diff");
    return;
  }
  const std::string a = temp("perf-a.data"), b = temp("perf-b.data");
  for (const auto& [file, split] : {std::pair{a, "0.3 sha1sum /dev/zero; timeout 0.15"},
                                    std::pair{b, "0.15 sha1sum /dev/zero; timeout 0.3"}}) {
    const RunResult rec = run_shell("perf record -q -o " + file + " -e cpu-clock -c 100000 -- sh -c 'timeout " +
                                    split + " md5sum /dev/zero; true'");
    INFO(rec.err);
    REQUIRE(rec.exit_code == 0);
  }
  const RunResult perf = run_shell("perf diff " + a + " " + b + " --sort dso,sym");
  REQUIRE(perf.exit_code == 0);
  // A then B on one thread, and both at once (as by default on an idle
  // machine): the same answer, perf diff's.
  for (const char* threads : {"1", "2"}) {
    INFO("--threads " << threads);
    const RunResult t = run_tagop("diff " + a + " " + b + " --json --top 0 --threads " + threads);
    INFO(t.err);
    REQUIRE(t.exit_code == 0);
    const json j = json::parse(t.out);
    std::map<std::pair<std::string, std::string>, json> rows;  // (module's base name, name)
    for (const json& row : j["columns"][0]["rows"]) {
      std::string module = row["module"];
      module = module.substr(module.rfind('/') + 1);
      rows[{module, row["name"]}] = row;
    }
    // "    55.45%    -14.34%  sha1sum     [.] name": perf leaves the Baseline
    // blank for a row only B has. Its unnamed addresses (0x...) are left out,
    // and so are PLT stubs ("sigemptyset@plt"): perf 6.1 names them in the
    // order of their relocations, which in libc is not theirs (its ifuncs'
    // stubs come first), where tagop reads each stub's jump as objdump does
    // (user_symbols_report_test.cpp compares the stubs).
    const std::regex line(R"(^ +(?:([\d.]+)%)? +([+-][\d.]+)% +(\S+) +\[.\] (.*\S) *$)");
    std::istringstream lines(perf.out);
    std::smatch m;
    std::size_t compared = 0;
    for (std::string l; std::getline(lines, l);) {
      if (!std::regex_match(l, m, line) || std::string(m[4]).starts_with("0x") || std::string(m[4]).ends_with("@plt"))
        continue;
      INFO(l);
      const auto it = rows.find({m[3], m[4]});
      REQUIRE(it != rows.end());
      CHECK(it->second["delta"].get<double>() == Approx(std::stod(m[2])).margin(0.0051));
      if (m[1].matched) CHECK(it->second["share_a"].get<double>() == Approx(std::stod(m[1])).margin(0.0051));
      ++compared;
    }
    CHECK(compared >= 5);
  }
  fs::remove(a);
  fs::remove(b);
}

TEST_CASE("diff compares the pairs perf diff compares: cpu-clock:ppp with cpu-clock, and perf record -a",
          "[diff][perf]") {
  if (run_shell("perf record -q -o /dev/null -e cpu-clock -- true").exit_code != 0) {
    WARN("perf cannot record here: tagop diff's events are not compared with perf diff's");
    return;
  }
  const std::string plain = temp("plain.data"), ppp = temp("ppp-perf.data"), wide = temp("wide.data");
  for (const auto& [file, options] : {std::pair{plain, "-e cpu-clock -- sha1sum -"}, std::pair{ppp, "-e cpu-clock:ppp -- sha1sum -"}}) {
    const RunResult rec = run_shell(fmt::format("head -c 20000000 /dev/zero | perf record -q -o {} {}", file, options));
    INFO(rec.err);
    REQUIRE(rec.exit_code == 0);
  }
  // perf diff's sections ("# Event 'NAME'", A's name) that have rows.
  auto perf_events = [](const std::string& a, const std::string& b) {
    const RunResult perf = run_shell("perf diff " + a + " " + b + " 2>/dev/null");
    REQUIRE(perf.exit_code == 0);
    std::vector<std::string> events;
    std::istringstream lines(perf.out);
    std::smatch m;
    std::string section;
    const std::regex event(R"(^# Event '(.*)'$)"), row(R"(^ +.*%.*\[[.k]\] .*$)");
    for (std::string l; std::getline(lines, l);) {
      if (std::regex_match(l, m, event)) section = m[1];
      else if (!section.empty() && std::regex_match(l, row)) {
        events.push_back(section);
        section.clear();
      }
    }
    return events;
  };
  auto tagop_events = [](const std::string& a, const std::string& b) {
    const RunResult t = run_tagop("diff " + a + " " + b + " --json --top 1");
    INFO(t.err);
    REQUIRE(t.exit_code == 0);
    std::vector<std::string> events;
    const json j = json::parse(t.out);
    for (const json& m : j["events"]["matched"]) events.push_back(m["a"]);
    return events;
  };
  CHECK(perf_events(ppp, plain) == std::vector<std::string>{"cpu-clock:ppp"});
  CHECK(tagop_events(ppp, plain) == perf_events(ppp, plain));
  CHECK(tagop_events(plain, ppp) == perf_events(plain, ppp));
  if (run_shell("perf record -q -a -o " + wide + " -e cpu-clock -- sleep 0.1").exit_code == 0) {
    CHECK(perf_events(plain, wide) == std::vector<std::string>{"cpu-clock"});
    CHECK(tagop_events(plain, wide) == perf_events(plain, wide));
    CHECK(tagop_events(wide, plain) == perf_events(wide, plain));
  } else {
    WARN("perf cannot record system-wide here: perf record -a captures are not diffed");
  }
  for (const std::string& f : {plain, ppp, wide}) fs::remove(f);
}
