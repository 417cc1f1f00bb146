// The HTML page: self-contained (nothing to fetch), rendered by headless
// Chromium without console errors, with a screenshot to look at.

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include <tagop/error.hpp>
#include <tagop/profiles/html.hpp>

#include "flame_tree.hpp"
#include "peer_tools.hpp"
#include "synthetic_profile.hpp"

using namespace tagop::profiles;

using peers::body_attribute;
using peers::chromium;
using peers::console_problems;
using peers::have_chromium;

namespace {

/// The page `tagop report --html` would write for the synthetic capture:
/// per function, op samples, DC misses, the miss rate and the mean miss
/// latency, with intervals.
HtmlPage synthetic_page(const synthetic::Machine& m) {
  HtmlPage page;
  page.title = "IBS report of machine-1.data";
  page.notes = {"processor: AMD Family 19h model 1 (from HEADER_CPUID)", "op period: 65536 dispatched ops",
                "emulated (model: zen3)"};
  page.table.columns = {
      {"0xF100", "IBS ops", "ops", "all tagged ops (estimate: samples x period)", ColumnKind::count},
      {"0xF206", "DC miss", "ops", "loads and stores that missed the data cache", ColumnKind::count},
      {"dc_miss_rate", "DC miss rate", "", "DC misses / (loads + stores)", ColumnKind::ratio},
      {"dc_miss_latency", "Miss latency", "cycles", "mean cycles of a DC miss", ColumnKind::mean},
  };
  for (const auto& [name, ops] : m.expected.flat[synthetic::ops]) {
    const std::int64_t op_samples = ops / synthetic::op_period;
    const std::int64_t misses = m.expected.flat[synthetic::dc_miss].at(name) / synthetic::op_period;
    const std::int64_t latency = m.expected.flat[synthetic::dc_miss_latency].at(name) / synthetic::op_period;
    TableRow row{name, name == "clear_page_erms" ? "[kernel.kallsyms]" : "prog", {}};
    row.cells.push_back(Interval{static_cast<double>(ops), static_cast<double>(ops) * 0.9, static_cast<double>(ops) * 1.1});
    row.cells.push_back(Interval{static_cast<double>(misses * synthetic::op_period)});
    row.cells.push_back(proportion_interval(static_cast<std::uint64_t>(misses), static_cast<std::uint64_t>(op_samples)));
    if (misses > 0) row.cells.push_back(Interval{static_cast<double>(latency) / static_cast<double>(misses), 150, 175});
    else row.cells.push_back(std::nullopt);
    page.table.rows.push_back(std::move(row));
  }
  // A hostile row name: must stay text.
  page.table.rows.push_back({"</script><script>document.title='owned'</script>", "", {Interval{1}, std::nullopt, std::nullopt, std::nullopt}});
  page.table.total = TableRow{"[total]", "", {Interval{1}, Interval{2}, proportion_interval(1, 4), Interval{160}}};
  page.profile = &m.profile;
  page.flame_sample_type = synthetic::dc_miss;
  return page;
}

}  // namespace

TEST_CASE("proportion intervals are Wilson's, worked out by hand", "[profiles][html]") {
  // 5 of 10: centre 0.5, half-width 1.96/13.84 * sqrt(2.5 + 0.96) = 0.2634.
  const Interval half = proportion_interval(5, 10);
  CHECK(half.value == 0.5);
  CHECK(half.low == Approx(0.2366).margin(1e-4));
  CHECK(half.high == Approx(0.7634).margin(1e-4));
  // 0 of 10: from 0 to z^2 / (n + z^2) = 3.8415 / 13.8415.
  const Interval none = proportion_interval(0, 10);
  CHECK(none.low == 0);
  CHECK(none.high == Approx(0.2775).margin(1e-4));
  CHECK(std::isnan(proportion_interval(0, 0).value));
}

