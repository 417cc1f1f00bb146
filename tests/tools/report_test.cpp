// tagop report: on the bundled example (regenerated here, byte for byte),
// its JSON against totals computed from the example's model parameters,
// the filters, the row kinds, bad arguments and damaged files.

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <tagop/amd_ibs/perf_capture.hpp>
#include <tagop/page_keeper.hpp>
#include <tagop/perf_data_writer.hpp>

#include <tagop/predicate.hpp>

#include "run_command.hpp"
#include "software_event_attr.hpp"

#include "../../examples/ibs_example_model.hpp"

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  REQUIRE(v != nullptr);
  return v;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("tagop-report-" + std::to_string(::getpid()) + "-" + name)).string();
}

std::string example() { return env("TAGOP_SOURCE_ROOT") + "/examples/ibs-example.perf.data"; }

json report_json(const std::string& args) {
  const RunResult r = run_tagop("report " + args + " --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// Totals over the model's op and fetch kinds, computed from their flags.
struct ModelTotals {
  std::map<std::string, std::uint64_t> events;
  std::uint64_t ops = 0, fetches = 0;
};

ModelTotals model_totals(const std::function<bool(unsigned function)>& keep = {}) {
  using namespace ibs_example;
  ModelTotals t;
  auto add = [&](const char* id, bool yes, std::uint64_t n, std::uint64_t value = 1) {
    t.events[id] += yes ? n * value : 0;
  };
  for (const OpKind& k : op_kinds) {
    if (keep && !keep(k.function)) continue;
    const std::uint64_t n = k.count;
    const bool mem = k.load || k.store;
    t.ops += n;
    add("0xF100", true, n);
    add("0xF101", true, n, k.tag_to_retire);
    add("0xF102", true, n, k.comp_to_retire);
    add("0xF103", k.branch, n);
    add("0xF104", k.branch && k.mispredicted, n);
    add("0xF105", k.branch && k.taken, n);
    add("0xF106", k.branch && k.taken && k.mispredicted, n);
    add("0xF107", k.branch && k.ret, n);
    add("0xF108", k.branch && k.ret && k.mispredicted, n);
    add("0xF200", mem, n);
    add("0xF201", k.load, n);
    add("0xF202", k.store, n);
    add("0xF203", mem && !k.dtlb_l1_miss, n);
    add("0xF204", mem && k.dtlb_l1_miss && !k.dtlb_l2_miss, n);
    add("0xF205", mem && k.dtlb_l1_miss && k.dtlb_l2_miss, n);
    add("0xF206", mem && k.dc_miss, n);
    add("0xF207", mem && !k.dc_miss, n);
    add("0xF219", k.load && k.dc_miss, n, k.dc_miss_latency);
    const bool nb = k.load && k.dc_miss && k.nb_source != 0;
    add("0xF240", nb && !k.remote, n);
    add("0xF241", nb && k.remote, n);
    add("0xF242", nb && k.nb_source == 1 && !k.remote, n);
    add("0xF243", nb && k.nb_source == 2 && !k.remote, n);
    add("0xF245", nb && k.nb_source == 3 && !k.remote, n);
    add("0xF246", nb && k.nb_source == 3 && k.remote, n);
    add("0xF24B", nb && !k.remote, n, k.dc_miss_latency);
    add("0xF24C", nb && k.remote, n, k.dc_miss_latency);
  }
  for (const FetchKind& k : fetch_kinds) {
    if (keep && !keep(k.function)) continue;
    const std::uint64_t n = k.count;
    t.fetches += n;
    add("0xF000", true, n);
    add("0xF001", k.killed, n);
    add("0xF002", !k.killed, n);
    add("0xF003", k.completed, n);
    add("0xF004", !k.killed && !k.completed, n);
    add("0xF006", k.itlb_l1_miss && !k.itlb_l2_miss, n);
    add("0xF007", k.itlb_l1_miss && k.itlb_l2_miss, n);
    add("0xF008", k.ic_miss, n);
    add("0xF00E", !k.killed, n, k.latency);
  }
  return t;
}

std::size_t model_samples() {
  std::size_t n = 0;
  for (const auto& k : ibs_example::op_kinds) n += k.count;
  for (const auto& k : ibs_example::fetch_kinds) n += k.count;
  return n;
}

}  // namespace

TEST_CASE("the bundled example is what its generator writes", "[perfdata]") {
  const std::string out = temp("example.data");
  const std::string cmd = env("MAKE_IBS_EXAMPLE") + " " + out;
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string fresh = slurp(out), committed = slurp(example());
  CHECK(fresh.size() == committed.size());
  CHECK(fresh == committed);
  CHECK(committed.size() < 2u << 20);
  fs::remove(out);
}

TEST_CASE("report --json on the example: totals from the model", "[perfdata]") {
  const json j = report_json(example());
  const ModelTotals t = model_totals();
  CHECK(j["samples"]["fetch"] == t.fetches);
  CHECK(j["samples"]["op"] == t.ops);
  CHECK(j["cpu"]["family"] == 16);
  CHECK(j["period"]["op"]["value"] == 65536.0);
  CHECK(j["period"]["op"]["unit"] == "dispatched ops");
  REQUIRE(j["events"].size() == 59);  // every derived event, Family 10h reports them all
  for (const auto& [id, value] : j["events"].items()) {
    INFO(id);
    CHECK_FALSE(value.is_null());
  }
  for (const auto& [id, expected] : t.events) {
    INFO(id);
    CHECK(j["events"][id] == expected);
  }
  // Ratios, from the same totals.
  const auto& e = t.events;
  CHECK(j["ratios"]["dc_miss_rate"].get<double>() ==
        Approx(double(e.at("0xF206")) / double(e.at("0xF200"))));
  CHECK(j["ratios"]["mispredict_rate"].get<double>() == Approx(double(e.at("0xF104")) / double(e.at("0xF103"))));
  CHECK(j["ratios"]["avg_dc_miss_latency"].get<double>() ==
        Approx(double(e.at("0xF219")) / double(j["event_samples"]["0xF219"].get<std::uint64_t>())));
  CHECK(j["ratios"]["itlb_miss_rate"].get<double>() ==
        Approx(double(e.at("0xF006") + e.at("0xF007")) / double(e.at("0xF002"))));
  CHECK(j["ratios"]["avg_tag_to_retire"].get<double>() == Approx(double(e.at("0xF101")) / double(t.ops)));
  // The estimate: samples times the period, inside its interval.
  const json& dc = j["estimates"]["0xF206"];
  CHECK(dc["samples"] == e.at("0xF206"));
  CHECK(dc["estimate"].get<double>() == Approx(double(e.at("0xF206")) * 65536));
  CHECK(dc["low"].get<double>() < dc["estimate"].get<double>());
  CHECK(dc["high"].get<double>() > dc["estimate"].get<double>());
  // Poisson score interval for k = 1900, z = 1.96: 1900 + 1.92 +- 1.96 * sqrt(1900 + 0.96).
  CHECK(dc["low"].get<double>() == Approx((1901.92 - 1.959964 * std::sqrt(1900.96)) * 65536).epsilon(1e-5));
  CHECK(j["skipped"]["count"] == 0);
  CHECK(j["warnings"].empty());
  CHECK_THAT(j["estimate_note"].get<std::string>(), Catch::Contains("never"));
}

TEST_CASE("report rows: by module, by address, by process", "[perfdata]") {
  using namespace ibs_example;
  SECTION("module") {
    const json j = report_json(example() + " --by module --events 0xF100,0xF000,0xF206");
    REQUIRE(j["rows"].size() == 2);
    const ModelTotals program = model_totals([](unsigned f) { return functions[f].module == program_module; });
    const ModelTotals lib = model_totals([](unsigned f) { return functions[f].module == libc_module; });
    CHECK(j["rows"][0]["name"] == "ibs-example");
    CHECK(j["rows"][0]["module"] == ibs_example::program);
    CHECK(j["rows"][0]["values"]["0xF100"] == program.ops);
    CHECK(j["rows"][0]["values"]["0xF000"] == program.fetches);
    CHECK(j["rows"][0]["values"]["0xF206"] == program.events.at("0xF206"));
    CHECK(j["rows"][1]["name"] == "libc.so.6");
    CHECK(j["rows"][1]["values"]["0xF100"] == lib.ops);
  }
  SECTION("address, sorted by DC misses") {
    const json j = report_json(example() + " --by address --sort 0xF206 --top 2 --events 0xF206,0xF219");
    REQUIRE(j["rows"].size() == 2);
    // pointer_chase's load (offset 0x1304): 500 + 300 + 150 misses; stream_sum's (0x1208): 780 + 120.
    CHECK(j["rows"][0]["name"] == "ibs-example+0x1304");
    CHECK(j["rows"][0]["offset"] == "0x1304");
    CHECK(j["rows"][0]["values"]["0xF206"] == 950);
    CHECK(j["rows"][0]["values"]["0xF219"] == 500 * 480 + 300 * 560 + 150 * 140);
    CHECK(j["rows"][1]["name"] == "ibs-example+0x1208");
    CHECK(j["rows"][1]["values"]["0xF206"] == 900);
    std::set<std::pair<unsigned, std::uint64_t>> addresses;
    for (const auto& k : op_kinds) addresses.emplace(functions[k.function].module, k.offset);
    for (const auto& k : fetch_kinds) addresses.emplace(functions[k.function].module, k.offset);
    CHECK(j["row_count"] == addresses.size());
  }
  SECTION("process") {
    const json j = report_json(example() + " --by process");
    REQUIRE(j["rows"].size() == 1);
    CHECK(j["rows"][0]["name"] == "ibs-example [4242]");
    CHECK(j["rows"][0]["pid"] == 4242);
  }
  SECTION("cpu, and process with module: several keys at once") {
    // The generator puts sample n (fetch and op, in order) on CPU n / 7 % 4.
    std::map<std::string, std::uint64_t> expected;
    for (std::size_t n = 0; n < model_samples(); ++n) ++expected[std::to_string(n / 7 % 4)];
    const json cpu = report_json(example() + " --by cpu --events 0xF100,0xF000");
    CHECK(cpu["by"] == "cpu");
    std::map<std::string, std::uint64_t> rows;
    for (const json& row : cpu["rows"]) {
      rows[row["name"]] = row["values"]["0xF100"].get<std::uint64_t>() + row["values"]["0xF000"].get<std::uint64_t>();
      CHECK(row["cpu"] == std::stoul(row["name"].get<std::string>()));
    }
    CHECK(rows == expected);
    const json pm = report_json(example() + " --by process,module --events 0xF100,0xF000");
    CHECK(pm["keys"] == json::array({"process", "module"}));
    REQUIRE(pm["rows"].size() == 2);
    const ModelTotals program = model_totals([](unsigned f) { return functions[f].module == program_module; });
    CHECK(pm["rows"][0]["name"] == "ibs-example [4242]  ibs-example");
    CHECK(pm["rows"][0]["parts"] == json::array({"ibs-example [4242]", "ibs-example"}));
    CHECK(pm["rows"][0]["pid"] == 4242);
    CHECK(pm["rows"][0]["comm"] == "ibs-example");
    CHECK(pm["rows"][0]["module"] == ibs_example::program);
    CHECK(pm["rows"][0]["values"]["0xF100"] == program.ops);
    CHECK(pm["rows"][0]["values"]["0xF000"] == program.fetches);
    // The text's title names the keys.
    const RunResult text = run_tagop("report " + example() + " --by process,module");
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("2 rows by process, module") && Catch::Contains("ibs-example [4242]  libc.so.6"));
  }
}

