#include <tagop/page_keeper.hpp>

#include <sys/mman.h>  // madvise
#include <unistd.h>    // sysconf

#include <algorithm>  // std::min

namespace tagop {

namespace {

#ifndef MADV_POPULATE_READ
constexpr int MADV_POPULATE_READ = 22;  // linux/mman.h, Linux 5.14
#endif

}  // namespace

PageKeeper::PageKeeper(const std::byte* base, std::uint64_t size, std::uint64_t from, bool ahead)
    : base_(base),
      size_(size),
      page_(static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE))),
      populated_(from / page_ * page_),
      released_(0),
      at_(from) {
  if (ahead) helper_ = std::jthread([this] { keep(); });
}

PageKeeper::~PageKeeper() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  moved_.notify_one();
}

void PageKeeper::reached(std::uint64_t at, std::uint64_t read_from) {
  {
    std::lock_guard lock(mutex_);
    at_ = at;
  }
  moved_.notify_one();
  // Given back here, not by the helper: a helper kept waiting for a CPU
  // would let the mapped pages, and RSS, grow.
  if (read_from > released_ + behind + page_) {
    const std::uint64_t upto = (read_from - behind) / page_ * page_;
    madvise(const_cast<std::byte*>(base_) + released_, upto - released_, MADV_DONTNEED);
    released_ = upto;
  }
}

void PageKeeper::keep() {
  auto* const base = const_cast<std::byte*>(base_);  // madvise takes void*; nothing is written
  bool populate = true;
  std::uint64_t seen = ~std::uint64_t{0};
  std::unique_lock lock(mutex_);
  for (;;) {
    moved_.wait(lock, [&] { return stopping_ || at_ != seen; });
    if (stopping_) return;
    seen = at_;
    lock.unlock();
    const std::uint64_t ahead = std::min(size_, (seen + 2 * window + page_ - 1) / page_ * page_);
    if (populate && ahead > populated_) {
      // Failure (an old kernel) only means the reader faults the pages in.
      populate = madvise(base + populated_, ahead - populated_, MADV_POPULATE_READ) == 0;
      populated_ = ahead;
    }
    lock.lock();
  }
}

}  // namespace tagop
