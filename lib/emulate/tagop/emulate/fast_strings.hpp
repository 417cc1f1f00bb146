#pragma once
// REP MOVS and REP STOS as the processor runs them. Valgrind executes a
// string instruction one iteration at a time: a 4 KiB `rep movsb` is 4097
// trace instructions (4096 iterations of a 1-byte load and store, and the
// last check of RCX), which is what Cachegrind counts. The hardware's
// fast-string microcode (Intel SDM vol. 1, 7.3.9.3 "Fast-String
// Operation"; AMD's REP MOVS/STOS likewise) moves the string in
// cache-line pieces instead. FastStrings folds the iterations of one run
// of such an instruction into ops of whole chunks: for each 64-byte chunk
// of the string, one op per memory stream of the instruction (MOVS: a load
// of the chunk and a store of it; STOS: a store), each with one access of
// the chunk's size. A string of N bytes is so ceil(N / 64) chunks; a run
// that moved nothing (RCX 0) stays the one instruction it was.
// Not thread-safe: one trace's state, fed from one thread.
//
//   FastStrings strings;
//   strings.feed(ins, info, [&](const TraceInstruction& op) { model.retire(op, ...); });

#include <array>    // std::array
#include <cstdint>  // std::uint64_t
#include <vector>   // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/emulate/instruction.hpp>   // InstructionInfo
#include <tagop/emulate/lackey_trace.hpp>  // TraceInstruction

namespace tagop TAGOP_API {
namespace emulate {

/// Folds the iterations of REP MOVS/STOS into fast-string chunk ops (see above).
class FastStrings {
 public:
  /// The bytes of one chunk: a cache line (the SDM's fast-string
  /// operation moves whole lines where the size allows).
  static constexpr std::uint32_t chunk_bytes = 64;

  /// Hands `emit` the ops of `ins`: `ins` itself, or, for a REP MOVS or
  /// STOS, nothing until its last iteration, then one op per chunk and
  /// stream (see above).
  template <typename Emit>
  void feed(const TraceInstruction& ins, const InstructionInfo& info, Emit&& emit) {
    if (!info.fast_string && !running_) {
      emit(ins);
      return;
    }
    if (!take(ins, info)) return;
    for (const Op& op : ops_) {
      if (op.fed) {
        emit(ins);
        continue;
      }
      // One reused instruction: a TraceInstruction holds max_accesses
      // accesses, too many bytes to build one per chunk.
      scratch_.ip = op.ip;
      scratch_.size = op.size;
      scratch_.next_ip = op.next_ip;
      scratch_.access_count = op.access_count;
      scratch_.accesses[0] = op.access;
      emit(scratch_);
    }
  }

  /// Iterations folded into chunk ops so far.
  std::uint64_t folded_iterations() const { return folded_; }

 private:
  // Adds one iteration; true when the run ended with it and ops_ holds its ops.
  bool take(const TraceInstruction& ins, const InstructionInfo& info);
  // `fed`: `last` is the instruction being fed (handed on as it is when
  // nothing was folded), not one made up for a run that was cut.
  void make_ops(const TraceInstruction& last, bool fed);

  // An op to hand on: the instruction fed itself, or one with at most one access.
  struct Op {
    bool fed = false;
    std::uint64_t ip = 0, next_ip = 0;
    std::uint32_t size = 0, access_count = 0;
    DataAccess access{};
  };

  // One memory stream of the string (MOVS: source, destination): the
  // bytes its iterations touched, lowest to highest (DF may run it down).
  struct Stream {
    std::uint64_t low = ~std::uint64_t{0}, high = 0;
    AccessKind kind = AccessKind::load;
  };
  bool running_ = false;
  std::uint64_t ip_ = 0;
  std::uint32_t streams_ = 0;
  std::uint64_t iterations_ = 0, folded_ = 0;
  std::array<Stream, TraceInstruction::max_accesses> stream_{};
  std::vector<Op> ops_;
  TraceInstruction scratch_{};
};

}  // namespace emulate
}  // namespace tagop