TEST_CASE("report --help maps perf report's --sort keys onto --by", "[perfdata]") {
  const RunResult help = run_tagop("report --help");
  REQUIRE(help.exit_code == 0);
  // CLI11 wraps the text: its words, not its lines.
  std::string words;
  std::istringstream in(help.out);
  for (std::string w; in >> w;) words += w + " ";
  CHECK_THAT(words, Catch::Contains("comm -> process, pid or tid -> thread, dso -> module, sym -> function, srcline "
                                    "-> line, cpu -> cpu"));
  CHECK_THAT(words, Catch::Contains("--by process,module,function"));
}

TEST_CASE("report --by data and cacheline on the example: its data addresses are in no mapping", "[perfdata]") {
  // The model's loads and stores have IbsDcLinAddrValid and an address
  // in no mapping of the capture (0x7fffe0000000 up); every other op and
  // every fetch has no data address.
  std::uint64_t memory = 0, other = 0;
  for (const auto& k : ibs_example::op_kinds) (k.load || k.store ? memory : other) += k.count;
  for (const auto& k : ibs_example::fetch_kinds) other += k.count;
  const json j = report_json(example() + " --by data");
  CHECK(j["by"] == "data");
  std::map<std::string, std::uint64_t> rows;
  for (const json& row : j["rows"])
    rows[row["name"]] += row["values"]["0xF100"].get<std::uint64_t>() + row["values"]["0xF000"].get<std::uint64_t>();
  CHECK(rows == std::map<std::string, std::uint64_t>{{"[unknown]", memory}, {"[no data address]", other}});

  const RunResult text = run_tagop("report " + example() + " --by cacheline --top 3");
  INFO(text.err);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("rows by cacheline"));
  CHECK_THAT(text.out, Catch::Contains("as perf c2c report counts them"));
  CHECK_THAT(text.out, Catch::Contains("  [unknown]"));

  for (const char* bad : {"--by data,module", "--by cacheline --children", "--by function,data"}) {
    const RunResult r = run_tagop(fmt::format("report {} {}", example(), bad));
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("data") || Catch::Contains("cacheline"));
  }
  const RunResult help = run_tagop("report --help");
  CHECK_THAT(help.out, Catch::Contains("cacheline"));
  CHECK_THAT(help.out, Catch::Contains("[no data address]"));
}

