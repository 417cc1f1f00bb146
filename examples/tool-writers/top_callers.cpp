// The callers of one function in a `perf record -g` capture, by samples:
// for each sample whose own frame (its chain's first) is in FUNCTION, the
// function of the frame just above it. Samples' call chains come from the
// range API (Sample::chain); a Symbolizer names their frames.
//
//   perf record -g -e cpu-clock:u -- ./a.out
//   top_callers perf.data leaf
//
// Built outside the tree with only pkg-config (scripts/check-installed-examples.sh):
//   g++ -std=c++20 top_callers.cpp $(pkg-config --cflags --libs tagop)

#include <algorithm>  // std::sort
#include <cstdint>    // std::uint64_t
#include <cstdio>     // std::printf
#include <exception>  // std::exception
#include <map>        // std::map
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include <tagop/perf_data_reader.hpp>     // PerfDataReader
#include <tagop/report/symbolizer.hpp>    // Symbolizer
#include <tagop/samples_range.hpp>        // samples

int main(int argc, char** argv) try {
  using namespace tagop;
  if (argc != 3) {
    std::fprintf(stderr, "usage: top_callers FILE FUNCTION\n");
    return 2;
  }
  const std::string function = argv[2];
  perf_data::PerfDataReader reader(argv[1]);
  report::Symbolizer symbolizer(reader);  // reads the processes' mappings first

  // Any event's samples: what each record says of where and when.
  auto where_and_when = [](const perf_data::SampleRecord& r, Sample& s) {
    s.ip = r.ip;
    s.pid = r.id.pid;
    s.tid = r.id.tid;
    s.time = r.id.time;
    return true;
  };
  std::map<std::string, std::uint64_t> callers;
  std::uint64_t total = 0, in_function = 0;
  for (const Sample& s : samples(reader, where_and_when)) {
    ++total;
    if (s.chain.empty() || symbolizer.name(s.pid, s.chain[0].address, s.time).function != function) continue;
    ++in_function;
    if (s.chain.size() < 2) {
      ++callers["[no caller]"];
      continue;
    }
    const report::Frame caller = symbolizer.name(s.pid, s.chain[1].address, s.time);
    char unnamed[64];
    std::snprintf(unnamed, sizeof unnamed, "+%#llx", static_cast<unsigned long long>(caller.module_offset));
    ++callers[caller.function.empty() ? caller.module + unnamed : caller.function];
  }
  if (in_function == 0) {
    std::fprintf(stderr, "top_callers: no sample of %s is in %s (of %llu samples; recorded with -g?)\n", argv[1],
                 function.c_str(), static_cast<unsigned long long>(total));
    return 1;
  }

  std::vector<std::pair<std::string, std::uint64_t>> sorted(callers.begin(), callers.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::printf("%llu samples in %s, by caller:\n", static_cast<unsigned long long>(in_function), function.c_str());
  for (const auto& [caller, count] : sorted)
    std::printf("%10llu  %6.2f%%  %s\n", static_cast<unsigned long long>(count), 100.0 * count / in_function,
                caller.c_str());
  for (const std::string& warning : symbolizer.warnings()) std::fprintf(stderr, "top_callers: %s\n", warning.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "top_callers: %s\n", e.what());
  return 1;
}
