#pragma once
// Live sampling through perf_event_open: opens the events a programmer
// produced (IBS, precise Intel events, any libpfm4 event, software events
// such as cpu-clock) on every online CPU, for all processes or for one
// process and its children, maps one ring buffer per CPU that every event
// of that CPU writes into (as perf record does), and hands out the records
// as they arrive: raw (for a perf.data writer) or decoded to model
// samples. Everything it opened is closed on every path, and a command it
// started is ended (SIGTERM, then SIGKILL) and reaped.
//
//   tagop::PerfEvent clock = *tagop::software_event("cpu-clock");
//   clock.attr.sample_period = 100'000;  // ns: 10 kHz
//   tagop::SamplingSession s({.events = {clock}, .command = {"./a.out"}});
//   std::size_t samples = 0;
//   s.start();
//   while (s.child_running()) {
//     s.wait(std::chrono::milliseconds(100));
//     s.read_samples([&](const tagop::Sample&) { ++samples; });
//   }
//   s.read_samples([&](const tagop::Sample&) { ++samples; });  // what was left in the buffers
//
// Thread safety: a SamplingSession is not thread-safe: one thread drives it (start, wait, read_*); its
// callbacks run on that thread.

#include <sys/types.h>  // pid_t

#include <chrono>       // std::chrono::milliseconds
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <functional>   // std::function
#include <memory>       // std::unique_ptr
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/perf_data_reader.hpp>  // EventAttr, SampleRecord, RecordHeader
#include <tagop/programming.hpp>       // PerfEvent
#include <tagop/sample.hpp>            // Sample

namespace tagop TAGOP_API {

struct SessionOptions {
  /// What to sample; the first also reports COMM, MMAP2, FORK and EXIT
  /// (when track_processes), so that samples can be given to modules.
  std::vector<PerfEvent> events{};
  /// Whom: every process (all_cpus), process `pid` and the children it
  /// starts from now on, or `command`, started by the session.
  bool all_cpus = false;
  pid_t pid = -1;
  std::vector<std::string> command{};
  bool track_processes = true;
  /// Data pages of each CPU's ring buffer: a power of two.
  unsigned buffer_pages = 64;
  /// Frame-pointer call chains (PERF_SAMPLE_CALLCHAIN) in every event's
  /// samples, as `perf record -g` asks for them.
  bool callchains = false;
  /// DWARF call chains, as `perf record --call-graph dwarf,SIZE` asks for
  /// them: when not 0, every event's samples also carry the user registers
  /// (PERF_SAMPLE_REGS_USER, x86_64_user_regs_mask) and a copy of this
  /// many bytes of the user stack from its pointer up
  /// (PERF_SAMPLE_STACK_USER; a multiple of 8, at most 65528; perf's
  /// default is 8192), and the kernel writes only the kernel's part of the
  /// call chain (PERF_SAMPLE_CALLCHAIN with exclude_callchain_user):
  /// UserStackUnwinder (tagop report) unwinds the user's part afterwards;
  /// the data mappings are reported too (mmap_data: perf's unwinder
  /// needs them). x86_64 only.
  std::uint32_t user_stack_bytes = 0;
};

/// A record as it came out of a ring buffer: valid during the callback.
struct SessionRecord {
  std::size_t event = 0;  ///< index into events(); 0 when the record says no id
  std::uint32_t cpu = 0;  ///< whose buffer it came from
  perf_data::RecordHeader header{};
  std::span<const std::byte> body{};  ///< after the header
};

/// Turns a raw sample of one event into a model sample (IBS decoders);
/// returns false for a sample it cannot decode.
using SampleDecoder = std::function<bool(const perf_data::SampleRecord&, Sample&)>;

class SamplingSession {
 public:
  /// Opens every event (disabled) and maps the buffers; with `command`,
  /// starts it stopped before its exec. Throws tagop::Error naming why
  /// sampling cannot start: a PMU this machine lacks, perf_event_paranoid,
  /// a permission, or the configuration the hardware refused.
  explicit SamplingSession(SessionOptions options);
  /// Disables and closes everything; ends a command still running
  /// (end_child with a short grace) and reaps it.
  ~SamplingSession();
  SamplingSession(const SamplingSession&) = delete;
  SamplingSession& operator=(const SamplingSession&) = delete;

  /// Enables the events; a command is let go to exec (its events enable
  /// themselves there). Throws tagop::Error when the command cannot run.
  void start();
  /// Disables every event.
  void stop();

