// BatchPool: every item is worked exactly once, by some state, whatever the
// number of threads; the adding thread works batches too when the workers
// fall behind; finish() leaves the states final.

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <set>
#include <span>
#include <thread>

#include "../../report/batch_pool.hpp"

using tagop::report::BatchPool;

namespace {

struct Sum {
  std::uint64_t items = 0, total = 0;
  std::set<std::thread::id> threads;
  bool slow = false;
  void add(std::span<const std::uint64_t> batch) {
    for (const std::uint64_t item : batch) {
      ++items;
      total += item;
      threads.insert(std::this_thread::get_id());
      if (slow && item % 1000 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
};

}  // namespace

TEST_CASE("BatchPool works every item once", "[threads]") {
  const std::uint64_t n = 100003;  // not a whole number of batches
  for (std::size_t threads : {1, 2, 4}) {
    INFO("threads " << threads);
    BatchPool<std::uint64_t, Sum> pool(threads, [] { return Sum{}; });
    for (std::uint64_t i = 1; i <= n; ++i) pool.add(i);
    std::uint64_t items = 0, total = 0;
    std::set<std::thread::id> threads_seen;
    const auto& states = pool.finish();
    REQUIRE(states.size() == threads);
    for (const Sum& s : states) {
      items += s.items;
      total += s.total;
      threads_seen.insert(s.threads.begin(), s.threads.end());
      CHECK(s.threads.size() <= 1);  // a state is one thread's
    }
    CHECK(items == n);
    CHECK(total == n * (n + 1) / 2);
    if (threads == 1) CHECK(threads_seen == std::set{std::this_thread::get_id()});
  }
}

TEST_CASE("BatchPool: the adding thread works when the workers are behind", "[threads]") {
  BatchPool<std::uint64_t, Sum> pool(2, [] {
    Sum s;
    s.slow = true;
    return s;
  });
  for (std::uint64_t i = 1; i <= 200000; ++i) pool.add(i);
  const auto& states = pool.finish();
  // The worker sleeps 0.2 ms every 1000 items; the queue holds 2 batches:
  // the adding thread cannot have left everything to it.
  CHECK(states[0].items > 0);
  CHECK(states[0].items + states[1].items == 200000);
}

TEST_CASE("BatchPool with no items, and destroyed without finish()", "[threads]") {
  {
    BatchPool<std::uint64_t, Sum> pool(3, [] { return Sum{}; });
    for (const Sum& s : pool.finish()) CHECK(s.items == 0);
  }
  {
    BatchPool<std::uint64_t, Sum> pool(3, [] { return Sum{}; });
    for (std::uint64_t i = 0; i < 10000; ++i) pool.add(i);
  }  // joins its workers: no crash, no leak (the sanitizers' run checks)
}
