#include <tagop/emulate/valgrind_trace.hpp>

#include <fcntl.h>     // fcntl, F_SETPIPE_SZ
#include <signal.h>    // kill
#include <sys/wait.h>  // waitpid
#include <unistd.h>    // pipe, fork, execvp

#include <cerrno>   // errno
#include <cstdlib>  // setenv
#include <cstring>  // std::strerror
#include <ctime>    // nanosleep

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::emulate {

namespace {
// The child's end of the pipe: above the descriptors a program usually opens.
constexpr int child_log_fd = 100;
}  // namespace

std::vector<std::string> ValgrindTrace::valgrind_arguments(int fd, bool tagop_tool) {
  if (tagop_tool) return {"-q", "--tool=tagop", "--trace-children=yes", fmt::format("--tagop-fd={}", fd)};
  return {"-q", "--tool=lackey", "--trace-mem=yes", fmt::format("--log-fd={}", fd)};
}

ValgrindTrace::ValgrindTrace(const std::string& valgrind, const std::vector<std::string>& command,
                             const std::string& tool_folder, const std::vector<std::string>& core_options) {
  if (command.empty()) throw Error("no command to emulate: give it after --");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(fmt::format("cannot make a pipe: {}", std::strerror(errno)));
  // A larger pipe means fewer wake-ups of the reader (Linux allows 1 MiB to anyone).
  ::fcntl(fds[0], F_SETPIPE_SZ, 1 << 20);

  std::vector<std::string> args{valgrind};
  for (std::string& a : valgrind_arguments(child_log_fd, !tool_folder.empty())) args.push_back(std::move(a));
  args.insert(args.end(), core_options.begin(), core_options.end());
  args.emplace_back("--");
  args.insert(args.end(), command.begin(), command.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int exec_error[2];
  if (::pipe2(exec_error, O_CLOEXEC) != 0) throw Error(fmt::format("cannot make a pipe: {}", std::strerror(errno)));
  pid_ = ::fork();
  if (pid_ < 0) throw Error(fmt::format("cannot fork: {}", std::strerror(errno)));
  if (pid_ == 0) {
    // The write end at a fixed number, open across exec; nothing else of ours.
    if (::dup2(fds[1], child_log_fd) < 0) ::_exit(127);
    if (!tool_folder.empty() && ::setenv("VALGRIND_LIB", tool_folder.c_str(), 1) != 0) ::_exit(127);
    ::execvp(argv[0], argv.data());
    const int e = errno;
    [[maybe_unused]] const ssize_t n = ::write(exec_error[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(fds[1]);
  ::close(exec_error[1]);
  int e = 0;
  const ssize_t n = ::read(exec_error[0], &e, sizeof e);
  ::close(exec_error[0]);
  read_fd_ = fds[0];
  if (n == sizeof e) {
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    throw Error(fmt::format("cannot run {}: {}{}", valgrind, std::strerror(e),
                            e == ENOENT ? " (install Valgrind: apt-get install valgrind)" : ""));
  }
}

ValgrindTrace::~ValgrindTrace() {
  if (read_fd_ >= 0) ::close(read_fd_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

std::size_t ValgrindTrace::read(std::span<char> buffer) {
  // Valgrind writes each trace line with a write(2) of its own. A reader
  // waiting on the empty pipe is woken by every one of them, which costs
  // Valgrind more than the line; after a short read, let the pipe fill for
  // a moment instead (nobody waits on it, so the writes stay cheap).
  if (last_read_ < buffer.size() / 4) {
    const timespec pause{0, 2'000'000};
    ::nanosleep(&pause, nullptr);
  }
  for (;;) {
    const ssize_t n = ::read(read_fd_, buffer.data(), buffer.size());
    if (n >= 0) return last_read_ = static_cast<std::size_t>(n);
    if (errno != EINTR) throw Error(fmt::format("reading the trace: {}", std::strerror(errno)));
  }
}

int ValgrindTrace::wait() {
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0)
    if (errno != EINTR) throw Error(fmt::format("waiting for valgrind: {}", std::strerror(errno)));
  pid_ = -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace tagop::emulate
