#pragma once
// Items handed out in batches to worker threads, each worker with a state of
// its own (a tally), so that no item is shared and nothing is locked per
// item. The thread that adds items never waits: when the workers fall
// behind it works the batch itself. So the queue stays short (memory does
// not grow with the input) and every core, the adding one too, is busy.
// With one thread, add() works each batch in place.

#include <condition_variable>  // std::condition_variable
#include <cstddef>             // std::size_t
#include <deque>               // std::deque
#include <memory>              // std::unique_ptr, std::make_unique_for_overwrite
#include <mutex>               // std::mutex
#include <span>                // std::span
#include <thread>              // std::jthread
#include <utility>             // std::move
#include <vector>              // std::vector

namespace tagop::report {

/// State: `void add(std::span<const Item>)`, a batch at a time (so that the
/// per-item work inlines), which must not throw.
template <typename Item, typename State>
class BatchPool {
 public:
  static constexpr std::size_t batch_size = 4096;

  /// `threads` states (the adding thread's first), each from make(); one
  /// worker thread for each state after the first.
  template <typename Make>
  BatchPool(std::size_t threads, Make make) {
    states_.reserve(threads ? threads : 1);
    for (std::size_t i = 0; i < (threads ? threads : 1); ++i) states_.push_back(make());
    for (std::size_t i = 1; i < states_.size(); ++i)
      workers_.emplace_back([this, i] { work(states_[i]); });
  }
  BatchPool(const BatchPool&) = delete;
  BatchPool& operator=(const BatchPool&) = delete;
  ~BatchPool() { stop(); }

  /// Whether the next add() leaves the batch open (does not work it or hand it on).
  bool has_room() const { return batch_.size + 1 < batch_size; }

  /// Once per item: a store and a compare, no call but for a full batch.
  void add(const Item& item) {
    batch_.items[batch_.size] = item;
    if (++batch_.size == batch_size) submit();
  }

  /// Works what is left and joins the workers: the states are final.
  std::vector<State>& finish() {
    submit();
    stop();
    return states_;
  }

 private:
  // A fixed array, filled to `size`: unlike a vector's push_back, adding
  // to it has no path that reallocates.
  struct Batch {
    std::unique_ptr<Item[]> items = std::make_unique_for_overwrite<Item[]>(batch_size);
    std::size_t size = 0;
    std::span<const Item> filled() const { return {items.get(), size}; }
  };

  void submit() {
    if (batch_.size == 0) return;
    {
      std::unique_lock lock(mutex_);
      if (!workers_.empty() && queue_.size() < 2 * workers_.size()) {
        queue_.push_back(std::move(batch_));
        batch_ = spare(lock);
        ready_.notify_one();
        return;
      }
    }
    states_[0].add(batch_.filled());
    batch_.size = 0;
  }

  // An emptied batch to fill again, so that batches are not reallocated.
  Batch spare(std::unique_lock<std::mutex>&) {
    if (spares_.empty()) return Batch{};
    Batch out = std::move(spares_.back());
    spares_.pop_back();
    out.size = 0;
    return out;
  }

  void work(State& state) {
    std::unique_lock lock(mutex_);
    for (;;) {
      ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      Batch batch = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      state.add(batch.filled());
      lock.lock();
      spares_.push_back(std::move(batch));
    }
  }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    workers_.clear();  // joins
  }

  std::vector<State> states_;
  Batch batch_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Batch> queue_;
  std::vector<Batch> spares_;
  bool stopping_ = false;
  std::vector<std::jthread> workers_;  // last: joined before the rest goes
};

}  // namespace tagop::report
