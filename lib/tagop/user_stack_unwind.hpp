#pragma once
// DWARF unwinding of the user stacks that `perf record --call-graph dwarf`
// copies into each sample (PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER),
// as perf's unwind-libdw.c does it with elfutils' libdw: the sampled
// registers start the unwinding, the stack copy answers reads at the stack
// pointer and above, the mapped files answer the other reads, and each
// module's CFI (.eh_frame, else .debug_frame, also from a separate debug
// file) gives the caller's registers. Programs built without frame
// pointers get their whole chain this way.
//
//   tagop::UserStackUnwinder unwinder({.arch = info.arch});
//   std::vector<std::uint64_t> frames;
//   const std::string why = unwinder.unwind(table, s.id.pid, s.id.tid, tagop::UserStack::of(s), 127, frames);
//   // frames: the user ip, then return addresses, callee before caller
//
// Only x86_64 captures are unwound (the registers' numbering is the
// architecture's): for another architecture unwind() says so and gives no
// frames. The modules' files are found as the symbol lookup finds them
// (find_symbol_files: the build-id cache, --symfs, debug files).
//
// Cost: one libdw session (Dwfl) per process, kept across samples, its
// modules reported when an unwinding first meets them, so that each file's
// CFI is read once per process and not once per sample; the session is
// made again when the process's mappings change under it (an exec, a
// dlopen at a place another file had).
//
// Thread safety: a UserStackUnwinder is not thread-safe (its sessions
// change with every call): one per thread.

#include <cstddef>      // std::byte, std::size_t
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <memory>       // std::unique_ptr
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>               // TAGOP_API
#include <tagop/perf_data_reader.hpp>  // SampleRecord
#include <tagop/process_table.hpp>     // ProcessTable
#include <tagop/symbol_files.hpp>      // SymbolFileSearch

namespace tagop TAGOP_API {

/// The sample_regs_user that `perf record --call-graph dwarf` asks for on
/// x86_64 (perf's PERF_REGS_MASK): every general register, ip, flags, cs
/// and ss; not ds, es, fs, gs.
inline constexpr std::uint64_t x86_64_user_regs_mask = 0xff0fffu;

/// A sample's user registers and stack copy as the kernel wrote them.
struct UserStack {
  /// PERF_SAMPLE_REGS_ABI_*: 0 none (no registers: a kernel thread), 1
  /// 32-bit, 2 64-bit.
  std::uint64_t regs_abi = 0;
  /// The event's sample_regs_user: which registers `regs` holds.
  std::uint64_t regs_mask = 0;
  /// One native-endian u64 per bit of regs_mask, the lowest bit first.
  std::span<const std::byte> regs{};
  /// The copy of the user stack from the stack pointer up.
  std::span<const std::byte> stack{};
  /// How many bytes of `stack` the kernel could copy (its dyn_size); more
  /// than stack.size() is damage.
  std::uint64_t stack_dyn_size = 0;

  /// The fields of a parsed sample (its attr's sample_regs_user).
  static UserStack of(const perf_data::SampleRecord& s);
  /// Whether the sample carries registers and a stack copy to unwind.
  bool present() const { return regs_abi != 0 && !regs.empty() && !stack.empty(); }
};

/// How a UserStackUnwinder finds files and what it unwinds.
struct UserStackUnwindOptions {
  /// Where the modules' files and debug files are (`--symfs`, the
  /// build-id cache, /usr/lib/debug).
  SymbolFileSearch search{};
  /// The recording machine's architecture (HEADER_ARCH, FileInfo::arch);
  /// "" for a capture without one, taken as x86_64. Only "x86_64" unwinds.
  std::string arch{};
};

/// What a UserStackUnwinder has done, for reports of its cost.
struct UserStackUnwindStats {
  std::uint64_t samples = 0;   ///< calls of unwind()
  std::uint64_t frames = 0;    ///< frames they gave
  std::uint64_t sessions = 0;  ///< libdw sessions made (one per process, more when mappings changed)
  std::uint64_t modules = 0;   ///< modules reported to them
};

/// Unwinds sampled user stacks; keeps one libdw session per process.
class UserStackUnwinder {
 public:
  /// An unwinder with no sessions yet.
  explicit UserStackUnwinder(UserStackUnwindOptions options = {});
  ~UserStackUnwinder();
  UserStackUnwinder(const UserStackUnwinder&) = delete;
  UserStackUnwinder& operator=(const UserStackUnwinder&) = delete;

  /// Whether captures of `arch` (a `uname -m`, "" unknown) can be
  /// unwound: "x86_64" and "".
  static bool supports(std::string_view arch);

  /// Appends to `frames` the user frames of a sample of process `pid`,
  /// thread `tid`: the sampled user ip first, then the return addresses
  /// of its callers, callee before caller, as a PERF_SAMPLE_CALLCHAIN
  /// user part has them (perf's unwind-libdw stores each return address
  /// less one; here they are as on the stack). At most `max_frames`.
  /// `table` holds the process's mappings as they were at the sample's
  /// time. The unwinding ends where the stack copy or the CFI ends (at
  /// _start, or at a frame of a file without CFI), as perf's does: that is
  /// no error. Returns "" when it unwound; else why not, in words: with
  /// no frames when the sample cannot be unwound at all (no registers,
  /// another architecture, a 32-bit process, a stack copy whose sizes
  /// disagree, no ip or stack pointer among the registers), with the ip
  /// alone when its module cannot be read (no file, anonymous memory).
  /// Never throws for bad input, and reads nothing outside the copy but
  /// the modules' files. A reason names no address of the sample's, so
  /// that samples may be counted by reason.
  std::string unwind(const ProcessTable& table, std::uint32_t pid, std::uint32_t tid, const UserStack& stack,
                     std::size_t max_frames, std::vector<std::uint64_t>& frames);

  /// "FILE: why" for each module whose file could not be found or read
  /// (once each): its frames end the unwinding.
  const std::vector<std::string>& module_problems() const;
  /// Counts of the work done so far.
  const UserStackUnwindStats& stats() const;
  /// Ends every session (their files are closed); the next unwind()
  /// starts afresh.
  void clear();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tagop