TEST_CASE("report --where filters samples by any predicate", "[perfdata]") {
  const json j = report_json(example() + " --where 'load & dc.miss & !dtlb.l1_miss'");
  std::uint64_t expected = 0;
  for (const auto& k : ibs_example::op_kinds)
    if (k.load && k.dc_miss && !k.dtlb_l1_miss) expected += k.count;
  CHECK(j["samples"]["op"] == expected);
  CHECK(j["samples"]["fetch"] == 0);
  CHECK(j["where_undecided"] == model_totals().fetches);  // fetch samples know nothing of loads
  CHECK(j["where"] == tagop::Predicate::parse("load & dc.miss & !dtlb.l1_miss").to_string());
  CHECK(j["events"]["0xF206"] == expected);
}

TEST_CASE("report filters: --cpu, --pid, --comm", "[perfdata]") {
  const std::size_t total = model_samples();
  // The generator puts sample n on CPU n / 7 % 4.
  std::uint64_t on_cpu2 = 0;
  for (std::size_t n = 0; n < total; ++n) on_cpu2 += (n / 7 % 4 == 2);
  const json cpu = report_json(example() + " --cpu 2");
  CHECK(cpu["samples"]["fetch"].get<std::uint64_t>() + cpu["samples"]["op"].get<std::uint64_t>() == on_cpu2);
  CHECK(cpu["filters"] == json::array({"cpu 2"}));
  const json pid = report_json(example() + " --pid 4242");
  CHECK(pid["samples"]["op"] == model_totals().ops);
  const json other = report_json(example() + " --pid 1");
  CHECK(other["samples"]["op"] == 0);
  CHECK(other["rows"].empty());
  const json comm = report_json(example() + " --comm ibs-example");
  CHECK(comm["samples"]["fetch"] == model_totals().fetches);
  CHECK(report_json(example() + " --comm bash")["samples"]["fetch"] == 0);
}