TEST_CASE("the flame tree merges stacks root first and totals every sample type", "[profiles][html]") {
  const synthetic::Machine m = synthetic::make_machine(8, 1000);
  const detail::FlameTree tree = detail::build_flame_tree(m.profile, 0, 1000);
  REQUIRE(tree.names[tree.nodes[0].name] == "all");
  for (std::size_t t = 0; t < synthetic::type_count; ++t) CHECK(tree.nodes[0].values[t] == m.expected.total[t]);
  // Each node's path, root first, is a folded stack prefix: its total over
  // the generator's stacks with that prefix.
  for (std::size_t i = 1; i < tree.nodes.size(); ++i) {
    std::string path;
    for (auto n = static_cast<std::int32_t>(i); n > 0; n = tree.nodes[static_cast<std::size_t>(n)].parent)
      path = tree.names[tree.nodes[static_cast<std::size_t>(n)].name] + (path.empty() ? "" : ";" + path);
    REQUIRE(tree.nodes[i].parent < static_cast<std::int32_t>(i));  // parents first
    std::int64_t expected = 0;
    for (const auto& [stack, total] : m.expected.folded[synthetic::samples])
      if (stack == path || stack.starts_with(path + ";")) expected += total;
    INFO(path);
    CHECK(tree.nodes[i].values[synthetic::samples] == expected);
  }
  // Leaving out small nodes: with a threshold above every leaf, only "all"
  // and main (100%) remain.
  const detail::FlameTree small = detail::build_flame_tree(m.profile, 0.999, 1000);
  CHECK(small.nodes.size() == 2);
  CHECK(small.omitted == tree.nodes.size() - 2);
}

TEST_CASE("the page is self-contained: nothing in it can fetch", "[profiles][html]") {
  const synthetic::Machine m = synthetic::make_machine(1, 2000);
  std::ostringstream out;
  write_html(synthetic_page(m), out);
  const std::string html = out.str();
  CHECK(html.starts_with("<!DOCTYPE html>"));
  for (const char* fetcher : {"http://", "https://", "//cdn", "src=", "@import", "url(", "<iframe", "<img",
                              "fetch(", "XMLHttpRequest", "<link rel=\"stylesheet\""})
    CHECK(html.find(fetcher) == std::string::npos);
  // The only <link> is the empty data: icon (so that no favicon is asked for).
  CHECK(html.find("<link rel=\"icon\" href=\"data:,\">") != std::string::npos);
  // The hostile name cannot close the data's <script>: two script elements only.
  std::size_t closes = 0;
  for (std::size_t at = 0; (at = html.find("</script", at)) != std::string::npos; ++at) ++closes;
  CHECK(closes == 2);
  CHECK(html.size() < 200000);
}

TEST_CASE("bad pages are refused with what is wrong", "[profiles][html]") {
  HtmlPage page;
  page.table.columns = {{"a", "A", "", "", ColumnKind::count}};
  page.table.rows = {{"f", "", {Interval{1}, Interval{2}}}};
  std::ostringstream out;
  try {
    write_html(page, out);
    FAIL("no error");
  } catch (const tagop::Error& e) {
    CHECK(std::string(e.what()) == "html: row 0 (f) has 2 cells, but the table has 1 columns");
  }
  const synthetic::Machine m = synthetic::make_machine(1, 10);
  HtmlPage flame;
  flame.profile = &m.profile;
  flame.flame_sample_type = 7;
  CHECK_THROWS_AS(write_html(flame, out), tagop::Error);
}

TEST_CASE("headless Chromium renders the page without console errors; screenshot saved", "[profiles][html]") {
  if (!have_chromium()) {
    WARN("SKIPPED: chromium is not installed (Debian's chromium; scripts/install-deps.sh installs it), "
         "so the HTML page was not rendered");
    return;
  }
  const synthetic::Machine m = synthetic::make_machine(1, 2000);
  const std::string page = (peers::scratch() / "report.html").string();
  write_html(synthetic_page(m), page);

  const RunResult dom = chromium("--dump-dom " + peers::quote("file://" + page));
  INFO("chromium's log:\n" << dom.err);
  REQUIRE(dom.exit_code == 0);
  CHECK(body_attribute(dom.out, "data-selfcheck") == "ok");
  CHECK(body_attribute(dom.out, "data-errors") == "(missing)");
  CHECK(console_problems(dom.err).empty());
  CHECK(body_attribute(dom.out, "data-rows") == "7");  // 6 functions and the hostile one
  CHECK(std::stoi(body_attribute(dom.out, "data-frames")) >= 7);
  // Rendered as text, not run: the title is the page's own.
  CHECK(dom.out.find("<title>IBS report of machine-1.data</title>") != std::string::npos);
  CHECK(dom.out.find("&lt;/script&gt;&lt;script&gt;document.title='owned'&lt;/script&gt;") != std::string::npos);
  // The table holds the generator's numbers: hash_join's op estimate, grouped.
  const std::int64_t ops = m.expected.flat[synthetic::ops].at("hash_join");
  std::string grouped = std::to_string(ops);
  for (int at = static_cast<int>(grouped.size()) - 3; at > 0; at -= 3) grouped.insert(static_cast<std::size_t>(at), ",");
  CHECK(dom.out.find(">" + grouped + "</td>") != std::string::npos);

  const char* dir = std::getenv("TAGOP_SCREENSHOT_DIR");
  const std::string shot = (dir ? std::string(dir) : peers::scratch().string()) + "/profiles-html-report.png";
  std::filesystem::remove(shot);
  const RunResult screenshot =
      chromium("--hide-scrollbars --window-size=1400,1000 --screenshot=" + peers::quote(shot) + " " +
               peers::quote("file://" + page));
  INFO(screenshot.err);
  CHECK(screenshot.exit_code == 0);
  REQUIRE(std::filesystem::exists(shot));
  CHECK(std::filesystem::file_size(shot) > 20000);
  CHECK(console_problems(screenshot.err).empty());
}

