#pragma once
// Runs a command under Valgrind with its instruction and memory trace sent
// down a pipe, never to a file: tagop's own tool's binary frames
// (tool_trace.hpp), for the command and every process it starts
// (--trace-children=yes), or Lackey's text (--log-fd; the command's process
// only). The command's own standard streams are left as they are.
// Not thread-safe: one traced child, read and waited for from one thread.

#include <sys/types.h>  // pid_t

#include <span>    // std::span
#include <string>  // std::string
#include <vector>  // std::vector

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {
namespace emulate {

class ValgrindTrace {
 public:
  /// Starts `valgrind` (a path or a name on PATH) on `command`: with
  /// tagop's tool loaded from `tool_folder` (given as VALGRIND_LIB; see
  /// ValgrindToolDir), or with Lackey when it is "". Throws tagop::Error
  /// when it cannot be started.
  ValgrindTrace(const std::string& valgrind, const std::vector<std::string>& command,
                const std::string& tool_folder = {}, const std::vector<std::string>& core_options = {});
  /// Kills the child if it is still running.
  ~ValgrindTrace();
  ValgrindTrace(const ValgrindTrace&) = delete;
  ValgrindTrace& operator=(const ValgrindTrace&) = delete;

  /// The traced process (Valgrind runs the program in its own process).
  pid_t pid() const { return pid_; }
  /// Reads the next piece of the trace into `buffer`; 0 at its end.
  std::size_t read(std::span<char> buffer);
  /// Waits for Valgrind to exit: the command's exit status (128 + signal
  /// when a signal ended it).
  int wait();

  /// The arguments Valgrind is started with before the command, the
  /// trace going to descriptor `fd`: tagop's tool's, or Lackey's.
  static std::vector<std::string> valgrind_arguments(int fd, bool tagop_tool = false);

 private:
  pid_t pid_ = -1;
  int read_fd_ = -1;
  std::size_t last_read_ = 0;
};

}  // namespace emulate
}  // namespace tagop