TEST_CASE("report text and CSV", "[perfdata]") {
  const RunResult text = run_tagop("report " + example());
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("IBS samples: 2800 fetch, 7400 op"));
  CHECK_THAT(text.out, Catch::Contains("never to be added to"));
  CHECK_THAT(text.out, Catch::Contains("ibs-example+0x1304"));
  const RunResult csv = run_tagop("report " + example() + " --format csv --by module --events 0xF100,dc_miss_rate");
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out, Catch::StartsWith("module,path,0xF100,dc_miss_rate,overhead\nibs-example,/opt/ibs-example/bin/ibs-example,6900,"));
  CHECK_THAT(csv.out, Catch::Contains("\n[total],,7400,"));
}

TEST_CASE("report refuses bad arguments with exit status 2", "[perfdata]") {
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"--by nothing", "--by 'nothing'"},
      {"--by sym", "perf's sym is --by function"},
      {"--by function,line", "function and line together"},
      {"--by process,nothing", "'nothing' is not a key"},
      {"--sort sym", "--by function"},
      {"--sort comm,dso,sym", "--by process,module,function"},
      {"--by process,function --children", "--children with 2 keys"},
      {"--by process,function --html x.html", "--html"},
      {"--events 0xF999", "no IBS derived event 0xF999"},
      {"--events 'no such event'", "unknown column 'no such event'"},
      {"--view everything", "unknown view 'everything'"},
      {"--where 'load &'", "--where"},
      {"--where 'lod'", "lod"},
      {"--cpu x", "--cpu 'x' is not a number"},
      {"--model 2", "--model needs --family"},
      {"--format xml", "format"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const RunResult r = run_tagop("report " + example() + " " + c.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.message));
  }
  const RunResult missing = run_tagop("report /nonexistent.data");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("cannot open"));
}

