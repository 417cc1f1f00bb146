// tagop emulate as a command that runs a program, as tagop record is one:
// it exits with the program's status (128 + N when signal N ended it);
// a run that fails leaves an existing capture as it was (no FILE.old, no
// temporary file, no empty capture); a run that succeeds, or that Ctrl-C
// stopped, keeps the earlier capture as FILE.old; a bad --period is bad
// usage (2); PEBS's default period gives a small program samples.

#include <catch2/catch.hpp>

#include <unistd.h>  // getpid

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "../run_command.hpp"

namespace {

namespace fs = std::filesystem;

std::string program(const char* name) {
  const char* path = std::getenv(name);
  if (!path) throw std::runtime_error(std::string(name) + " is not set: run the tests with 'meson test'");
  return path;
}

// A folder of its own per test, holding an earlier capture "run.data".
struct Folder {
  fs::path dir;
  fs::path capture;
  const std::string old_text = "an earlier capture, which no failed run may touch\n";
  explicit Folder(const std::string& name)
      : dir(fs::temp_directory_path() / ("tagop-emulate-command-" + std::to_string(::getpid()) + "-" + name)),
        capture(dir / "run.data") {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(capture) << old_text;
  }
  ~Folder() { fs::remove_all(dir); }
  std::set<std::string> files() const {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
    return out;
  }
  std::string text(const fs::path& p) const {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  bool is_capture(const fs::path& p) const { return text(p).starts_with("PERFILE2"); }
};

RunResult emulate(const Folder& f, const std::string& args) {
  return run_tagop("emulate --as zen3 -o " + f.capture.string() + " " + args);
}

}  // namespace

TEST_CASE("emulate exits with the program's status and keeps the earlier capture as FILE.old", "[emulate]") {
  Folder f("status");
  const RunResult r = emulate(f, "-- " + program("TAGOP_EMULATE_EXIT_WITH") + " 3");
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("exited with status 3") != std::string::npos);
  CHECK(f.files() == std::set<std::string>{"run.data", "run.data.old"});
  CHECK(f.is_capture(f.capture));
  CHECK(f.text(f.dir / "run.data.old") == f.old_text);
  CHECK(r.err.find("run.data.old") != std::string::npos);
  // Status 0 is 0.
  const RunResult zero = emulate(f, "-- " + program("TAGOP_EMULATE_EXIT_WITH") + " 0");
  CHECK(zero.exit_code == 0);
}

TEST_CASE("emulate exits with 128 + N when signal N ended the program, as tagop record does", "[emulate]") {
  Folder f("signal");
  // SIGUSR1's default action ends the program; Valgrind ends with it.
  const RunResult r = emulate(f, "-- " + program("TAGOP_EMULATE_EXIT_WITH") + " signal " + std::to_string(SIGUSR1));
  INFO(r.err);
  CHECK(r.exit_code == 128 + SIGUSR1);
  CHECK(r.err.find("128 + " + std::to_string(SIGUSR1)) != std::string::npos);
  CHECK(f.is_capture(f.capture));
}

TEST_CASE("a run that fails leaves the earlier capture as it was and nothing beside it", "[emulate]") {
  Folder f("fails");
  SECTION("a program that does not exist") {
    const RunResult r = emulate(f, "-- " + (f.dir / "no-such-program").string());
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("no-such-program") != std::string::npos);
  }
  SECTION("a valgrind that does not exist") {
    const RunResult r = emulate(f, "--valgrind " + (f.dir / "no-valgrind").string() + " -- " +
                                       program("TAGOP_EMULATE_EXIT_WITH") + " 0");
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("cannot run") != std::string::npos);
  }
  CHECK(f.files() == std::set<std::string>{"run.data"});
  CHECK(f.text(f.capture) == f.old_text);
}

