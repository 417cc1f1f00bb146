#pragma once
// `tagop emulate` as a library call: run a command under Valgrind, replay
// its trace through one model per requested processor, and write what
// each processor's precise-sampling hardware would have given: IBS
// captures (zen3, zen4, fam10h), PEBS captures (goldmont, silvermont),
// and, for every model, each event of its vendor's table counted over
// every op (the Pentium 4's tagging metrics are counts only).
//
//   EmulateOptions o;
//   o.models = {find_microarchitecture("zen3")};
//   o.command = {"gzip", "-c", "file"};
//   EmulateResult r = emulate(o);   // writes emulated.data
// Thread-safe between calls: each emulate() has its own model, trace and
// files.

#include <cstdint>     // std::uint64_t
#include <functional>  // std::function
#include <string>      // std::string
#include <vector>      // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/emulate/core_model.hpp>         // PageSize
#include <tagop/emulate/microarchitecture.hpp>  // MicroarchSpec
#include <tagop/emulate/signature_tally.hpp>    // EventCount, SignatureCount

namespace tagop TAGOP_API {
namespace emulate {

struct EmulateOptions {
  std::vector<const MicroarchSpec*> models;
  /// Ops (and fetches) between IBS samples: a multiple of 16, each
  /// interval moved by -8 to +7 like IbsRandEn.
  std::uint64_t period = 0x10000;
  /// Events between PEBS samples (0: default_pebs_period). PEBS events
  /// are rarer than ops (a load miss, a mispredict): the IBS period would
  /// give a small program one sample or none.
  std::uint64_t pebs_period = 0;
  /// PEBS events of the Silvermont and Goldmont models (empty: their
  /// default ones); each must be PEBS-capable on the model's table.
  std::vector<std::string> pebs_events;
  /// The capture; with several models that write one, each gets its
  /// model's name before the extension (x.data -> x.zen3.data).
  std::string output = "emulated.data";
  PageSize data_pages = PageSize::small_4k;
  /// Prefetchers and the victim L3 of the models that have them, and the
  /// predictor; prefetchers and victim L3 off, cachegrind_branches on and
  /// fast_strings off (`--exact-cachegrind`), each process's CoreCounts are
  /// what Cachegrind counts for it with the same geometry.
  CacheBehaviour cache{};
  /// REP MOVS/STOS as the fast-string microcode runs them, in 64-byte
  /// chunks (fast_strings.hpp); off, one op per iteration, as Valgrind
  /// runs them and Cachegrind counts them.
  bool fast_strings = true;
  std::uint64_t seed = 1;
  std::string valgrind = "valgrind";
  /// Options of Valgrind's core, given before the command. `tagop emulate
  /// --exact-cachegrind` gives --vex-guest-chase=no: by default Valgrind's
  /// translation turns a conditional jump over a few instructions into a
  /// select, so those instructions are traced (and counted, by Cachegrind
  /// too) whether they ran or not, and the jump is no exit that Cachegrind
  /// counts as a branch, while the model still sees a conditional jump.
  std::vector<std::string> valgrind_options;
  std::vector<std::string> command;
  /// Called with the traced process's id once it runs (e.g. for a signal
  /// handler that passes a stop signal on to it); may be empty.
  std::function<void(int pid)> on_started;
};

/// The PEBS period when EmulateOptions::pebs_period is 0: a prime (no
/// loop's trip count is a multiple of it) that gives some ten samples on
/// ten thousand events and a hundred thousand on a billion.
inline constexpr std::uint64_t default_pebs_period = 1009;

struct ModelResult {
  const MicroarchSpec* spec = nullptr;
  std::string capture;  ///< "" when the model writes none (p4)
  std::uint64_t ops = 0, fetches = 0;
  std::uint64_t fetch_samples = 0, op_samples = 0;  ///< IBS
  std::uint64_t pebs_samples = 0;
  std::uint64_t pebs_period = 0;    ///< events between PEBS samples (pebs models)
  std::vector<std::string> pebs_events;
  std::string kept_old;  ///< where an earlier capture of that name went (FILE.old), "" when none
  std::vector<SignatureCount> op_signatures, fetch_signatures;
  std::vector<EventCount> events;  ///< every event of the model's backend
};

/// One thread of a traced process.
struct ThreadResult {
  std::uint32_t tid = 0;            ///< the kernel's thread id (gettid)
  std::uint64_t instructions = 0;   ///< the thread's own
  /// Per model (in EmulateResult::models' order), what the process's core
  /// counted while this thread ran: the threads' counts add up to the
  /// process's (less, in a forked child, the parent's before the fork).
  /// Cachegrind counts a process, not its threads: these have no peer.
  std::vector<CoreCounts> models{};
};

/// One program a process of the traced family ran: the command's, each
/// forked child's, and each exec's (an exec keeps the pid and starts a new
/// entry). Each has its own model state (caches, TLBs, predictors: the
/// threads of a process share one core's); a forked child starts from a
/// copy of its parent's at the fork, as its memory does.
struct ProcessResult {
  std::uint32_t pid = 0;   ///< the process's id
  std::uint32_t ppid = 0;  ///< its parent's (0 where the trace did not say)
  std::string program;  ///< the path Valgrind ran (the command's first word under Lackey)
  bool forked = false;  ///< begun by a fork (else by exec, or as the command)
  /// Instructions as Cachegrind counts a process's: a forked child's
  /// count starts from its parent's at the fork (`inherited`), copied with
  /// its memory.
  std::uint64_t instructions = 0;
  std::uint64_t inherited = 0;  ///< of `instructions`, the parent's before the fork
  std::vector<ThreadResult> threads;  ///< by tid, each its own instructions
  /// Each model's counts of the process (its caches, TLBs and predictor),
  /// in EmulateResult::models' order: as `instructions`, a forked child's
  /// go on from its parent's at the fork, as Cachegrind's cachegrind.out
  /// file of that pid does. The threads of the process share them.
  std::vector<CoreCounts> models;
};

struct EmulateResult {
  std::vector<std::string> command;
  /// What traced the program: tagop's own Valgrind tool (the whole family)
  /// or, where that was not built, Lackey (the command's process only).
  std::string engine;
  int exit_status = 0;           ///< the command's
  std::uint64_t instructions = 0;
  std::uint64_t unresolved = 0;  ///< instructions whose bytes could not be decoded
  std::uint64_t bad_lines = 0;   ///< trace lines that did not parse
  std::uint64_t distinct_instructions = 0;
  /// REP MOVS/STOS iterations the models saw as fast-string chunks.
  std::uint64_t fast_string_iterations = 0;
  std::vector<ModelResult> models;
  std::vector<ProcessResult> processes;  ///< in the order they started
};

/// The capture path of one model (see EmulateOptions::output).
std::string capture_path(const EmulateOptions& options, const MicroarchSpec& model);

/// The PEBS events a Silvermont or Goldmont model samples by default.
std::vector<std::string> default_pebs_events(const MicroarchSpec& model);

/// What is wrong with `options` ("" when nothing): no model or command,
/// a period that IBS cannot count, a model given twice.
std::string options_problem(const EmulateOptions& options);

/// Checks the options (throws tagop::Error naming the problem), runs the
/// command and writes the captures. Each capture is written beside its
/// name and takes it only at the end, an earlier file of that name kept
/// as FILE.old (as `tagop record` and perf record do): a run that fails
/// (no valgrind, a program that does not start) leaves the folder as it
/// was. A program that a signal ended (Ctrl-C) still gives the capture
/// of what it ran, and its status (128 + the signal) in exit_status.
EmulateResult emulate(const EmulateOptions& options);

}  // namespace emulate
}  // namespace tagop
