// Samples as a range-v3 range, checked against the report engine on the
// bundled IBS example: two independent paths (the range decodes every
// sample with IbsCapture::decode and asks the predicate of each; the
// report tallies distinct raw payloads and evaluates once per tally) must
// give the same counts, in total and per process.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include <range/v3/action/sort.hpp>
#include <range/v3/algorithm/count_if.hpp>
#include <range/v3/range/conversion.hpp>
#include <range/v3/range/operations.hpp>
#include <range/v3/view/chunk_by.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/take.hpp>
#include <range/v3/view/transform.hpp>

#include <tagop/amd_ibs/perf_capture.hpp>
#include <tagop/amd_ibs/samples_range.hpp>
#include <tagop/error.hpp>
#include <tagop/perf_data_reader.hpp>
#include <tagop/registry.hpp>
#include <tagop/report/report.hpp>
#include <tagop/samples_range.hpp>

#include "splitmix.hpp"

using tagop::Sample;
namespace views = ranges::views;
namespace report = tagop::report;

namespace {

std::string example() { return std::string(std::getenv("TAGOP_SOURCE_ROOT")) + "/examples/ibs-example.perf.data"; }

// pid -> samples, through the range: filter, transform, sort, chunk_by.
template <class Range>
std::map<std::uint32_t, std::uint64_t> per_pid(Range&& samples, const tagop::Predicate& p) {
  std::vector<std::uint32_t> pids = samples | views::filter(tagop::where(p)) | views::transform(&Sample::pid) |
                                    ranges::to<std::vector>();
  pids |= ranges::actions::sort;
  std::map<std::uint32_t, std::uint64_t> out;
  for (auto group : pids | views::chunk_by(std::equal_to<>{}))
    out[ranges::front(group)] = static_cast<std::uint64_t>(ranges::distance(group));
  return out;
}

// pid -> the report's count in column `column`, rows by process.
std::map<std::uint32_t, std::uint64_t> report_per_pid(const report::Report& r, const std::string& column) {
  const report::Column c = report::resolve_column(column);
  REQUIRE(c.event);
  std::map<std::uint32_t, std::uint64_t> out;
  for (std::uint32_t id : r.select(c, 0)) {
    const report::Row row = r.row(id);
    if (row.results[*c.event].count) out[row.pid] += row.results[*c.event].count;
  }
  return out;
}

}  // namespace

TEST_CASE("every derived event's count through the range is the report's total", "[samples_range][ibs]") {
  tagop::perf_data::PerfDataReader reader(example());
  const tagop::amd_ibs::IbsCapture capture(reader.info());
  // The range, lazily, into one vector (many thousand samples).
  const std::vector<Sample> all = samples(reader, capture) | ranges::to<std::vector>();
  REQUIRE(all.size() > 1000);

  tagop::perf_data::PerfDataReader again(example());
  const report::Report r(again, {.by = report::GroupBy::process});
  const tagop::Registry& registry = tagop::Registry::builtin();
  std::size_t compared = 0;
  for (std::size_t q = 0; q < r.query_names().size(); ++q) {
    const tagop::EventEntry* e = registry.lookup(r.query_names()[q], "amd-ibs");
    REQUIRE(e != nullptr);
    const tagop::QueryResult& total = r.totals()[q];
    if (!total.available()) continue;  // a bit this family lacks: no count to compare
    // An event of every sample of its unit has no predicate beyond the unit.
    const std::string predicate =
        e->predicate.empty() ? (e->kind == tagop::SampleKind::fetch ? "fetch" : "op") : std::string(e->predicate);
    INFO(e->code << " " << e->name << ": " << predicate);
    CHECK(static_cast<std::uint64_t>(ranges::count_if(all, tagop::where(predicate))) == total.count);
    ++compared;
  }
  CHECK(compared >= 40);
  CHECK(r.counts().read_op + r.counts().read_fetch == all.size());
}

