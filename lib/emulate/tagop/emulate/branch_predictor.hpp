#pragma once
// The model's branch predictor: gshare (global history XORed with the
// address, 2-bit counters) for the direction of conditional branches, a
// direct-mapped last-target buffer for indirect jumps and calls, and a
// return stack. Direct jumps and calls are taken to be predicted (their
// target is in the instruction; the model has no BTB capacity misses).
// With `cachegrind`, it is Cachegrind's predictor instead (cg_branchpred.c,
// CacheBehaviour::cachegrind_branches), for an exact comparison.
// Not thread-safe: one predictor's state, updated from one thread.

#include <cstdint>  // std::uint64_t, std::uint8_t
#include <vector>   // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/emulate/microarchitecture.hpp>  // PredictorSpec

namespace tagop TAGOP_API {
namespace emulate {

class BranchPredictor {
 public:
  /// The part's predictor, or with `cachegrind` Cachegrind's: 2^14
  /// counters indexed by 7 history bits above 7 address bits, all 0 (strongly
  /// not taken) at the start, and a 512-entry target table by the low 9
  /// address bits.
  explicit BranchPredictor(const PredictorSpec& spec, bool cachegrind = false);

  /// A conditional branch at `ip` went `taken`: true when mispredicted.
  bool conditional(std::uint64_t ip, bool taken);
  /// An indirect jump or call at `ip` went to `target`: true when mispredicted.
  bool indirect(std::uint64_t ip, std::uint64_t target);
  /// A call: its return address goes on the return stack.
  void call(std::uint64_t return_address);
  /// A return to `target`: true when the return stack predicted another address.
  bool ret(std::uint64_t target);

 private:
  std::vector<std::uint8_t> counters_;  ///< 2-bit saturating, 2 and 3 predict taken
  std::uint64_t counter_mask_;
  std::uint64_t history_ = 0;
  std::uint64_t history_mask_;
  std::vector<std::uint64_t> targets_;  ///< last target by address
  std::vector<std::uint64_t> stack_;    ///< circular return stack
  std::size_t top_ = 0;                 ///< where the next call's address goes
  bool cachegrind_ = false;
};

}  // namespace emulate
}  // namespace tagop
