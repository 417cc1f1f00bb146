// Per-function counts of your own predicate over an IBS capture: the
// report engine of `tagop report`, as a library call.
//
//   function_counts perf.data 'load & dc.miss & !dtlb.l1_miss'
//
// Built outside the tree with only pkg-config (scripts/check-installed-examples.sh):
//   g++ -std=c++20 function_counts.cpp $(pkg-config --cflags --libs tagop)

#include <cstdint>    // std::uint64_t
#include <cstdio>     // std::printf
#include <exception>  // std::exception

#include <tagop/perf_data_reader.hpp>  // PerfDataReader
#include <tagop/predicate.hpp>         // Predicate
#include <tagop/report/columns.hpp>    // resolve_column
#include <tagop/report/report.hpp>     // Report

int main(int argc, char** argv) try {
  using namespace tagop;
  if (argc != 3) {
    std::fprintf(stderr, "usage: function_counts FILE PREDICATE\n");
    return 2;
  }
  perf_data::PerfDataReader reader(argv[1]);
  report::Options options{.by = report::GroupBy::function};
  options.filters.where = Predicate::parse(argv[2]);  // only the samples that meet it
  const report::Report r(reader, options);
  if (!r.ibs()) {
    std::fprintf(stderr, "function_counts: %s has no IBS samples, so no conditions to test\n", argv[1]);
    return 1;
  }

  // "samples": fetch and op samples kept; its value is the sum of these queries.
  const report::Column samples = report::resolve_column("samples");
  std::printf("%s: %llu op samples meet %s (%llu did not decide it)\n", argv[1],
              static_cast<unsigned long long>(r.counts().kept_op), options.filters.where->to_string().c_str(),
              static_cast<unsigned long long>(r.counts().where_undecided));
  for (std::uint32_t id : r.select(samples, 10)) {
    const report::Row row = r.row(id);
    std::uint64_t n = 0;
    for (std::size_t q : samples.samples_of) n += row.results[q].count;
    std::printf("%10llu  %6.2f%%  %s\n", static_cast<unsigned long long>(n), r.overhead(row.results), row.name.c_str());
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "function_counts: %s\n", e.what());
  return 1;
}