TEST_CASE("report on a damaged capture: warning, surviving samples, --strict fails", "[perfdata]") {
  std::string bytes = slurp(example());
  // Cut the file inside its data: the features (CPUID, PMU mappings) go with it.
  const std::string cut = temp("cut.data");
  std::ofstream(cut, std::ios::binary).write(bytes.data(), 600000);
  const RunResult r = run_tagop("report " + cut + " --json --family 10h --model 4");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  const auto kept = j["samples"]["fetch"].get<std::uint64_t>() + j["samples"]["op"].get<std::uint64_t>();
  CHECK(kept > 4000);
  CHECK(kept < model_samples());
  CHECK(j["truncated"] == true);
  CHECK(j["skipped"]["count"] == 1);
  CHECK(j["cpu"]["source"] == "--family/--model");
  CHECK_THAT(r.err, Catch::Contains("warning") && Catch::Contains("truncated"));
  CHECK_THAT(j["warnings"].dump(), Catch::Contains("PMU mappings"));
  // Without the processor the layout is unknown.
  const RunResult no_family = run_tagop("report " + cut);
  CHECK(no_family.exit_code == 1);
  CHECK_THAT(no_family.err, Catch::Contains("--family"));
  const RunResult strict = run_tagop("report " + cut + " --family 10h --strict");
  CHECK(strict.exit_code == 1);
  CHECK_THAT(strict.err, Catch::Contains("--strict"));
  // Nothing usable: a file cut just after its attributes (104-byte header,
  // two ids, two attrs of 128 + 16 bytes), inside its first record.
  std::ofstream(cut, std::ios::binary).write(bytes.data(), 104 + 16 + 2 * (128 + 16) + 12);
  const RunResult empty = run_tagop("report " + cut + " --family 10h");
  CHECK(empty.exit_code == 1);
  CHECK_THAT(empty.err, Catch::Contains("no usable IBS samples"));
  fs::remove(cut);
}

TEST_CASE("report names functions and source lines from the modules' symbols", "[perfdata][symbols]") {
  // The non-PIE fixture of the symbols tests prints its probe's file offset
  // and line; a capture maps it and samples that offset.
  const std::string fixture = env("TAGOP_SYMBOLS_NOPIE_FIXTURE");
  std::istringstream printed(run_shell(fixture).out);
  unsigned long offset = 0;
  int line = 0;
  REQUIRE(printed >> std::hex >> offset >> std::dec >> line);
  const std::string capture = temp("symbols.data");
  const auto write = [&](const std::string& build_id) {
    tagop::amd_ibs::IbsCaptureWriter w(capture, {});
    w.perf().comm(7, 7, "fixture");
    const std::uint64_t start = 0x10000000;
    w.perf().mmap2(7, 7, start, 0x100000, 0, fixture, build_id);
    tagop::amd_ibs::IbsRegisters op;
    op.unit = tagop::amd_ibs::IbsUnit::op;
    op.set(tagop::amd_ibs::IbsRegister::IbsOpRip, start + offset);
    for (int i = 0; i < 3; ++i) w.sample(op, 7, 7, 0, i);
    op.set(tagop::amd_ibs::IbsRegister::IbsOpRip, start + 0xFFFF0);  // no symbol there
    w.sample(op, 7, 7, 0, 9);
    w.finish();
  };
  write("");
  const json by_function = report_json(capture + " --by function --events 0xF100");
  REQUIRE(by_function["rows"].size() == 2);
  CHECK(by_function["rows"][0]["name"] == "tagop_nopie_probe");
  CHECK(by_function["rows"][0]["values"]["0xF100"] == 3);
  CHECK(by_function["rows"][1]["name"] == fmt::format("module_symbols_nopie_fixture+{:#x}", 0xFFFF0));
  CHECK(by_function["warnings"].empty());
  const json by_line = report_json(capture + " --by line --events 0xF100");
  CHECK_THAT(by_line["rows"][0]["name"].get<std::string>(),
             Catch::EndsWith(fmt::format("module_symbols_nopie_fixture.cpp:{}", line)));

  // A build-id that is not the file's: not used, said once.
  write("00112233445566778899aabbccddeeff00112233");
  const RunResult r = run_tagop("report " + capture + " --json --by function --events 0xF100");
  REQUIRE(r.exit_code == 0);
  const json mismatch = json::parse(r.out);
  REQUIRE(mismatch["warnings"].size() == 1);
  CHECK_THAT(mismatch["warnings"][0].get<std::string>(), Catch::Contains("module_symbols_nopie_fixture") &&
                                                              Catch::Contains("module+offset"));
  CHECK(mismatch["rows"][0]["name"] == fmt::format("module_symbols_nopie_fixture+{:#x}", offset));
  std::size_t said = 0;
  for (std::size_t at = r.err.find("module_symbols_nopie_fixture is not used"); at != std::string::npos;
       at = r.err.find("module_symbols_nopie_fixture is not used", at + 1))
    ++said;
  CHECK(said == 1);
  fs::remove(capture);
}