TEST_CASE("10,000 rows and a large flame graph stay small and render quickly", "[profiles][html]") {
  // 10k functions in 5 modules, 100k samples with stacks 3 to 8 deep.
  Profile p({{"samples", "count"}, {"ibs_dc_miss", "count", 65536}});
  std::vector<LocationId> functions;
  for (int i = 0; i < 10000; ++i)
    functions.push_back(p.add_location({0x400000u + static_cast<std::uint64_t>(i) * 64, std::nullopt,
                                        {{"function_" + std::to_string(i), "", "", 0}}}));
  std::uint64_t x = 1;
  auto next = [&] { return (x = x * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  std::vector<LocationId> stack;
  for (int s = 0; s < 100000; ++s) {
    stack.clear();
    const std::size_t depth = 3 + next() % 6;
    for (std::size_t d = 0; d < depth; ++d) stack.push_back(functions[(next() % (d * 40 + 10)) * (d + 1) % 10000]);
    const std::int64_t values[] = {1, static_cast<std::int64_t>(next() % 5 == 0)};
    p.add_sample(values, stack);
  }
  HtmlPage page;
  page.title = "10k rows";
  page.table.columns = {{"samples", "Samples", "", "", ColumnKind::count},
                        {"rate", "DC miss rate", "", "", ColumnKind::ratio}};
  for (int i = 0; i < 10000; ++i)
    page.table.rows.push_back({"function_" + std::to_string(i), "module_" + std::to_string(i % 5),
                               {Interval{static_cast<double>(10000 - i)}, proportion_interval(static_cast<std::uint64_t>(i % 50), 60)}});
  page.profile = &p;
  const std::string path = (peers::scratch() / "large.html").string();
  write_html(page, path);
  const auto size = std::filesystem::file_size(path);
  INFO("page size " << size);
  CHECK(size < 3'000'000);
  if (!have_chromium()) {
    WARN("SKIPPED: chromium is not installed, the large page was not rendered");
    return;
  }
  const RunResult dom = chromium("--dump-dom " + peers::quote("file://" + path));
  REQUIRE(dom.exit_code == 0);
  CHECK(body_attribute(dom.out, "data-selfcheck") == "ok");
  CHECK(body_attribute(dom.out, "data-rows") == "500");  // the first 500, and a "Show all" button
  CHECK(console_problems(dom.err).empty());
  // A page with neither a flame graph nor a count column (the self-check
  // sorts by name there).
  HtmlPage small;
  small.title = "rates only";
  small.table.columns = {{"rate", "DC miss rate", "", "", ColumnKind::ratio}};
  small.table.rows = {{"b", "", {proportion_interval(1, 3)}}, {"a", "", {std::nullopt}}};
  const std::string small_path = (peers::scratch() / "small.html").string();
  write_html(small, small_path);
  const RunResult small_dom = chromium("--dump-dom " + peers::quote("file://" + small_path));
  CHECK(body_attribute(small_dom.out, "data-selfcheck") == "ok");
  CHECK(body_attribute(small_dom.out, "data-frames") == "0");
  CHECK(console_problems(small_dom.err).empty());
  WARN("the 10,000-row page: " << size / 1024 << " KiB, rendered in " << body_attribute(dom.out, "data-render-ms")
                               << " ms by headless Chromium");
}
