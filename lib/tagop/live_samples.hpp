#pragma once
// A live session's model samples as a range-v3 input range, as
// samples_range.hpp gives a capture's:
//
//   tagop::SamplingSession session({.events = {clock}, .command = {"./a.out"}});
//   for (const tagop::Sample& s : tagop::live_samples(session) | ranges::views::take(1000))
//     ...;
//
// Iterating starts the session (SamplingSession::start), then pulls: when
// the samples already read are used up, it reads what the ring buffers hold
// and, while they are empty, waits on them (SamplingSession::wait). So
// memory stays bounded by the buffers' size, nothing runs in the
// background, and leaving the loop (take(n), break, an exception) stops
// the reading at once: the next batch is read only when the loop asks for
// the sample after the last one it has. The range ends when whom the session
// samples is gone (the command ended, the process `pid` exited) and its
// buffers are empty; sampling all CPUs, it does not end by itself.
//
// The range is single-pass (an input range); samples the session has read
// but the loop has not used when the range is destroyed are dropped. The
// session stays the caller's: it must outlive the range, and its counters
// (samples(), lost(), undecoded()) and child_status() are there after the loop.
//
// Thread safety: not thread-safe, like the session: the thread that drives the
// session iterates the range, and nothing else reads the session meanwhile.

#include <chrono>       // std::chrono::milliseconds
#include <memory>       // std::shared_ptr
#include <type_traits>  // std::true_type

#include <range/v3/view/facade.hpp>  // ranges::view_facade

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/sample.hpp>            // Sample
#include <tagop/sampling_session.hpp>  // SamplingSession

namespace tagop TAGOP_API {

namespace detail {
class LiveSampleSource;
}

class LiveSampleRange : public ranges::view_facade<LiveSampleRange, ranges::unknown> {
 public:
  LiveSampleRange() = default;
  /// The samples of `session`, as they arrive; it waits up to `poll` at a
  /// time for data, checking between waits whether the target is still there.
  explicit LiveSampleRange(SamplingSession& session,
                           std::chrono::milliseconds poll = std::chrono::milliseconds(50));

 private:
  friend ranges::range_access;
  struct cursor {
    using single_pass = std::true_type;
    detail::LiveSampleSource* source = nullptr;
    const Sample& read() const;
    void next();
    bool equal(ranges::default_sentinel_t) const;
  };
  cursor begin_cursor() const;

  std::shared_ptr<detail::LiveSampleSource> source_;
};

/// `session`'s samples as they arrive, until its target is gone.
LiveSampleRange live_samples(SamplingSession& session,
                             std::chrono::milliseconds poll = std::chrono::milliseconds(50));

}  // namespace tagop