TEST_CASE("report: the same result with any number of tallying threads", "[perfdata][threads]") {
  // The example is 10200 samples: a few batches, so that every thread works.
  for (const char* args : {"", " --by module", " --by process", " --by address", " --where 'load & dc.miss'",
                           " --cpu 2", " --comm ibs-example --top 0"}) {
    INFO(args);
    const json one = report_json(example() + args + " --threads 1");
    CHECK(report_json(example() + args + " --threads 2") == one);
    CHECK(report_json(example() + args + " --threads 5") == one);
    CHECK(report_json(example() + args) == one);  // one per CPU
  }
}

TEST_CASE("report: samples taken in place count as samples parsed in full", "[perfdata][threads]") {
  // Unfiltered, the report takes most samples in place, at the offsets of
  // an earlier one of the same shape (ReportBuilder::sample_in_place); a
  // filter, even one that keeps every sample (the example's are on CPUs 0
  // to 3), has each sample parsed and looked at in full.
  for (const char* args : {"", " --by module", " --by process", " --by address", " --where 'load & dc.miss'"}) {
    INFO(args);
    json in_place = report_json(example() + args);
    json parsed = report_json(example() + args + " --cpu 0 1 2 3");
    CHECK(parsed["filters"].size() == 4);
    for (json* j : {&in_place, &parsed}) j->erase("filters");
    CHECK(in_place == parsed);
  }
}

TEST_CASE("report: damaged IBS payloads are counted and the rest kept, whatever thread meets them",
          "[perfdata][threads]") {
  // Walk the example's records (the data section's offset is at byte 40 of
  // the header); in the 100th and the 5000th sample, make the raw size
  // field say 20 bytes: shorter than any IBS layout. The example's samples
  // are IDENTIFIER, IP, TID, TIME, CPU, PERIOD, then RAW's u32 size: at
  // byte 8 + 6 * 8 of the record.
  std::string bytes = slurp(example());
  auto u64_at = [&](std::size_t at) {
    std::uint64_t v = 0;
    std::memcpy(&v, bytes.data() + at, 8);
    return v;
  };
  std::uint64_t at = u64_at(40);
  const std::uint64_t end = at + u64_at(48);
  std::vector<std::uint64_t> damaged;
  for (std::size_t sample = 0; at < end;) {
    std::uint32_t type = 0;
    std::uint16_t size = 0;
    std::memcpy(&type, bytes.data() + at, 4);
    std::memcpy(&size, bytes.data() + at + 6, 2);
    REQUIRE(size >= 8);
    if (type == 9 && (++sample == 100 || sample == 5000)) {
      const std::uint32_t twenty = 20;
      std::memcpy(bytes.data() + at + 56, &twenty, 4);
      damaged.push_back(at);
    }
    at += size;
  }
  REQUIRE(damaged.size() == 2);
  const std::string file = temp("damaged-payloads.data");
  std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  for (const char* threads : {"1", "3"}) {
    INFO("threads " << threads);
    const RunResult r = run_tagop("report " + file + " --json --threads " + threads);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const json j = json::parse(r.out);
    CHECK(j["samples"]["fetch"].get<std::uint64_t>() + j["samples"]["op"].get<std::uint64_t>() ==
          model_samples() - 2);
    CHECK(j["skipped"]["count"] == 2);
    CHECK(j["skipped"]["first_offset"] == damaged[0]);
    CHECK_THAT(j["skipped"]["first_reason"].get<std::string>(), Catch::Contains("shorter than"));
    CHECK(run_tagop("report " + file + " --strict --threads " + threads).exit_code == 1);
  }
  fs::remove(file);
}

TEST_CASE("report on a long capture: 40 times the model, whatever the threads", "[perfdata][threads]") {
  // make-ibs-example repeats the model: 40 rounds are about 45 MB, long
  // enough for the reader's page keeper (page_keeper.hpp) to map pages
  // ahead and give them back behind, while the threads tally.
  const std::string file = temp("long.data");
  const std::size_t rounds = 40;
  const std::string cmd = env("MAKE_IBS_EXAMPLE") + " " + file + " --samples " + std::to_string(rounds * model_samples());
  REQUIRE(std::system(cmd.c_str()) == 0);
  REQUIRE(fs::file_size(file) > 4 * tagop::PageKeeper::window);
  const ModelTotals t = model_totals();
  // Every 8 MiB the reading thread's share of the addresses may move
  // (Walk::rebalance): an address's entries are then in two shards, and its
  // row must add them up.
  const json by_address = report_json(file + " --by address --threads 1");
  for (const char* threads : {"1", "2", "4"}) {
    INFO("threads " << threads);
    CHECK(report_json(file + " --by address --threads " + threads)["rows"] == by_address["rows"]);
    const json j = report_json(file + " --threads " + threads);
    CHECK(j["samples"]["fetch"] == rounds * t.fetches);
    CHECK(j["samples"]["op"] == rounds * t.ops);
    for (const auto& [id, expected] : t.events) {
      INFO(id);
      CHECK(j["events"][id] == rounds * expected);
    }
  }
  fs::remove(file);
}