  /// Waits up to `timeout` for data (or for the command to end).
  void wait(std::chrono::milliseconds timeout);
  /// Hands out every record now in the buffers; returns how many.
  std::size_t read_records(const std::function<void(const SessionRecord&)>& each);
  /// The samples among them, decoded: software and other undecoded events
  /// give op samples with ip, pid, tid, time and cpu and nothing observed
  /// beyond the kind; events with a decoder give what it decodes.
  std::size_t read_samples(const std::function<void(const Sample&)>& each);
  /// Samples until the command ends (or `limit` passes) and returns them.
  std::vector<Sample> collect(std::chrono::milliseconds limit);

  /// Decodes the samples of event `event` (set before reading).
  void set_decoder(std::size_t event, SampleDecoder decoder);

  /// The command's pid, -1 without one.
  pid_t child() const { return child_; }
  /// Whether the command is still running (reaps it when it has ended).
  bool child_running();
  /// Its exit status (as waitpid gives it) once it has ended.
  std::optional<int> child_status() const { return child_status_; }
  /// Whether whom it samples is still there: the command running, the
  /// process `pid` neither gone nor a zombie; always true for all_cpus.
  bool target_running();
  /// Sends `signal` to the command while it runs; false when there is none.
  bool signal_child(int signal);
  /// Ends the command: SIGTERM, then SIGKILL when it has not ended within
  /// `grace`; reaps it.
  void end_child(std::chrono::milliseconds grace);

  /// The events as opened: final attrs (type resolved, sample_type and
  /// flags set) and the kernel's ids of their fds.
  const std::vector<perf_data::EventAttr>& events() const { return events_; }
  std::span<const int> cpus() const { return cpus_; }
  std::uint64_t samples() const { return samples_; }
  /// The samples of each event (by index into events()).
  std::span<const std::uint64_t> samples_by_event() const { return samples_by_event_; }
  /// Samples the kernel dropped because a buffer was full (PERF_RECORD_LOST).
  std::uint64_t lost() const { return lost_; }
  /// Samples a decoder refused.
  std::uint64_t undecoded() const { return undecoded_; }

 private:
  struct Buffer;
  void close_all() noexcept;
  void open_events();
  void map_buffers();
  void fork_command();
  void reap(bool block) noexcept;
  std::size_t event_of(const perf_data::RecordHeader& h, std::span<const std::byte> body) const;
  Sample plain_sample(const perf_data::SampleRecord& r) const;

  SessionOptions options_;
  std::vector<perf_data::EventAttr> events_;
  std::vector<SampleDecoder> decoders_;
  std::vector<int> cpus_;
  std::vector<int> fds_;  ///< every fd, events_[e] on cpus_[c] at e * cpus_.size() + c
  std::vector<std::unique_ptr<Buffer>> buffers_;  ///< one per CPU
  pid_t child_ = -1;
  int go_fd_ = -1;          ///< the command execs when this is written
  int exec_error_fd_ = -1;  ///< errno of a failed exec, EOF on success
  std::optional<int> child_status_;
  bool started_ = false;
  std::uint64_t samples_ = 0, lost_ = 0, undecoded_ = 0;
  std::vector<std::uint64_t> samples_by_event_;
  std::vector<std::byte> scratch_;  ///< a record that wraps around the buffer end
};

/// The CPUs /sys/devices/system/cpu/online lists.
std::vector<int> online_cpus();

/// Whether process `pid` exists and is not a zombie (/proc/PID/stat).
bool process_running(pid_t pid);

/// The CPU this process runs on, in perf's HEADER_CPUID form
/// ("AuthenticAMD,25,1,1"), from /proc/cpuinfo; "" when it does not say.
std::string host_cpuid();

/// perf_event_attr for a software event by perf's name ("cpu-clock",
/// "task-clock", "page-faults" or "faults", "context-switches" or "cs",
/// "cpu-migrations", "minor-faults", "major-faults", ...); nullopt for
/// other names. No period is set.
std::optional<PerfEvent> software_event(const std::string& name);

/// The names software_event() knows, perf's first spelling of each.
std::vector<std::string> software_event_names();

/// Any event libpfm4 knows on this machine ("cycles", "INST_RETIRED:u",
/// "cpu-clock"), encoded for perf_event_open. Throws tagop::Error when
/// libpfm4 does not know it here.
PerfEvent libpfm_event(const std::string& name);

}  // namespace tagop