TEST_CASE("Ctrl-C ends the program and writes what ran, the earlier capture kept as FILE.old", "[emulate]") {
  Folder f("interrupt");
  // As a terminal's Ctrl-C: SIGINT to the whole process group (tagop
  // started as the leader of one, as a shell's job is), once the program
  // runs. Killed after two minutes, so that a failure cannot hang the test.
  const std::string script =
      "import os, signal, subprocess, sys, time\n"
      "p = subprocess.Popen(sys.argv[1:], start_new_session=True)\n"
      "time.sleep(4)\n"
      "os.killpg(p.pid, signal.SIGINT)\n"
      "try:\n"
      "    print(p.wait(timeout=120))\n"
      "except subprocess.TimeoutExpired:\n"
      "    os.killpg(p.pid, signal.SIGKILL)\n"
      "    print(\"still running\")\n";
  const RunResult r = run_shell("python3 -c '" + script + "' " + tagop_exe() + " emulate --as zen3 -o " +
                                f.capture.string() + " -- " + program("TAGOP_EMULATE_EXIT_WITH") + " spin");
  INFO(r.err);
  CHECK(r.out == std::to_string(128 + SIGINT) + "\n");
  CHECK(f.files() == std::set<std::string>{"run.data", "run.data.old"});
  CHECK(f.is_capture(f.capture));
  CHECK(f.text(f.dir / "run.data.old") == f.old_text);
}

TEST_CASE("SIGTERM from another process reaches the program through tagop emulate", "[emulate]") {
  Folder f("term");
  // Only tagop is sent the signal: it passes it on to the program.
  const RunResult r = run_shell(tagop_exe() + " emulate --as zen3 -o " + f.capture.string() + " -- " +
                                program("TAGOP_EMULATE_EXIT_WITH") + " spin & pid=$!; sleep 4; kill -TERM $pid; "
                                "(sleep 120; kill -KILL $pid) >/dev/null 2>&1 & guard=$!; wait $pid; echo $?; kill $guard");
  INFO(r.err);
  CHECK(r.out == std::to_string(128 + SIGTERM) + "\n");
  CHECK(f.is_capture(f.capture));
  CHECK(f.text(f.dir / "run.data.old") == f.old_text);
}

TEST_CASE("a bad --period is bad usage and touches nothing", "[emulate]") {
  Folder f("period");
  for (const char* period : {"0", "-16", "abc", "20", "0x"}) {
    INFO(period);
    const RunResult r = emulate(f, std::string("--period ") + period + " -- " + program("TAGOP_EMULATE_EXIT_WITH") + " 0");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--period") != std::string::npos);
  }
  const RunResult pebs = emulate(f, "--pebs-period 0 -- " + program("TAGOP_EMULATE_EXIT_WITH") + " 0");
  CHECK(pebs.exit_code == 2);
  CHECK(pebs.err.find("--pebs-period") != std::string::npos);
  CHECK(f.files() == std::set<std::string>{"run.data"});
  CHECK(f.text(f.capture) == f.old_text);
}

TEST_CASE("PEBS's default period gives a small program samples and says what it chose", "[emulate]") {
  Folder f("pebs");
  // 16384 nodes of 64 bytes, 43 times the lines of Goldmont's 24 KiB L1D:
  // 20000 steps at random miss it on all but some 2% (over 19000 misses,
  // before counting the rest of the program's); at one sample in 1009, at
  // least 18. The IBS period (65536) would have given none.
  const RunResult r = run_tagop("emulate --as goldmont -o " + f.capture.string() + " --pebs-event "
                                "MEM_LOAD_UOPS_RETIRED.L1_MISS -- " + program("TAGOP_EMULATE_POINTER_CHASE") +
                                " 1048576 20000");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.err, m, std::regex(R"(\((\d+) PEBS samples of MEM_LOAD_UOPS_RETIRED.L1_MISS, one every )"
                                                 R"(1009 events, the default --pebs-period\))")));
  CHECK(std::stoull(m[1].str()) >= 18);
}