TEST_CASE("report on a capture of many addresses: the same rows whatever the threads", "[perfdata][threads]") {
  // 100 k addresses, so that the tallies outgrow the caches and the
  // workers fall behind the reading thread, which then takes a share of
  // the addresses from them (Walk::rebalance, every 8 MiB): the entries of
  // an address are then in two shards, and its row must add them up. Each
  // address is sampled 4 times, half of them loads that missed the DC,
  // counted here as written.
  const std::string capture = temp("many-addresses.data");
  using tagop::amd_ibs::IbsRegister;
  const std::uint64_t addresses = 100000, per_address = 4;
  {
    tagop::amd_ibs::IbsCaptureWriter w(capture, {.family = 0x19, .model = 1});
    tagop::amd_ibs::IbsRegisters op;
    op.unit = tagop::amd_ibs::IbsUnit::op;
    for (std::uint64_t i = 0; i < addresses * per_address; ++i) {
      // A stride prime to the count: every address, in no simple order.
      const std::uint64_t a = i * 7919 % addresses;
      op.set(IbsRegister::IbsOpRip, 0x400000 + 16 * a);
      const bool miss = i / addresses % 2 == 1;
      op.set(IbsRegister::IbsOpData3, miss ? (std::uint64_t{1} << 0 | std::uint64_t{1} << 7) : 0);  // load, dc miss
      w.sample(op, 1, 1, 0, i);
    }
    w.finish();
  }
  REQUIRE(fs::file_size(capture) > 4 * tagop::PageKeeper::window);
  // CSV, compared as text: 100 k rows of JSON, parsed three times, took
  // minutes under the sanitizers.
  const auto rows_with = [&](const char* threads) {
    const RunResult r = run_tagop("report " + capture + " --by address --top 0 --events 0xF100 --where 'load & dc.miss' " +
                                  "--format csv --threads " + threads);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return r.out;
  };
  const std::string one = rows_with("1");
  std::istringstream lines(one);
  std::string line;
  REQUIRE(std::getline(lines, line));
  REQUIRE(line == "address,module,0xF100,overhead");
  std::uint64_t rows = 0, other_counts = 0;
  while (std::getline(lines, line) && !line.starts_with("[total],")) {
    ++rows;
    std::istringstream fields(line);
    std::string address, module, count;
    std::getline(fields, address, ',');
    std::getline(fields, module, ',');
    std::getline(fields, count, ',');
    other_counts += count != std::to_string(per_address / 2);
  }
  CHECK(rows == addresses);
  CHECK(other_counts == 0);
  for (const char* threads : {"2", "3"}) {
    INFO("threads " << threads);
    CHECK(rows_with(threads) == one);
  }
  fs::remove(capture);
}

TEST_CASE("report: the period from the samples' MaxCnt when the events give none", "[perfdata][threads]") {
  // op_period 0: the attr asks for no period, so the report reads MaxCnt
  // from each sample's IbsOpCtl. Runs of three MaxCnts, in an order that
  // changes often, and IbsOpCurCnt (bits 32-58) different in every sample:
  // it is not part of the period.
  const std::string capture = temp("period-from-samples.data");
  using tagop::amd_ibs::IbsRegister;
  const std::uint64_t max_cnts[] = {0x1000, 0x2000, 0x800};
  std::uint64_t samples = 0, sum = 0;
  {
    tagop::amd_ibs::IbsCaptureWriter w(capture, {.op_period = 0});
    tagop::amd_ibs::IbsRegisters op;
    op.unit = tagop::amd_ibs::IbsUnit::op;
    op.set(IbsRegister::IbsOpRip, 0x401000);
    for (std::uint64_t i = 0; i < 30000; ++i) {
      const std::uint64_t max_cnt = max_cnts[(i / 7 + i / 1000) % 3];
      const std::uint64_t cur_cnt = (i * 2654435761u) & 0x7FFFFFF;
      op.set(IbsRegister::IbsOpCtl, max_cnt | std::uint64_t{3} << 17 | std::uint64_t{1} << 19 | cur_cnt << 32);
      w.sample(op, 1, 1, 0, i);
      ++samples;
      sum += max_cnt * 16;
    }
    w.finish();
  }
  for (const char* threads : {"1", "2", "5"}) {
    INFO("threads " << threads);
    const json j = report_json(capture + " --threads " + threads);
    CHECK(j["samples"]["op"] == samples);
    CHECK(j["period"]["op"]["value"].get<double>() == Approx(static_cast<double>(sum) / static_cast<double>(samples)));
    CHECK(j["period"]["op"]["unit"] == "dispatched ops");
    CHECK_THAT(j["period"]["op"]["source"].get<std::string>(),
               Catch::Contains(fmt::format("varies from {} to {}", 0x800 * 16, 0x2000 * 16)));
  }
  fs::remove(capture);
}

