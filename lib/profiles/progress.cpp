#include <tagop/profiles/progress.hpp>

#include <sys/ioctl.h>  // TIOCGWINSZ
#include <unistd.h>     // isatty, write

#include <algorithm>  // std::min
#include <chrono>     // steady_clock
#include <cmath>      // std::llround

#include <fmt/format.h>  // fmt::format

#include <tagop/text.hpp>  // printable

namespace tagop::profiles {

namespace {

constexpr double redraw_seconds = 0.1;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// 5234567 -> "5.2M"
std::string human(double v) {
  const char* suffix[] = {"", "k", "M", "G", "T"};
  std::size_t i = 0;
  while (v >= 1000 && i < 4) v /= 1000, ++i;
  return i == 0 ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}{}", v, suffix[i]);
}

// 75 -> "1:15", 3725 -> "1:02:05"
std::string clock_time(double seconds) {
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

std::size_t terminal_columns(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

void write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;  // a progress bar that cannot be drawn is not an error
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

ProgressBar::ProgressBar(std::string label, std::uint64_t total, std::string unit, int fd, Clock clock)
    : label_(printable(label)), unit_(std::move(unit)), total_(total), fd_(fd),
      clock_(clock ? std::move(clock) : Clock(steady_seconds)), active_(::isatty(fd) == 1) {
  if (active_) start_ = last_check_time_ = clock_();
}

ProgressBar::~ProgressBar() { finish(); }

std::string ProgressBar::render(const std::string& label, std::uint64_t done, std::uint64_t total,
                                const std::string& unit, double seconds, std::size_t width) {
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  std::string counts = total != 0 ? fmt::format("{}/{} {}", human(static_cast<double>(done)),
                                                human(static_cast<double>(total)), unit)
                                  : fmt::format("{} {}", human(static_cast<double>(done)), unit);
  std::string tail = fmt::format("  {}  {} {}/s", counts, human(rate), unit);
  if (total != 0 && rate > 0 && done <= total)
    tail += fmt::format("  {} left", clock_time(static_cast<double>(total - done) / rate));
  std::string percent;
  if (total != 0) percent = fmt::format("  {:3}%", std::min<std::uint64_t>(100, done * 100 / total));
  // The bar takes what the text leaves, 10 to 30 columns; none when there is no room.
  const std::size_t text = label.size() + percent.size() + tail.size() + 4;
  std::string bar;
  if (total != 0 && width > text + 10) {
    const std::size_t columns = std::min<std::size_t>(30, width - text);
    const auto filled = static_cast<std::size_t>(static_cast<double>(columns) *
                                                 std::min(1.0, static_cast<double>(done) / static_cast<double>(total)));
    bar = "  [" + std::string(filled, '#') + std::string(columns - filled, '.') + "]";
  }
  std::string line = label + bar + percent + tail;
  if (line.size() > width) line.resize(width);
  return line;
}

void ProgressBar::check(std::uint64_t done) {
  const double now = clock_();
  // Read the clock again after about a hundredth of a second's worth of items.
  const double elapsed = now - last_check_time_;
  const double rate = elapsed > 0 ? static_cast<double>(done - last_check_done_) / elapsed : 0;
  next_check_ = done + std::max<std::uint64_t>(1, static_cast<std::uint64_t>(rate * 0.01));
  last_check_done_ = done;
  last_check_time_ = now;
  if (last_draw_ < 0 || now - last_draw_ >= redraw_seconds) draw(done, now);
}

void ProgressBar::draw(std::uint64_t done, double now) {
  last_draw_ = now;
  // \r to the line's start, the bar, then erase what a longer line left.
  write_all(fd_, "\r" + render(label_, done, total_, unit_, now - start_, terminal_columns(fd_) - 1) + "\x1b[K");
}

void ProgressBar::finish() {
  if (!active_) return;
  active_ = false;
  if (last_draw_ >= 0) write_all(fd_, "\r\x1b[K");
}

}  // namespace tagop::profiles
