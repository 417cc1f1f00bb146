#pragma once
// Items dealt to states by shard: every item of a shard goes to that
// shard's state, so that no two states hold the same key (the report's
// tallies are sharded by address). The adding thread works shard 0 itself,
// item by item; each other shard has a worker thread, fed in batches
// through a short queue. The adding thread waits when a queue is full, so
// memory does not grow with the input. With one shard nothing is queued.
// Each side counts the times it found the other behind (waits()), so that
// the adding thread can take more of the items or fewer.
//
// Items are written to a batch past the caches (non-temporal stores): the
// batch's lines were last in the worker's cache, and stored the usual way
// each line first came back from there. That cost the adding thread 7 ns
// an item (10 M items: 0.17 s where a walk without handing on took 0.09),
// and much more whenever the host put the two CPUs of this VM far apart
// (a report of 0.44 s where one thread took 0.28).

#if defined(__SSE2__)
#include <emmintrin.h>  // _mm_stream_si128, _mm_sfence
#endif

#include <algorithm>           // std::min
#include <array>               // std::array
#include <atomic>              // std::atomic
#include <condition_variable>  // std::condition_variable
#include <cstdint>             // std::uint64_t
#include <cstddef>             // std::size_t
#include <deque>               // std::deque
#include <cstring>             // std::memcpy
#include <memory>              // std::unique_ptr
#include <new>                 // std::align_val_t
#include <type_traits>         // std::is_trivially_copyable_v
#include <utility>             // std::index_sequence
#include <mutex>               // std::mutex
#include <span>                // std::span
#include <thread>              // std::jthread
#include <vector>              // std::vector

namespace tagop::report {

/// State: `void add(const Item&)`, which must not throw.
template <typename Item, typename State>
class ShardPool {
 public:
  static constexpr std::size_t batch_size = 2048;
  static constexpr std::size_t queue_depth = 4;  // batches waiting, per worker

  /// `shards` states (the adding thread's first), each from make().
  template <typename Make>
  ShardPool(std::size_t shards, Make make) {
    if (shards == 0) shards = 1;
    states_.reserve(shards);
    for (std::size_t i = 0; i < shards; ++i) states_.push_back(make());
    lanes_ = std::vector<Lane>(shards - 1);
    for (std::size_t i = 1; i < shards; ++i) lanes_[i - 1].worker = std::jthread([this, i] { work(lanes_[i - 1], states_[i]); });
  }
  ShardPool(const ShardPool&) = delete;
  ShardPool& operator=(const ShardPool&) = delete;
  ~ShardPool() { stop(); }

  std::size_t shards() const { return states_.size(); }

  /// The times, since the last call, that the adding thread found a queue
  /// full (the workers behind) and that a worker found its queue empty
  /// (the adding thread behind).
  struct Waits {
    std::uint64_t adder = 0, workers = 0;
  };
  Waits waits() {
    return {adder_waits_.exchange(0, std::memory_order_relaxed),
            worker_waits_.exchange(0, std::memory_order_relaxed)};
  }
  State& first() { return states_[0]; }

  /// Once per item: shard 0's is worked in batches of its own, the
  /// next time one fills; another's is stored, and its batch handed on
  /// when full.
  [[gnu::always_inline]] void add(std::size_t shard, const Item& item) {
    if (shard == 0) {
      own_[own_size_] = item;
      if (++own_size_ == own_batch) work_own();
      return;
    }
    Lane& lane = lanes_[shard - 1];
    store_past_caches(lane.filling.get() + lane.size, item);
    if (++lane.size == batch_size) submit(lane);
  }

  /// Hands on what is left and joins the workers: the states are final.
  std::vector<State>& finish() {
    work_own();
    for (Lane& lane : lanes_) submit(lane);
    stop();
    return states_;
  }