TEST_CASE("report says what a capture cannot answer", "[perfdata]") {
  // Family 10h reports no L2 miss (IbsL2Miss is Zen's): not 0 rows, an error.
  const RunResult l2 = run_tagop("report " + example() + " --where 'load & l2.miss'");
  CHECK(l2.exit_code == 1);
  CHECK_THAT(l2.err, Catch::Contains("l2.miss is not available on this processor") &&
                         Catch::Contains("family 0x10"));
  // A predicate no unit observes whole: fetch conditions and op ones.
  const RunResult mixed = run_tagop("report " + example() + " --where 'ic.miss & load'");
  CHECK(mixed.exit_code == 1);
  CHECK_THAT(mixed.err, Catch::Contains("no IBS unit"));
  // Usage errors point at the subcommand's help.
  const RunResult bad = run_tagop("report " + example() + " --by nothing");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("Run 'tagop report --help'"));
  // 'samples' is a column to sort by: fetch and op samples.
  const json by_samples = report_json(example() + " --sort samples --by module --events samples,0xF100,0xF000");
  REQUIRE(by_samples["rows"].size() == 2);
  CHECK(by_samples["rows"][0]["values"]["samples"] ==
        by_samples["rows"][0]["values"]["0xF100"].get<std::uint64_t>() +
            by_samples["rows"][0]["values"]["0xF000"].get<std::uint64_t>());
}

TEST_CASE("report text: names whole when stdout is not a terminal; --width cuts them and keeps a chain's leaf",
          "[perfdata]") {
  // Call chains of six frames in a library of a long name that is not on
  // this machine: each frame is named by its module and offset.
  using namespace tagop::perf_data;
  const std::string path = temp("width.data");
  const std::string lib = "/nonexistent/libwith_a_rather_long_name_for_a_library.so";
  perf_event_attr attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000);
  attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
  {
    PerfDataWriter w(path, {{.attr = attr, .ids = {7}, .name = "cpu-clock"}});
    w.comm(10, 10, "prog");
    w.mmap2(10, 10, 0x10000000, 0x10000, 0, lib, {}, {}, misc_user);
    const std::uint64_t chain[] = {PERF_CONTEXT_USER, 0x10000100, 0x10000200, 0x10000300,
                                   0x10000400,        0x10000500, 0x10000600};
    for (std::uint64_t t = 1; t <= 3; ++t)
      w.sample(0, {.ip = 0x10000100, .pid = 10, .tid = 10, .time = t, .period = 1000, .callchain = chain});
    w.finish();
  }
  const std::string base = "libwith_a_rather_long_name_for_a_library.so";
  std::string whole;  // root first, the leaf (the sampled frame) last
  for (const char* offset : {"0x600", "0x500", "0x400", "0x300", "0x200", "0x100"})
    whole += (whole.empty() ? "" : ";") + base + "+" + offset;
  const RunResult all = run_tagop("report " + path + " --by callchain");
  INFO(all.err);
  REQUIRE(all.exit_code == 0);
  CHECK_THAT(all.out, Catch::Contains("\n" + whole + "  "));
  const RunResult cut = run_tagop("report " + path + " --by callchain --width 30");
  REQUIRE(cut.exit_code == 0);
  // The start (a third of 30), "...", then the leaf whole.
  CHECK_THAT(cut.out, Catch::Contains("\n" + whole.substr(0, 10) + "..." + base + "+0x100  "));
  const RunResult none = run_tagop("report " + path + " --by callchain --width 0");
  CHECK_THAT(none.out, Catch::Contains("\n" + whole + "  "));
  const RunResult addresses = run_tagop("report " + path + " --by address --width 20");
  REQUIRE(addresses.exit_code == 0);
  CHECK_THAT(addresses.out, Catch::Contains("\n" + base.substr(0, 17) + "...  "));
  CHECK(run_tagop("report " + path + " --width -1").exit_code == 2);
  fs::remove(path);
}
