// tagop events list|show|search, compare, cpu and completion: the lookup
// tool, checked against the tables read through the C++ API and against
// libpfm4 at run time.

#include <catch2/catch.hpp>

#include <algorithm>   // std::count, std::any_of
#include <filesystem>  // exists
#include <fstream>     // std::ifstream
#include <map>         // std::map
#include <set>         // std::set
#include <sstream>     // std::stringstream

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <perfmon/pfmlib.h>  // pfm_find_event, pfm_get_event_info

#include <tagop/conditions.hpp>
#include <tagop/intel_core/events.hpp>
#include <tagop/intel_p4/tables.hpp>
#include <tagop/predicate.hpp>
#include <tagop/registry.hpp>

#include "run_command.hpp"

using json = nlohmann::json;

namespace {

json run_json(const std::string& args) {
  const RunResult r = run_tagop(args);
  INFO(args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

bool names_event(const json& list, const std::string& name) {
  return std::any_of(list.begin(), list.end(), [&](const json& e) { return e.at("name") == name; });
}

}  // namespace

TEST_CASE("show: every spelling of an IBS event finds 0xF206", "[lookup][ibs]") {
  for (const char* spelling : {"0xF206", "0xf206", "F206", "f206", "'IBS DC miss'", "'ibs dc MISS'"}) {
    INFO(spelling);
    const json j = run_json(std::string("events show ") + spelling + " --json");
    CHECK(j.at("backend") == "amd-ibs");
    CHECK(j.at("code") == "0xF206");
    // An op event is programmed on the ibs_op PMU.
    CHECK(j.at("programming").at("perf_event_attr").at("pmu") == "ibs_op");
  }
  // 0xF000 counts fetch samples: the fetch unit is programmed.
  CHECK(run_json("events show 0xF000 --json").at("programming").at("perf_event_attr").at("pmu") == "ibs_fetch");
}

TEST_CASE("show: SDM, libpfm4 and perf spellings of BACLEARS.ALL", "[lookup][slm][glm]") {
  const auto& slm = tagop::intel_core::require_event(tagop::intel_core::Microarchitecture::silvermont, "BACLEARS.ALL");
  REQUIRE(slm.event == 0xE6);
  REQUIRE(slm.umask == 0x01);
  // perf's raw config puts the umask in bits 15:8 and the event in 7:0.
  const std::string raw = fmt::format("r{:x}", slm.umask << 8 | slm.event);
  CHECK(raw == "r1e6");
  for (const std::string& spelling : {std::string("BACLEARS.ALL"), std::string("baclears.all"),
                                     std::string("slm::BACLEARS:ALL"), std::string("'cpu/event=0xe6,umask=0x1/'"),
                                     std::string("r01e6"), raw, std::string("E6H:01H")}) {
    INFO(spelling);
    const json j = run_json("events show " + spelling + " --json");
    CHECK(j.at("backend") == "silvermont");
    CHECK(j.at("name") == "BACLEARS.ALL");
    CHECK(j.at("event") == "0xE6");
    CHECK(j.at("umask") == "0x01");
  }
  // A spelling that other tables share names them too: Goldmont's
  // BACLEARS.ALL, and Skylake's and Ice Lake's BACLEARS.ANY (perfmon:
  // 0xE6:0x01; Sapphire Rapids' is 0x60:0x01).
  const json both = run_json("events show r01e6 --json");
  REQUIRE(both.at("also").size() == 3);
  CHECK(both.at("also")[0].at("backend") == "goldmont");
  CHECK(both.at("also")[1].at("backend") == "skylake");
  CHECK(both.at("also")[2].at("backend") == "icelake");
  // libpfm4's PMU prefix picks the table.
  CHECK(run_json("events show glm::BACLEARS:ALL --json").at("backend") == "goldmont");
  CHECK(run_json("events show r01e6 --backend goldmont --json").at("backend") == "goldmont");
}

TEST_CASE("show: a P4 metric and a P4 event with mask bits", "[lookup][p4]") {
  const tagop::intel_p4::MetricSpec* metric = tagop::intel_p4::find_metric("1stL_cache_load_miss_retired");
  REQUIRE(metric != nullptr);
  const json j = run_json("events show 1STL_CACHE_LOAD_MISS_RETIRED --json");
  CHECK(j.at("backend") == "p4");
  CHECK(j.at("name") == "1stL_cache_load_miss_retired");
  CHECK(j.at("predicate") == std::string(metric->predicate));
  // The metric's replay tagging writes MSR_PEBS_MATRIX_VERT (0x3F2) with the table's value.
  bool matrix_written = false;
  for (const json& w : j.at("programming").at("msr_writes"))
    if (w.at("msr") == "0x3f2") matrix_written = w.at("value") == fmt::format("{:#x}", metric->matrix_vert);
  CHECK(matrix_written);
  const json e = run_json("events show netburst::replay_event:NBOGUS --json");
  CHECK(e.at("name") == "replay_event");
  CHECK(e.at("program_command") == "tagop program p4 replay_event:NBOGUS");
  CHECK(e.contains("programming"));
}

TEST_CASE("show: an event only libpfm4 knows", "[lookup][libpfm]") {
  ::setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
  REQUIRE(pfm_initialize() == PFM_SUCCESS);
  // Haswell: a libpfm4 PMU tagop has no table for.
  const int idx = pfm_find_event("hsw::INST_RETIRED:ANY_P");
  REQUIRE(idx >= 0);
  pfm_event_info_t info{};
  info.size = sizeof info;
  REQUIRE(pfm_get_event_info(idx, PFM_OS_NONE, &info) == PFM_SUCCESS);

  const json j = run_json("events show hsw::INST_RETIRED:ANY_P --json");
  CHECK(j.at("backend") == "libpfm4");
  CHECK(j.at("pmu") == "hsw");
  CHECK(j.at("name") == info.name);
  CHECK(j.at("code") == fmt::format("{:#x}", info.code));
  CHECK(j.at("attributes").size() == static_cast<std::size_t>(info.nattrs));
  CHECK(names_event(j.at("attributes"), "ANY_P"));
}

TEST_CASE("show: an unknown name gets the closest names and exit 1", "[lookup]") {
  const RunResult r = run_tagop("events show BACLEARZ.AL");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("no event named 'BACLEARZ.AL'; did you mean BACLEARS.ALL"));
  const RunResult nothing = run_tagop("events show netburst::no_such_event");
  CHECK(nothing.exit_code == 1);
  CHECK_THAT(nothing.err, Catch::Contains("did you mean"));
}

TEST_CASE("search: a typo and a partial word find the event", "[lookup]") {
  // "baclers" is BACLEARS with one letter dropped.
  const json typo = run_json("events search baclers --json").at("events");
  REQUIRE(!typo.empty());
  CHECK(typo[0].at("name").get<std::string>().starts_with("BACLEARS."));
  const json partial = run_json("events search misp retired --json").at("events");
  CHECK(names_event(partial, "BR_MISP_RETIRED.ALL_BRANCHES"));
  const json words = run_json("events search 'data cache' mised --json").at("events");  // "missed", typed wrong
  CHECK(names_event(words, "IBS DC miss"));
  const RunResult none = run_tagop("events search zzzzqqq");
  CHECK(none.exit_code == 1);
}

TEST_CASE("list filters count what the tables hold", "[lookup]") {
  const tagop::Registry& registry = tagop::Registry::builtin();
  std::size_t precise_slm = 0;
  for (const auto& e : tagop::intel_core::pmu_spec(tagop::intel_core::Microarchitecture::silvermont).events)
    precise_slm += e.precise ? 1 : 0;
  REQUIRE(precise_slm > 0);
  CHECK(run_json("events list --precise --backend silvermont --json").at("events").size() == precise_slm);

  std::size_t fetch_ibs = 0;
  for (const auto& e : registry.find("amd-ibs")->events()) fetch_ibs += e.kind == tagop::SampleKind::fetch ? 1 : 0;
  REQUIRE(fetch_ibs > 0);
  CHECK(run_json("events list --backend amd-ibs --kind fetch --json").at("events").size() == fetch_ibs);

  std::size_t dc_miss = 0;
  for (const auto& b : registry.backends())
    for (const auto& e : b.events())
      if (!e.predicate.empty() && tagop::Predicate::parse(e.predicate).used().contains(tagop::condition("dc.miss")))
        ++dc_miss;
  const json with_dc_miss = run_json("events list --condition dc.miss --json").at("events");
  CHECK(with_dc_miss.size() == dc_miss);
  for (const json& e : with_dc_miss) CHECK_THAT(e.at("predicate").get<std::string>(), Catch::Contains("dc.miss"));

  // CSV: a header, then one line per event.
  const RunResult csv = run_tagop("events list --condition dc.miss --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK(count_lines(csv.out) == dc_miss + 1);
  // The columns are EventRow's fields (tools/output_records.hpp), as its JSON keys.
  CHECK(csv.out.starts_with("backend,name,code,select,event,umask,abbreviation,kind,predicate,sums,mechanism,precise,"
                            "unit,description\n"));
  // One row by hand from the PPR's IBS DC miss (0xF206): IBS has a select
  // and no event/umask; precise as JSON writes it.
  const RunResult shown = run_tagop("events show 0xF206 --format csv");
  REQUIRE(shown.exit_code == 0);
  CHECK_THAT(shown.out, Catch::Contains("\namd-ibs,IBS DC miss,0xF206,0xF206,,,IBS DC miss,op,(load | store) & dc.miss,,"
                                        "instruction sampling,true,macro-ops,"));

  const RunResult bad = run_tagop("events list --condition dc.mis");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("unknown condition 'dc.mis'; did you mean dc.miss"));
  CHECK(run_tagop("events list --kind loads").exit_code == 2);
}

TEST_CASE("compare: equivalents across vendors by predicate", "[lookup]") {
  const json j = run_json("compare 0xF219 --json");
  CHECK(j.at("predicate") == "op & load & dc.miss");
  std::map<std::string, json> by_backend;
  for (const json& b : j.at("backends")) by_backend[b.at("backend")] = b;
  // 0xF219 sums cycles over the load misses; the counts of them are the
  // same condition in another unit.
  CHECK(names_event(by_backend.at("silvermont").at("same_condition_different_unit"), "MEM_UOPS_RETIRED.L1_MISS_LOADS"));
  CHECK(names_event(by_backend.at("goldmont").at("same_condition_different_unit"), "MEM_LOAD_UOPS_RETIRED.L1_MISS"));
  // Replay tagging cannot tag uncacheable or locked loads: a subset.
  CHECK(names_event(by_backend.at("p4").at("narrower"), "1stL_cache_load_miss_retired"));
  // An L2 hit is a subset of the L1 misses.
  CHECK(names_event(by_backend.at("silvermont").at("narrower"), "MEM_UOPS_RETIRED.L2_HIT_LOADS"));
  // Every load is a superset.
  CHECK(names_event(by_backend.at("goldmont").at("wider"), "MEM_UOPS_RETIRED.ALL_LOADS"));
  for (const json& e : by_backend.at("amd-ibs").at("same")) CHECK_THAT(e.at("address").get<std::string>(), Catch::Contains("exact instruction"));
  CHECK_THAT(j.at("caveat").get<std::string>(), Catch::Contains("never add"));

  // A predicate: the L2 hits among L1 load misses.
  const json p = run_json("compare 'load & dc.miss & !l2.miss' --json");
  for (const json& b : p.at("backends"))
    if (b.at("backend") == "silvermont") CHECK(names_event(b.at("same"), "MEM_UOPS_RETIRED.L2_HIT_LOADS"));

  const RunResult count_only = run_tagop("compare BACLEARS.ALL");
  CHECK(count_only.exit_code == 1);
  CHECK_THAT(count_only.err, Catch::Contains("counts occurrences, not ops"));
  const RunResult neither = run_tagop("compare 'load & nope'");
  CHECK(neither.exit_code == 1);
  CHECK_THAT(neither.err, Catch::Contains("neither an event"));
}

TEST_CASE("compare --matrix: a row per condition, a column per backend", "[lookup]") {
  const json j = run_json("compare --matrix --json");
  const std::size_t backends = tagop::Registry::builtin().backends().size();
  CHECK(j.at("backends").size() == backends);
  REQUIRE(j.at("rows").size() == tagop::condition_count);
  for (const json& row : j.at("rows")) CHECK(row.at("measured").size() == backends);
  for (const json& row : j.at("rows"))
    if (row.at("condition") == "dc.miss") {
      CHECK(row.at("measured").at("amd-ibs") == "IBS: observed on every op sample");
      CHECK(row.at("measured").at("goldmont").get<std::string>().starts_with("precise event "));
    } else if (row.at("condition") == "uop.packed_sp") {
      // Only P4 execution tagging sees execution classes.
      CHECK(row.at("measured").at("p4").get<std::string>().starts_with("tag (execution)"));
      CHECK(row.at("measured").at("silvermont") == "-");
    }
  const RunResult csv = run_tagop("compare --matrix --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK(count_lines(csv.out) == tagop::condition_count + 1);
}

TEST_CASE("cpu: answers on any machine, and says when there is no hardware PMU", "[lookup]") {
  const json j = run_json("cpu --json");
  CHECK(!j.at("vendor").get<std::string>().empty());
  const bool pmu = std::filesystem::exists("/sys/bus/event_source/devices/cpu") ||
                   std::filesystem::exists("/sys/bus/event_source/devices/ibs_op");
  const std::string reasons = j.at("reasons").dump();
  if (!pmu) {
    CHECK(j.at("hardware_sampling") == false);
    CHECK_THAT(reasons, Catch::Contains("no hardware PMU"));
  }
  CHECK(j.at("pmus").is_array());
  const RunResult text = run_tagop("cpu");
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("hardware sampling:"));
}

TEST_CASE("completion: the script completes commands and event names in bash", "[lookup]") {
  const RunResult r = run_tagop("completion bash");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("complete -F _tagop tagop"));
  // What bash offers after sourcing the script: COMP_WORDS[0] is the binary,
  // as when the user types its path.
  auto complete = [](const std::string& words, int cword) {
    const std::string exe = tagop_exe();
    return run_shell("bash -c 'source <(\"$0\" completion bash); COMP_WORDS=(\"$0\" " + words +
                     "); COMP_CWORD=" + std::to_string(cword) + "; _tagop; printf \"%s\\n\" \"${COMPREPLY[@]}\"' " +
                     exe)
        .out;
  };
  // Every command `tagop --help` lists is offered first.
  const std::string help = run_tagop("--help").out;
  const std::string commands = complete("''", 1);
  std::istringstream lines(help.substr(help.find("Subcommands:")));
  std::string line;
  std::getline(lines, line);
  int listed = 0;
  while (std::getline(lines, line) && line.size() > 2 && line[0] == ' ') {
    const std::string name = line.substr(2, line.find(' ', 2) - 2);
    INFO(name);
    CHECK_THAT(commands, Catch::Contains("\n" + name + "\n") || Catch::StartsWith(name + "\n"));
    ++listed;
  }
  CHECK(listed >= 8);
  // Every long option of report, record and annotate, as their --help lists them.
  for (const std::string command : {"report", "record", "annotate"}) {
    const std::string offered = complete(command + " --", 2);
    std::istringstream options(run_tagop(command + " --help").out);
    int options_listed = 0;
    while (std::getline(options, line)) {
      const auto dashes = line.find("--");
      if (line.rfind("  -", 0) != 0 || dashes == std::string::npos) continue;
      const std::string option = line.substr(dashes, line.find_first_of(" =", dashes) - dashes);
      INFO(command << " " << option);
      CHECK_THAT(offered, Catch::Contains(option + "\n"));
      ++options_listed;
    }
    CHECK(options_listed >= 8);
  }
  CHECK(complete("report --by mod", 3) == "module\n");
  CHECK(complete("report --view d", 3) == "dc\ndtlb\n");
  CHECK(complete("events show BACLEARS.A", 3) == "BACLEARS.ALL\nBACLEARS.ANY\n");
  CHECK(complete("events list --backend gold", 4) == "goldmont\n");

