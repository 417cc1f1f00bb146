// LiveSampleRange: pulls from the session on the iterating thread, a
// buffer's worth at a time, and only when the loop asks for a sample past
// those it has (so take(n) reads nothing after the n-th).

#include <tagop/live_samples.hpp>

#include <cstddef>  // std::size_t
#include <vector>   // std::vector

#include <tagop/error.hpp>  // Error

namespace tagop {

namespace detail {

class LiveSampleSource {
 public:
  LiveSampleSource(SamplingSession& session, std::chrono::milliseconds poll) : session_(&session), poll_(poll) {}

  void start() {
    if (started_) throw Error(ErrorCode::internal, "LiveSampleRange: begin() called twice on a single-pass range");
    started_ = true;
    session_->start();
  }
  const Sample& current() {
    fill();
    if (at_end_) throw Error(ErrorCode::internal, "LiveSampleRange: read past the end");
    return batch_[at_];
  }
  void next() { ++at_; }
  bool at_end() {
    fill();
    return at_end_;
  }

 private:
  // When the batch is used up: reads the buffers, waiting while they are
  // empty and the target is there; after the target is gone, one last read
  // takes what it left in the buffers.
  void fill() {
    if (at_ < batch_.size() || at_end_) return;
    batch_.clear();
    at_ = 0;
    for (;;) {
      session_->read_samples([this](const Sample& s) { batch_.push_back(s); });
      if (!batch_.empty()) return;
      if (target_gone_) {
        at_end_ = true;
        return;
      }
      if (!session_->target_running()) target_gone_ = true;
      else session_->wait(poll_);
    }
  }

  SamplingSession* session_;
  std::chrono::milliseconds poll_;
  bool started_ = false, target_gone_ = false, at_end_ = false;
  std::vector<Sample> batch_;
  std::size_t at_ = 0;
};

}  // namespace detail

LiveSampleRange::LiveSampleRange(SamplingSession& session, std::chrono::milliseconds poll)
    : source_(std::make_shared<detail::LiveSampleSource>(session, poll)) {}

LiveSampleRange::cursor LiveSampleRange::begin_cursor() const {
  if (!source_) throw Error(ErrorCode::internal, "LiveSampleRange: default-constructed range iterated");
  source_->start();
  return cursor{source_.get()};
}

const Sample& LiveSampleRange::cursor::read() const { return source->current(); }
void LiveSampleRange::cursor::next() { source->next(); }
bool LiveSampleRange::cursor::equal(ranges::default_sentinel_t) const { return source->at_end(); }

LiveSampleRange live_samples(SamplingSession& session, std::chrono::milliseconds poll) {
  return LiveSampleRange(session, poll);
}

}  // namespace tagop
