#pragma once
// A file mapping that survives the file shrinking under it.
//
// Reading a page of a mapping past the end of its file raises SIGBUS, and
// a capture may be cut short while it is read (another `perf record -o` of
// the same name, a truncate, a full disk that a copy gave up on). While a
// guard lives, a SIGBUS inside its mapping is answered by mapping zeros
// over the rest of it (the faulting read then sees zeros, and so does every
// later one) and noting where: the reader sees zero record headers there,
// stops, and says that the file shrank, keeping what it had read, as perf
// does for a file that is still being written. A SIGBUS anywhere else goes
// to the handler that was there before, or kills the process as before.

#include <cstddef>   // std::byte, std::size_t
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional

namespace tagop::perf_data {

/// Symbol files are mapped by libelf, which tagop cannot hand a guard: while
/// a ZeroFillScope lives, a SIGBUS for an address past a mapped file's end
/// (BUS_ADRERR) anywhere outside the guarded captures is answered by a page
/// of zeros there, and the address kept (faulted_within() finds it). A
/// symbol table then reads zeros (no name, no line) where the file shrank,
/// and says so, instead of the process dying.
class ZeroFillScope {
 public:
  ZeroFillScope();
  ~ZeroFillScope();
  ZeroFillScope(const ZeroFillScope&) = delete;
  ZeroFillScope& operator=(const ZeroFillScope&) = delete;

  /// Whether a page of [base, base + size) read zeros because its file shrank.
  static bool faulted_within(const void* base, std::size_t size);
};

class ShrinkGuard {
 public:
  /// Guards `size` bytes mapped at `base` (a whole number of pages from it).
  ShrinkGuard(const std::byte* base, std::size_t size);
  ~ShrinkGuard();
  ShrinkGuard(const ShrinkGuard&) = delete;
  ShrinkGuard& operator=(const ShrinkGuard&) = delete;

  /// The offset of the first page that read zeros because the file had
  /// shrunk, or nullopt while none has.
  std::optional<std::uint64_t> cut() const;

 private:
  int slot_ = -1;  // in the table the signal handler searches; -1: unguarded
};

}  // namespace tagop::perf_data
