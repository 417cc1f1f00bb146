#pragma once
// A progress bar on stderr for long work (reading a large capture,
// writing an export), with the rate and the time left:
//
//   report big.data  [##########..........]  52%  5.2M/10.0M samples  3.1M samples/s  0:02 left
//
// It draws only when its file descriptor is a terminal, so pipes, files and
// CI logs never see it, and it erases itself when done. update() is cheap
// enough to call for every item: it reads the clock only every so many
// items and redraws at most ten times a second.
//
//   ProgressBar bar("report big.data", total_bytes, "bytes");
//   for (...) bar.update(bytes_done);
//   bar.finish();
// Not thread-safe: one thread updates a ProgressBar.

#include <cstdint>     // std::uint64_t
#include <functional>  // std::function
#include <string>      // std::string

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {
namespace profiles {

class ProgressBar {
 public:
  /// Seconds since some fixed point; steady_clock when not given.
  using Clock = std::function<double()>;

  /// `total` 0: not known (the bar shows the count and the rate only).
  ProgressBar(std::string label, std::uint64_t total, std::string unit, int fd = 2, Clock clock = {});
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar();

  /// `done` items of `total` are done.
  void update(std::uint64_t done) {
    if (active_ && done >= next_check_) check(done);
  }
  /// Erases the bar; later updates draw nothing.
  void finish();
  /// Whether it draws (its descriptor is a terminal).
  bool active() const { return active_; }

  /// One line of the bar, `width` columns at most: what update() draws.
  static std::string render(const std::string& label, std::uint64_t done, std::uint64_t total,
                            const std::string& unit, double seconds, std::size_t width);

 private:
  void check(std::uint64_t done);
  void draw(std::uint64_t done, double now);

  std::string label_, unit_;
  std::uint64_t total_;
  int fd_;
  Clock clock_;
  bool active_;
  double start_ = 0, last_draw_ = -1;
  std::uint64_t next_check_ = 0, last_check_done_ = 0;
  double last_check_time_ = 0;
};

}  // namespace profiles
}  // namespace tagop
