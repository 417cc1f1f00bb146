// Samples per second of the hot path of every report: IBS decode and the
// aggregation of all 59 derived events. In the same run, the obvious
// alternative (test every event's predicate on every sample) as the
// yardstick.
//
//   build/bench/engine-bench [SAMPLES]

#include <chrono>
#include <cstdlib>
#include <random>
#include <vector>

#include <fmt/format.h>

#include <tagop/amd_ibs/decoder.hpp>
#include <tagop/amd_ibs/derived_events.hpp>

using namespace tagop;
using namespace tagop::amd_ibs;
using Clock = std::chrono::steady_clock;

namespace {

// A program-like mix: few distinct behaviours, as real captures have
// (random bits everywhere would be the worst case; that is measured too).
std::vector<IbsRegisters> make_samples(std::size_t n, bool fully_random) {
  std::mt19937_64 random(1);
  const std::uint64_t data3_shapes[] = {0, 0x20001, 0x9600020081, 0x012C0002008D, 0x20082, 0x2800020091};
  const std::uint64_t data_shapes[] = {0x00140003, 0x3000080002, 0x2800040001, 0x00200004};
  std::vector<IbsRegisters> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    IbsRegisters& r = out[i];
    const std::uint64_t x = random();
    if (i % 4 == 0) {
      r.unit = IbsUnit::fetch;
      r.set(IbsRegister::IbsFetchCtl, fully_random ? x : (0x0017000400000000 | ((x & 0x3F) << 32)));
      r.set(IbsRegister::IbsFetchLinAd, 0x400000 + (x >> 40));
      r.set(IbsRegister::IbsFetchPhysAd, 0x1000);
    } else {
      r.unit = IbsUnit::op;
      r.set(IbsRegister::IbsOpCtl, 0x61000);
      r.set(IbsRegister::IbsOpRip, 0x400000 + (x >> 40));
      r.set(IbsRegister::IbsOpData, fully_random ? random() : data_shapes[x % 4] | ((x >> 8) & 0xFF));
      r.set(IbsRegister::IbsOpData2, fully_random ? random() : (x >> 20) % 4);
      r.set(IbsRegister::IbsOpData3, fully_random ? random() : data3_shapes[(x >> 4) % 6] | (((x >> 12) & 0xFF) << 32));
      r.set(IbsRegister::IbsDcLinAd, x);
      r.set(IbsRegister::IbsDcPhysAd, x >> 16);
    }
  }
  return out;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 5'000'000;
  const IbsDecoder decoder(0x10, 4);
  const auto queries = derived_event_queries();
  fmt::print("{} IBS samples (1 fetch : 3 op), Family 10h, all {} derived events\n", n, queries.size());
  for (bool fully_random : {false, true}) {
    const auto samples = make_samples(n, fully_random);

    auto t = Clock::now();
    std::uint64_t checksum = 0;
    for (const auto& r : samples) checksum += decoder.decode(r).conditions.words[0];
    const double decode_s = seconds_since(t);

    t = Clock::now();
    Aggregator a;
    for (const auto& r : samples) a.add(decoder.decode(r));
    const auto results = a.evaluate(queries);
    const double engine_s = seconds_since(t);

    t = Clock::now();
    std::vector<std::uint64_t> naive(queries.size(), 0);
    for (const auto& r : samples) {
      const Sample s = decoder.decode(r);
      for (std::size_t q = 0; q < queries.size(); ++q)
        if (queries[q].predicate.matches(s.conditions))
          naive[q] += queries[q].sums ? s.measures[queries[q].sums->index] : 1;
    }
    const double naive_s = seconds_since(t);

    bool same = true;
    for (std::size_t q = 0; q < queries.size(); ++q)
      same = same && naive[q] == (queries[q].sums ? results[q].total : results[q].count);
    fmt::print("{} registers: {} distinct signatures\n", fully_random ? "random" : "program-like", a.entries().size());
    fmt::print("  decode only                 {:7.1f} M samples/s\n", n / decode_s / 1e6);
    fmt::print("  decode + engine (signature) {:7.1f} M samples/s\n", n / engine_s / 1e6);
    fmt::print("  decode + every predicate    {:7.1f} M samples/s  (engine is {:.1f}x faster){}\n", n / naive_s / 1e6,
               naive_s / engine_s, same ? "" : "  RESULTS DIFFER");
    if (checksum == 42) fmt::print("\n");  // keeps the decode loop from being optimised away
  }
}