TEST_CASE("per-process counts of a custom predicate through the range are the report's", "[samples_range][ibs]") {
  const char* const text = "load & dc.miss & !dtlb.l1_miss";
  const tagop::Predicate p = tagop::Predicate::parse(text);

  tagop::perf_data::PerfDataReader reader(example());
  const tagop::amd_ibs::IbsCapture capture(reader.info());
  const auto by_range = per_pid(samples(reader, capture), p);

  // The report keeps the samples --where selects; 0xF100 counts op samples.
  tagop::perf_data::PerfDataReader again(example());
  const report::Report r(again, {.by = report::GroupBy::process, .filters = {.where = p}});
  const auto by_report = report_per_pid(r, "0xF100");
  INFO(text);
  REQUIRE(!by_report.empty());
  CHECK(by_range == by_report);
  std::uint64_t sum = 0;
  for (const auto& [pid, n] : by_range) sum += n;
  CHECK(sum == r.counts().kept_op);
}

TEST_CASE("per-process counts through the range are the report's, on a Zen capture of 23 processes",
          "[samples_range][ibs]") {
  // Op samples whose IbsOpData, IbsOpData2 and IbsOpData3 are random words:
  // every condition of the family true in some and false in others; each
  // process its own number of samples.
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("tagop-samples-range-" + std::to_string(::getpid()) + ".data"))
                               .string();
  {
    tagop::amd_ibs::IbsCaptureWriter w(file, {.family = 0x19, .model = 0x11, .stepping = 1});
    std::uint64_t state = 18, t = 1000;
    for (std::uint32_t pid = 200; pid < 223; ++pid) {
      w.perf().comm(pid, pid, "worker", false, {.pid = pid, .tid = pid, .cpu = 0, .time = t++});
      for (std::uint32_t i = 0; i < 40 + 7 * (pid - 200); ++i) {
        tagop::amd_ibs::IbsRegisters op;
        op.unit = tagop::amd_ibs::IbsUnit::op;
        op.set(tagop::amd_ibs::IbsRegister::IbsOpRip, 0x401000 + (splitmix(state) & 0xFFF));
        op.set(tagop::amd_ibs::IbsRegister::IbsOpData, splitmix(state));
        op.set(tagop::amd_ibs::IbsRegister::IbsOpData2, splitmix(state));
        op.set(tagop::amd_ibs::IbsRegister::IbsOpData3, splitmix(state));
        w.sample(op, pid, pid, pid % 4, t++);
      }
    }
    w.finish();
  }
  for (const char* text : {"load & dc.miss", "branch & branch.mispredicted", "store & !dtlb.l1_miss"}) {
    INFO(text);
    const tagop::Predicate p = tagop::Predicate::parse(text);
    tagop::perf_data::PerfDataReader reader(file);
    const tagop::amd_ibs::IbsCapture capture(reader.info());
    const auto by_range = per_pid(samples(reader, capture), p);
    tagop::perf_data::PerfDataReader again(file);
    const report::Report r(again, {.by = report::GroupBy::process, .filters = {.where = p}});
    const auto by_report = report_per_pid(r, "0xF100");
    CHECK(by_range.size() >= 20);
    CHECK(by_range == by_report);
  }
  std::filesystem::remove(file);
}

TEST_CASE("a range left early stops its reader; a second begin() and a damaged file are errors", "[samples_range]") {
  tagop::perf_data::PerfDataReader reader(example());
  const tagop::amd_ibs::IbsCapture capture(reader.info());
  {
    auto first = samples(reader, capture) | views::take(3) | ranges::to<std::vector>();
    CHECK(first.size() == 3);
  }  // the producer thread, blocked on a full queue, is stopped here
  auto range = samples(reader, capture);
  (void)range.begin();
  try {
    (void)range.begin();
    FAIL("no error");
  } catch (const tagop::Error& e) {
    CHECK(e.code() == tagop::ErrorCode::internal);
  }
  CHECK_THROWS_AS(tagop::where("load & & dc.miss"), tagop::Error);
}
