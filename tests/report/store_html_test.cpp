// The HTML page of a report of the store (tagop report --source URL --html
// FILE) against the local page of the same capture: the table's rows,
// cells and intervals and the flame graph's nodes are the local command's
// on the capture file (its own reading of the raw records), never the
// store's; only the title and notes (the store's URL, its captures) differ.

#include <catch2/catch.hpp>

#include <filesystem>  // std::filesystem
#include <sstream>     // std::ostringstream
#include <string>      // std::string

#include <fmt/format.h>       // fmt::format
#include <nlohmann/json.hpp>  // the page's data

#include <tagop/error.hpp>                 // tagop::Error
#include <tagop/report/store_report.hpp>   // write_store_html

#include "report/store_captures.hpp"
#include "report/store_commands.hpp"

using namespace tagop;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using test::database;
using test::folded_lines;
using test::page_data;
using test::tagop_command;

RunResult checked(const std::string& arguments) {
  const RunResult r = run_shell(fmt::format("{} {}", tagop_command(), arguments));
  INFO(arguments << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

// The local page of `file` and the store's page of `host`, both with
// `options`; their tables and flame graphs must be the same.
void check_pages(const std::string& url, const std::string& file, const std::string& host, const std::string& options) {
  INFO(file << " " << options);
  const std::string local_page = test::temp("local.html"), store_page = test::temp("store.html");
  checked(fmt::format("report {} {} --html {}", file, options, local_page));
  checked(fmt::format("report --source {} --host {} {} --html {}", url, host, options, store_page));
  const json local = page_data(local_page), store = page_data(store_page);
  CHECK(local.at("table").at("rows").size() >= 2);
  CHECK(local.at("flame").at("nodes").size() >= 3);
  for (const char* part : {"table", "flame"}) {
    INFO(part << ": what makes the local page's the store's: " << json::diff(local.at(part), store.at(part)).dump());
    CHECK(store.at(part) == local.at(part));
  }
  CHECK(store.at("title").get<std::string>().find("of the store at") != std::string::npos);
  fs::remove(local_page);
  fs::remove(store_page);
}

}  // namespace

TEST_CASE("report --source --html of perf record -g captures: the local page's table and flame graph",
          "[store][source][html]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string capture = test::user_chain_capture("html-chains.data", 300);
  if (capture.empty()) return;
  const std::string url = database(*local, "source_html");
  checked(fmt::format("ingest {} {} --host html-g", url, capture));
  for (const char* options : {"--by function", "--by module", "--by function --top 3", "--by callchain",
                              "--by function --children", "--by function --sort task-clock:u"})
    check_pages(url, capture, "html-g", options);

  // A capture without call chains: the flame graph and the folded stacks
  // are of its functions, as the local ones.
  const std::string plain = test::temp("html-plain.data");
  const RunResult record = run_shell(fmt::format("taskset -c 0 perf record -q -N -e cpu-clock:u,task-clock:u -o {} -- {} 200",
                                                 plain, std::getenv("TAGOP_CALLCHAIN_FIXTURE")));
  INFO(record.err);
  REQUIRE(record.exit_code == 0);
  checked(fmt::format("ingest {} {} --host html-plain", url, plain));
  for (const char* options : {"--by function", "--by module"}) check_pages(url, plain, "html-plain", options);
  CHECK(folded_lines(fmt::format("report --source {} --host html-plain --format folded", url)) ==
        folded_lines(fmt::format("report {} --format folded", plain)));
  fs::remove(plain);

  // One page at a time with an export; the stacks of the store's chains.
  const RunResult both = run_shell(fmt::format("{} report --source {} --html x.html --format folded", tagop_command(), url));
  CHECK(both.exit_code == 2);
  CHECK(both.err.find("--html") != std::string::npos);
  fs::remove(capture);
}

TEST_CASE("report --source --html of IBS captures: the local page's cells, intervals and flame graph",
          "[store][source][html]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string example = std::string(std::getenv("TAGOP_SOURCE_ROOT")) + "/examples/ibs-example.perf.data";
  // Random instruction pointers outside every mapping: each sample's row is
  // its address's ([unknown]+0x...), named at ingest as the local report names it.
  const std::string zen = test::zen_capture("html-zen.data", 6161, 0x4000);
  const std::string url = database(*local, "source_html_ibs");
  checked(fmt::format("ingest {} {} --host html-k10", url, example));
  checked(fmt::format("ingest {} {} --host html-zen", url, zen));
  for (const char* options : {"--by function", "--by function --view all --top 0", "--by module --view dc",
                              "--by cpu --where 'load & dc.miss'", "--by function --sort 0xF206"})
    check_pages(url, example, "html-k10", options);
  for (const char* options : {"--by function --view all", "--by cpu --events 0xF100,0xF206,dc_miss_rate"})
    check_pages(url, zen, "html-zen", options);

  // Their stacks as folded stacks and pprof, as the local exports: the sort
  // event's estimates (samples x period), per function.
  for (const auto& [file, host] : {std::pair{example, "html-k10"}, std::pair{zen, "html-zen"}})
    for (const char* options : {"", " --sort 0xF206", " --where 'load & dc.miss' --sort 0xF100"}) {
      INFO(file << options);
      const auto expected = folded_lines(fmt::format("report {} --format folded{}", file, options));
      CHECK(expected.size() >= 2);
      CHECK(folded_lines(fmt::format("report --source {} --host {} --format folded{}", url, host, options)) == expected);
    }
  const RunResult ratio = run_shell(fmt::format("{} report --source {} --host html-k10 --format folded --sort dc_miss_rate",
                                                tagop_command(), url));
  CHECK(ratio.exit_code == 1);
  CHECK(ratio.err.find("not an event") != std::string::npos);

  // Both captures: different periods; the page says its flame graph's
  // values are samples.
  const std::string page = test::temp("both.html");
  checked(fmt::format("report --source {} --html {}", url, page));
  const json data = page_data(page);
  CHECK(data.at("notes").dump().find("periods differ between captures") != std::string::npos);
  CHECK(data.at("table").at("rows").size() >= 2);
  fs::remove(page);
  fs::remove(zen);
}

TEST_CASE("write_store_html: reports of different kinds or events are refused",
          "[store][html][library]") {
  report::StoreReport ibs, events;
  events.ibs = false;
  events.query_names = {"cpu-clock"};
  events.totals = {QueryResult{}};
  std::ostringstream out;
  CHECK_THROWS_WITH(report::write_store_html(ibs, events, {}, out), Catch::Contains("different kinds"));
  report::StoreReport other = events;
  other.query_names = {"task-clock"};
  CHECK_THROWS_WITH(report::write_store_html(events, other, {}, out), Catch::Contains("other events"));
  CHECK(out.str().empty());
}