 private:
  static_assert(std::is_trivially_copyable_v<Item> && sizeof(Item) % 8 == 0, "an item is stored in 8-byte words");
  // Word by word from registers (an Item made in them): copied through
  // the stack in 16-byte parts, each part's load waited for the smaller
  // stores that made it (a store forwarded to a wider load stalls).
  // Unrolled by hand: GCC kept the loop, and the words went through the
  // stack on their way (26 of the reading thread's 160 instructions an item).
  [[gnu::always_inline]] static void store_past_caches(Item* to, const Item& item) {
    std::uint64_t words[sizeof(Item) / 8];
    std::memcpy(words, &item, sizeof(Item));
#if defined(__SSE2__) && defined(__x86_64__)
    auto* const out = reinterpret_cast<long long*>(to);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (_mm_stream_si64(out + I, static_cast<long long>(words[I])), ...);
    }(std::make_index_sequence<sizeof(Item) / 8>{});
#else
    std::memcpy(to, words, sizeof(Item));
#endif
  }
  // The stores past the caches are ordered before the batch is handed on.
  static void stores_done() {
#if defined(__SSE2__)
    _mm_sfence();
#endif
  }

  // A batch's items, on a 64-byte boundary (the stores want 16).
  struct AlignedDelete {
    void operator()(Item* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  using Batch = std::unique_ptr<Item[], AlignedDelete>;
  static Batch new_batch() {
    return Batch(static_cast<Item*>(::operator new[](batch_size * sizeof(Item), std::align_val_t{64})));
  }
  struct Queued {
    Batch items;
    std::size_t size;
  };
  struct Lane {
    Batch filling = new_batch();
    std::size_t size = 0;
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Queued> queue;
    std::vector<Batch> spares;
    bool stopping = false;
    std::jthread worker;  // last: joined before the rest goes
  };

  void submit(Lane& lane) {
    if (lane.size == 0) return;
    stores_done();
    std::unique_lock lock(lane.mutex);
    if (lane.queue.size() >= queue_depth) adder_waits_.fetch_add(1, std::memory_order_relaxed);
    lane.changed.wait(lock, [&] { return lane.queue.size() < queue_depth; });
    lane.queue.push_back({std::move(lane.filling), lane.size});
    if (lane.spares.empty()) {
      lane.filling = new_batch();
    } else {
      lane.filling = std::move(lane.spares.back());
      lane.spares.pop_back();
    }
    lane.size = 0;
    lane.changed.notify_all();
  }

  void work(Lane& lane, State& state) {
    std::unique_lock lock(lane.mutex);
    for (;;) {
      if (lane.queue.empty() && !lane.stopping) worker_waits_.fetch_add(1, std::memory_order_relaxed);
      lane.changed.wait(lock, [&] { return lane.stopping || !lane.queue.empty(); });
      if (lane.queue.empty()) return;  // stopping, and nothing left
      Queued batch = std::move(lane.queue.front());
      lane.queue.pop_front();
      lane.changed.notify_all();
      lock.unlock();
      work_batch(state, batch.items.get(), batch.size);
      lock.lock();
      lane.spares.push_back(std::move(batch.items));
    }
  }

  // A state that reads memory an item points at may fetch it a few
  // items ahead (State::prefetch): that memory was last in the adding
  // thread's cache, and each fetch from there is a wait the worker's own
  // work does not cover.
  static constexpr std::size_t prefetch_distance = 8;
  static void work_batch(State& state, const Item* items, std::size_t size) {
    if constexpr (requires { state.prefetch(items[0]); }) {
      for (std::size_t i = 0; i < std::min(size, prefetch_distance); ++i) state.prefetch(items[i]);
      for (std::size_t i = 0; i < size; ++i) {
        if (i + prefetch_distance < size) state.prefetch(items[i + prefetch_distance]);
        state.add(items[i]);
      }
    } else {
      for (std::size_t i = 0; i < size; ++i) state.add(items[i]);
    }
  }

  // The adding thread's own items wait in a small batch rather than
  // being worked as they come: its loop that hands items on then keeps
  // its values in registers (the state's add, inlined there, spilled
  // them all to the stack: 40 of its 150 instructions an item).
  static constexpr std::size_t own_batch = 256;
  [[gnu::noinline]] void work_own() {
    work_batch(states_[0], own_.data(), own_size_);
    own_size_ = 0;
  }

  void stop() {
    for (Lane& lane : lanes_) {
      {
        std::lock_guard lock(lane.mutex);
        lane.stopping = true;
      }
      lane.changed.notify_all();
      if (lane.worker.joinable()) lane.worker.join();
    }
  }

  std::vector<State> states_;
  std::vector<Lane> lanes_;
  std::array<Item, own_batch> own_;
  std::size_t own_size_ = 0;
  std::atomic<std::uint64_t> adder_waits_{0}, worker_waits_{0};
};

}  // namespace tagop::report
