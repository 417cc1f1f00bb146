// The progress bar: its line by hand, silence without a terminal, and what
// a terminal (a pty) receives.

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <pty.h>  // openpty
#include <sys/ioctl.h>
#include <unistd.h>

#include <vector>

#include <tagop/profiles/progress.hpp>

using tagop::profiles::ProgressBar;

namespace {

/// Everything readable on `fd` now.
std::string drain(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<std::size_t>(n));
  return out;
}

/// A clock the test moves.
struct FakeClock {
  double now = 100;
  ProgressBar::Clock clock() {
    return [this] { return now; };
  }
};

}  // namespace

TEST_CASE("the bar's line: counts, percent, rate and time left, worked out by hand", "[profiles][progress]") {
  // 500 of 1000 in 2 s: 250/s, 500 left -> 2 s; a 30-column bar half full.
  CHECK(ProgressBar::render("report x", 500, 1000, "samples", 2.0, 100) ==
        "report x  [###############...............]   50%  500/1.0k samples  250 samples/s  0:02 left");
  // 5.2M of 10M in 2 s: 2.6M/s, 4.8M left -> 1.85 s -> 0:02; the text takes
  // 58 of 70 columns, so the bar gets 12, 52% of them filled (6).
  CHECK(ProgressBar::render("r", 5200000, 10000000, "samples", 2.0, 70) ==
        "r  [######......]   52%  5.2M/10.0M samples  2.6M samples/s  0:02 left");
  // Narrow: no bar, cut at the width.
  CHECK(ProgressBar::render("report x", 500, 1000, "samples", 2.0, 40) == "report x   50%  500/1.0k samples  250 sa");
  // Unknown total: the count and the rate only.
  CHECK(ProgressBar::render("read", 1200000, 0, "samples", 2.0, 100) == "read  1.2M samples  600.0k samples/s");
  // An hour and more left.
  CHECK(ProgressBar::render("x", 1, 4000, "ops", 1.0, 100).ends_with("  1:06:39 left"));
}

TEST_CASE("without a terminal the bar writes nothing", "[profiles][progress]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  FakeClock t;
  {
    ProgressBar bar("report", 100, "samples", fds[1], t.clock());
    CHECK_FALSE(bar.active());
    for (std::uint64_t i = 0; i <= 100; ++i) {
      t.now += 1;
      bar.update(i);
    }
    bar.finish();
  }
  ::close(fds[1]);
  CHECK(drain(fds[0]).empty());
  ::close(fds[0]);
}

TEST_CASE("on a terminal (a pty) it redraws in place at most ten times a second, and erases itself",
          "[profiles][progress]") {
  int master = -1, slave = -1;
  winsize size{};
  size.ws_col = 100;
  size.ws_row = 30;
  REQUIRE(::openpty(&master, &slave, nullptr, nullptr, &size) == 0);
  FakeClock t;
  {
    ProgressBar bar("report x", 1000, "samples", slave, t.clock());
    REQUIRE(bar.active());
    bar.update(0);  // the first update draws
    const std::string first = drain(master);
    CHECK(first.starts_with("\rreport x  ["));
    CHECK(first.find("0%  0/1.0k samples") != std::string::npos);
    CHECK(first.ends_with("\x1b[K"));
    t.now += 0.05;  // too soon to redraw
    bar.update(10);
    CHECK(drain(master).empty());
    t.now += 1.95;  // 2 s after the start, half done
    bar.update(500);
    CHECK(drain(master) == "\r" + ProgressBar::render("report x", 500, 1000, "samples", 2.0, 99) + "\x1b[K");
    bar.finish();
    CHECK(drain(master) == "\r\x1b[K");
    bar.update(900);  // after finish(): nothing
  }
  CHECK(drain(master).empty());
  ::close(slave);
  ::close(master);
}
