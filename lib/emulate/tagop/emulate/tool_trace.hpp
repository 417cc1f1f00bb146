#pragma once
// The binary trace of tagop's own Valgrind tool (lib/emulate/vgtool/
// tagop_tool.c), parsed as it streams from the pipe that every process of
// the traced family writes to. The stream is a sequence of frames, each
// written whole by one process (one write(2) of at most PIPE_BUF bytes, so
// that frames of processes running at once never mix):
//   header  u32 magic "TGP2", u32 length (header included), u32 pid, u32 tid
//   records 'I' u8 size_exits, u64 ip        an instruction executed: its size
//                                            in the low 5 bits, the conditional
//                                            exits its translation kept in the
//                                            top 3 (TraceInstruction::valgrind_exits)
//           'L', 'S', 'M' u16 size, u64 addr its load, store, modify
//           'T' u32 tid                      another thread runs from here
//           'X' u32 ppid, u16 n, n bytes     a program starts in this process (exec)
//           'F' u32 child                    this process forked `child` here
//           'P' u64 start, u64 len, u64 pgoff, u16 n, n bytes
//                                            an executable mapping of a file
// little-endian, unaligned. The parser hands on each instruction of a
// thread when that thread's next one arrives (so that where it went,
// next_ip, is known), and a forked child's frames only after its parent's
// 'F' record: the child starts from its parent's state at the fork, and its
// first frames may reach the pipe before the parent's.
//
//   ToolTraceParser parser(root_pid);
//   parser.feed(bytes, sink);  // as bytes arrive
//   parser.finish(sink);       // at the end
// Not thread-safe: a parser reads one stream from one thread.

#include <cstdint>        // std::uint32_t, std::uint64_t
#include <span>           // std::span
#include <string>         // std::string
#include <unordered_map>  // threads, held frames
#include <unordered_set>  // released processes
#include <vector>         // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/emulate/lackey_trace.hpp>  // TraceInstruction
#include <tagop/emulate/process_code.hpp>  // CodeMapping

namespace tagop TAGOP_API {
namespace emulate {

/// What a tool trace tells, in stream order per process.
class ToolTraceSink {
 public:
  virtual ~ToolTraceSink() = default;
  /// A program starts in `pid` (the first one, or an exec replacing what ran there).
  virtual void program(std::uint32_t pid, std::uint32_t ppid, const std::string& path) = 0;
  /// `parent` forked `child`: what the parent had done so far is handed on.
  virtual void forked(std::uint32_t parent, std::uint32_t child) = 0;
  /// An executable file mapping of `pid`.
  virtual void mapping(std::uint32_t pid, const CodeMapping& mapping) = 0;
  /// One instruction of thread `tid` of `pid`, with its accesses and next_ip.
  virtual void instruction(std::uint32_t pid, std::uint32_t tid, const TraceInstruction& instruction) = 0;
};

/// Parses the frames of one tool trace stream into a ToolTraceSink.
class ToolTraceParser {
 public:
  /// `root` is the process Valgrind was started as: its frames need no fork.
  explicit ToolTraceParser(std::uint32_t root);

  /// Parses the frames that `bytes` completes.
  void feed(std::span<const char> bytes, ToolTraceSink& sink);
  /// The end of the stream: frames of children whose fork was never seen,
  /// then each thread's last instruction (next_ip 0).
  void finish(ToolTraceSink& sink);

  /// Instructions read so far, of every process and thread.
  std::uint64_t instructions() const { return instructions_; }
  /// Frames or records that did not parse (damage).
  std::uint64_t bad_frames() const { return bad_frames_; }

  /// The frame magic, "TGP2" read as a little-endian u32 (2: the 'I'
  /// record's size byte carries the kept exits; a tool of the first
  /// layout is refused, its frames damaged, not misread).
  static constexpr std::uint32_t magic = 0x32504754;
  /// A frame's header: magic, length, pid, tid.
  static constexpr std::size_t header_size = 16;

 private:
  struct Thread {
    TraceInstruction pending{};
    bool have = false;
  };
  void frame(const unsigned char* p, std::size_t n, ToolTraceSink& sink);
  void records(std::uint32_t pid, std::uint32_t tid, const unsigned char* p, const unsigned char* end,
               ToolTraceSink& sink);
  Thread& thread(std::uint32_t pid, std::uint32_t tid) { return threads_[std::uint64_t{pid} << 32 | tid]; }
  void hand_on(std::uint32_t pid, std::uint32_t tid, Thread& t, std::uint64_t next_ip, ToolTraceSink& sink);
  void end_process(std::uint32_t pid, ToolTraceSink& sink);
  void release(std::uint32_t pid, ToolTraceSink& sink);

  std::string partial_;  ///< the start of a frame cut by the end of a read
  std::unordered_map<std::uint64_t, Thread> threads_;
  std::unordered_set<std::uint32_t> released_;
  std::unordered_map<std::uint32_t, std::vector<std::string>> held_;
  std::uint64_t instructions_ = 0, bad_frames_ = 0;
};

}  // namespace emulate
}  // namespace tagop
