#include <tagop/emulate/fast_strings.hpp>

#include <algorithm>  // std::min, std::max

namespace tagop::emulate {

bool FastStrings::take(const TraceInstruction& ins, const InstructionInfo& info) {
  ops_.clear();
  if (running_ && ins.ip != ip_) {
    // A run whose last iteration did not leave it (cannot be, with next_ip
    // taken from the trace): its ops as far as it went, then this one.
    TraceInstruction cut{};
    cut.ip = ip_;
    cut.next_ip = ins.ip;
    make_ops(cut, false);
    running_ = false;
  }
  if (!info.fast_string) {
    ops_.push_back(Op{.fed = true});
    return true;
  }
  if (!running_) {
    running_ = true;
    ip_ = ins.ip;
    streams_ = 0;
    iterations_ = 0;
    stream_.fill(Stream{});
  }
  const std::uint32_t kept = std::min<std::uint32_t>(ins.access_count, TraceInstruction::max_accesses);
  if (kept) ++iterations_;
  for (std::uint32_t i = 0; i < kept; ++i) {
    const DataAccess& a = ins.accesses[i];
    Stream& s = stream_[i];
    s.low = std::min(s.low, a.address);
    s.high = std::max(s.high, a.address + a.size);
    s.kind = a.kind;
  }
  streams_ = std::max(streams_, kept);
  // The iterations jump back to the instruction itself; the last goes on.
  if (ins.next_ip == ins.ip) return !ops_.empty();
  make_ops(ins, true);
  running_ = false;
  return true;
}

void FastStrings::make_ops(const TraceInstruction& last, bool fed) {
  if (iterations_ == 0) {  // RCX was 0: the instruction as it ran
    ops_.push_back(fed ? Op{.fed = true} : Op{.ip = last.ip, .next_ip = last.next_ip, .size = last.size});
    return;
  }
  folded_ += iterations_;
  std::uint64_t longest = 0;
  for (std::uint32_t i = 0; i < streams_; ++i) longest = std::max(longest, stream_[i].high - stream_[i].low);
  const std::uint64_t chunks = (longest + chunk_bytes - 1) / chunk_bytes;
  for (std::uint64_t c = 0; c < chunks; ++c)
    for (std::uint32_t i = 0; i < streams_; ++i) {
      const Stream& s = stream_[i];
      const std::uint64_t start = s.low + c * chunk_bytes;
      if (start >= s.high) continue;
      ops_.push_back(Op{.ip = last.ip, .next_ip = last.ip, .size = last.size, .access_count = 1,
                        .access = {start, static_cast<std::uint32_t>(std::min<std::uint64_t>(chunk_bytes, s.high - start)),
                                   s.kind}});
    }
  if (!ops_.empty()) ops_.back().next_ip = last.next_ip;
}

}  // namespace tagop::emulate