  std::set<std::string_view> distinct;
  for (const auto& b : tagop::Registry::builtin().backends())
    for (const auto& e : b.events()) distinct.insert(e.name);
  const RunResult names = run_tagop("events names");
  CHECK(count_lines(names.out) == distinct.size());
  CHECK_THAT(names.out, Catch::Contains("\nBACLEARS.ALL\n"));
  CHECK(run_tagop("completion zsh").exit_code == 2);
}

TEST_CASE("show: a libpfm4 alias of a row of our tables shows our row", "[lookup][slm][libpfm]") {
  // libpfm4 calls umask 0x01 of BACLEARS both ANY and ALL; the SDM only ALL.
  ::setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
  REQUIRE(pfm_initialize() == PFM_SUCCESS);
  std::uint64_t codes[4] = {};
  pfm_pmu_encode_arg_t arg{};
  arg.size = sizeof arg;
  arg.codes = codes;
  arg.count = 4;
  REQUIRE(pfm_get_os_event_encoding("slm::BACLEARS:ANY", PFM_PLM3, PFM_OS_NONE, &arg) == PFM_SUCCESS);
  const json j = run_json("events show slm::BACLEARS:ANY --json");
  CHECK(j.at("backend") == "silvermont");
  CHECK(j.at("predicate") == "");  // our row, not libpfm4's (which has none)
  CHECK(j.at("event") == fmt::format("{:#04X}", codes[0] & 0xFF).replace(1, 1, "x"));
  CHECK(j.at("umask") == fmt::format("{:#04X}", (codes[0] >> 8) & 0xFF).replace(1, 1, "x"));
}
