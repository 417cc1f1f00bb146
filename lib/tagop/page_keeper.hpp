#pragma once
// The pages of a file mapping that is read once, front to back: a helper
// thread maps in the windows ahead of the reader (MADV_POPULATE_READ, Linux
// 5.14; where the kernel lacks it, the reader takes the page faults as
// before), so that the reading thread does not fault; the pages a window
// behind it are given back (MADV_DONTNEED), so that RSS stays flat however
// long the file. Pages given back stay readable: touching one again reads
// it from the file.
//
// Thread safety: not thread-safe for its user: one reading thread calls reached() (the keeper's helper
// thread is its own business).

#include <condition_variable>  // std::condition_variable
#include <cstddef>             // std::byte
#include <cstdint>             // std::uint64_t
#include <mutex>               // std::mutex
#include <thread>              // std::jthread

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

class PageKeeper {
 public:
  static constexpr std::uint64_t window = 8ull << 20;

  /// `base` is a mapping of `size` bytes; reading starts at `from`.
  PageKeeper(const std::byte* base, std::uint64_t size, std::uint64_t from);
  ~PageKeeper();
  PageKeeper(const PageKeeper&) = delete;
  PageKeeper& operator=(const PageKeeper&) = delete;

  /// The reader is at `at`; call it about once a window. Gives back the
  /// pages before the last window or so.
  void reached(std::uint64_t at);

 private:
  void keep();

  const std::byte* base_;
  std::uint64_t size_, page_;
  std::uint64_t populated_;  ///< the helper's own
  std::uint64_t released_;   ///< the reader's own
  std::mutex mutex_;
  std::condition_variable moved_;
  std::uint64_t at_;
  bool stopping_ = false;
  std::jthread helper_;  ///< last: started once the rest is set
};

}  // namespace tagop
