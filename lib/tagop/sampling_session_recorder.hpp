#pragma once
// Writes what a SamplingSession sees into perf.data as `perf record` does,
// so that `perf report` and `tagop report` read it whole: the records of
// the ring buffers in rounds (PERF_RECORD_FINISHED_ROUND), the records
// perf synthesises (the kernel's text as "[kernel.kallsyms]_text", and the
// names and mappings of processes that were running before sampling
// began), and the feature sections perf writes about the machine and the
// files that ran: HEADER_BUILD_ID (the kernel's, from /sys/kernel/notes,
// and those of the files mapped), hostname, OS release, arch, CPU counts,
// CPU description and id, memory, the command line, the events and PMUs.
//
//   tagop::SamplingSession session(options);
//   tagop::SessionRecorder out("perf.data", session, {"cpu-clock"});
//   session.start();
//   out.synthesise_kernel();
//   while (session.target_running()) session.wait(std::chrono::milliseconds(100)), out.drain(session);
//   session.stop();
//   out.drain(session);
//   out.finish();
//
// Thread safety: a SessionRecorder is not thread-safe: use it from the thread that drives its session.

#include <sys/types.h>  // pid_t

#include <cstdint>  // std::uint64_t
#include <set>      // std::set
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/perf_data_writer.hpp>  // PerfDataWriter, WriterFeatures
#include <tagop/sampling_session.hpp>  // SamplingSession

namespace tagop TAGOP_API {

class SessionRecorder {
 public:
  /// Creates `path` for the session's events, named `event_names` (one per
  /// event, as perf shows them: "cpu-clock", "ibs_op//"). `cmdline` is
  /// HEADER_CMDLINE; empty: this process's own, its program's full path
  /// first, as perf writes it. Throws tagop::Error when the file cannot be
  /// created.
  SessionRecorder(const std::string& path, const SamplingSession& session, const std::vector<std::string>& event_names,
                  std::vector<std::string> cmdline = {});

  /// The MMAP of the kernel's text that perf synthesises first, from
  /// /proc/kallsyms's _text and _etext. False, with a warning, when the
  /// kernel hides its addresses from this user.
  bool synthesise_kernel(const std::string& kallsyms = "/proc/kallsyms");
  /// COMM for each thread of `pid` and MMAP2 for its executable mappings,
  /// from /proc (for a process that was running before sampling began).
  void synthesise_process(pid_t pid);
  /// The same for every process.
  void synthesise_all_processes();

  /// Copies every record now in the session's buffers into the file, then
  /// ends the round. Returns how many. Throws tagop::Error when a write
  /// fails (PerfDataWriter::write_error() says why; finish() still makes
  /// the file readable).
  std::size_t drain(SamplingSession& session);

  /// Where finish() keeps the [vdso] image when a process mapped it and a
  /// copy of the running kernel's kallsyms, as perf record does
  /// (build_id_cache.hpp): perf's build-id cache,
  /// SymbolFileSearch::default_build_id_dir() unless set; "" keeps none
  /// (perf's --no-buildid-cache), and the vDSO's samples are named only
  /// where a cache already holds its image.
  void set_build_id_cache(std::string dir) { build_id_cache_ = std::move(dir); }

  /// Adds the build-ids (of the kernel, of the vDSO, and of each file a
  /// MMAP record named, read from the file now), keeps the vDSO's image
  /// and the kernel's kallsyms (set_build_id_cache), then writes the
  /// features and header.
  void finish();

  perf_data::PerfDataWriter& writer() { return writer_; }
  /// What could not be written as perf would, for the user.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void note_mapping(const SessionRecord& r);
  void add_vdso_build_id(std::vector<perf_data::BuildIdEntry>& ids);
  void keep_kallsyms(const std::string& build_id);

  perf_data::PerfDataWriter writer_;
  std::set<std::string> mapped_files_;
  std::set<std::pair<std::string, std::string>> mapped_build_ids_;  ///< MMAP2 that carried one: (file, id)
  std::vector<std::string> warnings_;
  std::string build_id_cache_;
  std::uint64_t vdso_length_ = 0;  ///< of the [vdso] a MMAP record named; 0: none
};

/// This machine as perf describes it in a perf.data header: hostname, OS
/// release, arch, CPU counts, description and id, memory, the PMUs of
/// /sys/bus/event_source/devices.
perf_data::WriterFeatures this_machine_features();

/// HEADER_CMDLINE for this process: /proc/self/exe's path, then its
/// arguments after the first.
std::vector<std::string> this_process_cmdline();

}  // namespace tagop
