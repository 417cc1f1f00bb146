#include <tagop/emulate/branch_predictor.hpp>

namespace tagop::emulate {

namespace {

// cg_branchpred.c: N_HIST_BITS, N_IADD_BITS, N_BTAC_BITS (x86: no address bit is dropped).
constexpr unsigned cachegrind_history_bits = 7, cachegrind_address_bits = 7, cachegrind_target_bits = 9;

}  // namespace

BranchPredictor::BranchPredictor(const PredictorSpec& spec, bool cachegrind)
    : counters_(std::size_t{1} << (cachegrind ? cachegrind_history_bits + cachegrind_address_bits : spec.counters_log2),
                cachegrind ? 0 : 1),  // Cachegrind's start at 0; ours weakly not taken
      counter_mask_((std::uint64_t{1} << spec.counters_log2) - 1),
      history_mask_((std::uint64_t{1} << (cachegrind ? cachegrind_history_bits : spec.history_bits)) - 1),
      targets_(cachegrind ? std::size_t{1} << cachegrind_target_bits : spec.indirect_targets ? spec.indirect_targets : 1,
               0),
      stack_(spec.return_stack ? spec.return_stack : 1, 0),
      cachegrind_(cachegrind) {}

bool BranchPredictor::conditional(std::uint64_t ip, bool taken) {
  const std::uint64_t index =
      cachegrind_ ? (history_ << cachegrind_address_bits) | (ip & ((1u << cachegrind_address_bits) - 1))
                  : ((ip >> 1) ^ (history_ << 1)) & counter_mask_;
  std::uint8_t& c = counters_[index];
  const bool predicted = c >= 2;
  if (taken && c < 3) ++c;
  if (!taken && c > 0) --c;
  history_ = ((history_ << 1) | (taken ? 1 : 0)) & history_mask_;
  return predicted != taken;
}

bool BranchPredictor::indirect(std::uint64_t ip, std::uint64_t target) {
  std::uint64_t& last = targets_[cachegrind_ ? ip % targets_.size() : (ip >> 1) % targets_.size()];
  const bool mispredicted = last != target;
  last = target;
  return mispredicted;
}

void BranchPredictor::call(std::uint64_t return_address) {
  stack_[top_] = return_address;
  top_ = (top_ + 1) % stack_.size();
}

bool BranchPredictor::ret(std::uint64_t target) {
  // An empty (or overflowed and wrapped) stack predicts what is left in it.
  top_ = (top_ + stack_.size() - 1) % stack_.size();
  return stack_[top_] != target;
}

}  // namespace tagop::emulate
