#pragma once
// The pages of a file mapping that is read once, front to back: those a
// little behind the reader are given back (MADV_DONTNEED), so that RSS
// stays flat however long the file (a 17 MiB capture's pages, all held to
// the end of its walk, were the most of a report's peak); and for a long
// file a helper thread maps in the windows ahead of the reader
// (MADV_POPULATE_READ, Linux 5.14; where the kernel lacks it, the reader
// takes the page faults as before), so that the reading thread does not
// fault. Pages given back stay readable: touching one again reads it from
// the file.
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
  /// How far ahead the helper maps pages in.
  static constexpr std::uint64_t window = 8ull << 20;
  /// How far behind the reader pages are kept (the records a walk holds
  /// on to a while, in its window of time, are mostly within it).
  static constexpr std::uint64_t behind = 2ull << 20;
  /// How often the reader should say where it is.
  static constexpr std::uint64_t step = 1ull << 20;

  /// `base` is a mapping of `size` bytes; reading starts at `from`. With
  /// `ahead`, a helper thread maps the pages ahead in (worth a thread for
  /// a long file only).
  PageKeeper(const std::byte* base, std::uint64_t size, std::uint64_t from, bool ahead);
  ~PageKeeper();
  PageKeeper(const PageKeeper&) = delete;
  PageKeeper& operator=(const PageKeeper&) = delete;

  /// The reader is at `at`; call it about once a `step`. Gives back the
  /// pages more than `behind` before it.
  void reached(std::uint64_t at) { reached(at, at); }
  /// The same where other threads still read records before `at` (those
  /// the reader handed on): the pages given back are those more than
  /// `behind` before `read_from` (at most `at`), the oldest such record.
  void reached(std::uint64_t at, std::uint64_t read_from);

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
  std::jthread helper_;  ///< last: started once the rest is set (none without `ahead`)
};

}  // namespace tagop
