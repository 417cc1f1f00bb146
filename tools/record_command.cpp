// tagop record [EVENTS] [-a | -p PID | -- COMMAND ...] [-o FILE]: samples
// through perf_event_open as `perf record` does and writes perf.data that
// `tagop report` and `perf report` read.

#include <signal.h>    // sigaction, SIGINT, SIGTERM, SIGKILL
#include <sys/wait.h>  // WIFEXITED, WIFSIGNALED

#include <chrono>    // std::chrono
#include <cmath>     // std::isfinite
#include <cstdio>    // stderr
#include <cstdlib>   // std::exit
#include <cstring>   // strsignal
#include <fstream>   // std::ifstream
#include <memory>    // std::unique_ptr
#include <optional>  // std::optional

#include <fmt/format.h>  // fmt::print

#include <tagop/amd_ibs/programmer.hpp>         // amd_ibs::program
#include <tagop/cpu.hpp>                        // CpuId
#include <tagop/error.hpp>                      // Error
#include <tagop/replacing_file.hpp>             // ReplacingFile
#include <tagop/sampling_session.hpp>           // SamplingSession
#include <tagop/sampling_session_recorder.hpp>  // SessionRecorder

#include "commands.hpp"
#include "output.hpp"

namespace tagop::cli {

namespace {

// perf record's default rate where no period is given.
constexpr std::uint64_t default_frequency = 4000;
// How long a command has to end after the signal that stops the recording
// was passed to it, before it is killed.
constexpr std::chrono::seconds kill_grace{2};
// --duration's bound: far beyond any recording, far below a clock overflow.
constexpr double max_duration = 1e9;

struct RecordOptions {
  bool ibs_op = false, ibs_fetch = false;
  std::vector<std::string> events;
  std::string period, frequency, call_graph;
  bool callchains = false;
  bool all_cpus = false;
  bool no_buildid_cache = false;
  std::int64_t pid = -1;
  double duration = 0;
  std::string output = "perf.data";
  std::vector<std::string> command;
};

// What the signal handler saw: the last signal, how many, and whether it
// came from a process (kill) rather than from the terminal, whose Ctrl-C
// the command, in our process group, receives itself.
volatile sig_atomic_t last_signal = 0;
volatile sig_atomic_t signals_seen = 0;
volatile sig_atomic_t signal_from_process = 0;

void on_stop_signal(int signal, siginfo_t* info, void*) {
  last_signal = signal;
  signal_from_process = info && info->si_code != SI_KERNEL;
  signals_seen = signals_seen + 1;
}

struct NamedEvent {
  PerfEvent event;
  std::string name;  // as perf shows it
};

// -c and -F as perf applies them: to every event; without either, an
// event's own period, else perf's 4000 samples a second.
struct Rate {
  std::optional<std::uint64_t> period, frequency;
};

void apply(const Rate& rate, perf_event_attr& attr) {
  if (rate.period) {
    attr.freq = 0;
    attr.sample_period = *rate.period;
  } else if (rate.frequency) {
    attr.freq = 1;
    attr.sample_freq = *rate.frequency;
  }
}

NamedEvent ibs_event(amd_ibs::IbsUnit unit, const Rate& rate) {
  amd_ibs::IbsRequest r;
  r.unit = unit;
  if (rate.period) r.period = *rate.period;
  // This machine's processor; elsewhere the first family with IBS, for
  // an attr that the session then refuses for want of the ibs PMU.
  r.family = 0x10;
  if (const std::string id = host_cpuid(); !id.empty()) {
    const CpuId cpu = CpuId::parse(id);
    if (cpu.vendor == "AuthenticAMD") r.family = cpu.family, r.model = cpu.model, r.stepping = cpu.stepping;
  }
  PerfEvent e = amd_ibs::program(r).perf_events.front();
  if (rate.frequency) apply(rate, e.attr);
  return {e, e.pmu + "//"};
}

NamedEvent named_event(const std::string& name, const Rate& rate) {
  std::optional<PerfEvent> e = software_event(name);
  if (!e) e = libpfm_event(name);
  apply(rate, e->attr);
  if (!e->attr.sample_period) {
    e->attr.freq = 1;
    e->attr.sample_freq = default_frequency;
  }
  return {*e, name};
}

// perf's -F: a rate, or "max" for kernel.perf_event_max_sample_rate.
std::uint64_t parse_frequency(const std::string& text) {
  if (text == "max") {
    std::ifstream in("/proc/sys/kernel/perf_event_max_sample_rate");
    std::uint64_t rate = 0;
    if (!(in >> rate) || rate == 0) throw Error("-F max: cannot read /proc/sys/kernel/perf_event_max_sample_rate");
    return rate;
  }
  const std::uint64_t f = parse_u64(text, "-F");
  if (f == 0) usage_error("-F 0: give a positive number of samples a second, or 'max'");
  return f;
}

Rate requested_rate(const RecordOptions& o) {
  if (!o.period.empty() && !o.frequency.empty()) usage_error("-c (a period) and -F (a frequency) exclude each other");
  Rate rate;
  if (!o.period.empty()) {
    rate.period = parse_u64(o.period, "-c/--period");
    if (*rate.period == 0) usage_error("-c 0: give a positive period");
  }
  if (!o.frequency.empty()) rate.frequency = parse_frequency(o.frequency);
  return rate;
}

// -g and --call-graph fp: frame-pointer call chains, the one unwinding
// the kernel does for us; --call-graph dwarf[,SIZE]: the user stack copied
// with each sample, unwound by tagop report (and perf report).
struct CallGraph {
  bool callchains = false;
  std::uint32_t user_stack_bytes = 0;
};

CallGraph requested_call_graph(const RecordOptions& o) {
  if (o.call_graph.empty()) return {o.callchains, 0};
  const std::size_t comma = o.call_graph.find(',');
  const std::string mode = o.call_graph.substr(0, comma);
  if (mode == "fp") return {true, 0};
  if (mode == "dwarf") {
    // As perf: SIZE rounded up to a multiple of 8, from 1 to 65528.
    constexpr std::uint64_t most = 65528;
    std::uint64_t size = 8192;
    if (comma != std::string::npos) {
      const std::string text = o.call_graph.substr(comma + 1);
      std::uint64_t n = 0;
      const bool number = !text.empty() && text.size() <= 12 &&
                          text.find_first_not_of("0123456789") == std::string::npos;
      if (number) n = std::stoull(text);
      if (!number || n == 0 || n > most)
        usage_error(fmt::format("--call-graph dwarf,{}: the stack dump size must be a number from 1 to {} bytes "
                                "(as perf record's)",
                                text, most));
      size = (n + 7) / 8 * 8;
    }
    return {false, static_cast<std::uint32_t>(size)};
  }
  if (mode == "lbr")
    usage_error("--call-graph lbr is not supported (it needs Intel's last branch records); use --call-graph fp or dwarf");
  usage_error(fmt::format("--call-graph '{}': expected fp or dwarf[,SIZE] (lbr is not supported)", o.call_graph));
}

std::vector<NamedEvent> requested_events(const RecordOptions& o, const Rate& rate) {
  std::vector<NamedEvent> out;
  if (o.ibs_op) out.push_back(ibs_event(amd_ibs::IbsUnit::op, rate));
  if (o.ibs_fetch) out.push_back(ibs_event(amd_ibs::IbsUnit::fetch, rate));
  for (const std::string& name : o.events) out.push_back(named_event(name, rate));
  if (out.empty()) out.push_back(named_event("cpu-clock", rate));
  return out;
}

void check_target(const RecordOptions& o, bool pid_given, bool duration_given) {
  if (pid_given && o.pid <= 0)
    usage_error(fmt::format("-p {}: not a process id (a positive number, as `ps` lists it)", o.pid));
  if (duration_given && !(std::isfinite(o.duration) && o.duration > 0 && o.duration <= max_duration))
    usage_error(fmt::format("--duration {}: give a number of seconds above 0 and at most {:g}", o.duration,
                            max_duration));
  const int targets = o.all_cpus + pid_given + !o.command.empty();
  if (targets == 0) usage_error("say what to sample: -a (every CPU), -p PID, or -- COMMAND ...");
  if (targets > 1) usage_error("-a, -p and a command exclude each other");
}

void ignore_signal(int) {}

void install_signal_handlers() {
  struct sigaction action {};
  action.sa_sigaction = on_stop_signal;
  action.sa_flags = SA_SIGINFO;
  ::sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  // A file over `ulimit -f` is a failed write (EFBIG) to report and cut
  // back, not the end of this process. A handler, not SIG_IGN, so that
  // the command does not inherit it.
  struct sigaction xfsz {};
  xfsz.sa_handler = ignore_signal;
  ::sigemptyset(&xfsz.sa_mask);
  ::sigaction(SIGXFSZ, &xfsz, nullptr);
}

// Records until the target is gone, the duration has passed, or a signal
// says stop; a command is passed that signal and killed only if it has
// not ended kill_grace later (or at a second signal). Returns the error of
// a failed write, "" when none.
std::string record_until_done(SamplingSession& session, SessionRecorder& recorder, const RecordOptions& o,
                              bool duration_given) {
  using clock = std::chrono::steady_clock;
  const bool command = session.child() > 0;
  const auto end = clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(o.duration));
  std::optional<clock::time_point> kill_at;
  sig_atomic_t signals_handled = 0;
  try {
    while (session.target_running()) {
      if (signals_seen != signals_handled) {
        if (!command) break;
        if (!kill_at) {
          if (signal_from_process) session.signal_child(last_signal);
          kill_at = clock::now() + kill_grace;
        } else {
          kill_at = clock::now();  // a second signal: no more waiting
        }
        signals_handled = signals_seen;
      }
      if (kill_at && clock::now() >= *kill_at) session.signal_child(SIGKILL);
      if (duration_given && clock::now() >= end) break;
      session.wait(std::chrono::milliseconds(100));
      recorder.drain(session);
    }
    session.stop();
    recorder.drain(session);
  } catch (const Error& e) {
    if (!recorder.writer().write_error()) throw;
    session.stop();
    return e.what();
  }
  return "";
}

// perf record's exit status: the command's, 128 + the signal that killed
// it; 0 when the recording itself ended it (--duration).
int report_command_status(const SamplingSession& session, const std::string& command, bool ended_by_us) {
  const std::optional<int> status = session.child_status();
  if (!status) return 0;
  if (ended_by_us) {
    fmt::print(stderr, "tagop record: {} was still running when the recording ended, and was stopped\n", command);
    return 0;
  }
  if (WIFEXITED(*status)) {
    if (WEXITSTATUS(*status) != 0)
      fmt::print(stderr, "tagop record: {} exited with status {}\n", command, WEXITSTATUS(*status));
    return WEXITSTATUS(*status);
  }
  if (WIFSIGNALED(*status)) {
    const int signal = WTERMSIG(*status);
    fmt::print(stderr, "tagop record: {} was killed by signal {} ({}); exiting with {}\n", command, signal,
               ::strsignal(signal), 128 + signal);
    return 128 + signal;
  }
  return 0;
}

int run_record(const RecordOptions& o, bool pid_given, bool duration_given) {
  check_target(o, pid_given, duration_given);
  const Rate rate = requested_rate(o);
  const CallGraph call_graph = requested_call_graph(o);
  const std::vector<NamedEvent> requested = requested_events(o, rate);

  SessionOptions options{.events = {},
                         .all_cpus = o.all_cpus,
                         .pid = static_cast<pid_t>(pid_given ? o.pid : -1),
                         .command = o.command,
                         .callchains = call_graph.callchains,
                         .user_stack_bytes = call_graph.user_stack_bytes};
  // A stack copy makes each sample some 8 KiB: 4 MiB a CPU, so that the
  // kernel loses none between two reads (the fixture of the tests at
  // 4 kHz: 512 KiB lost a fifth of them here, 4 MiB none); where
  // perf_event_mlock_kb allows less, perf's default, 512 KiB.
  if (call_graph.user_stack_bytes) options.buffer_pages = 1024;
  std::vector<std::string> names;
  for (const NamedEvent& e : requested) options.events.push_back(e.event), names.push_back(e.name);
  std::unique_ptr<SamplingSession> opened;
  try {
    opened = std::make_unique<SamplingSession>(options);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::resource || options.buffer_pages <= 128) throw;
    options.buffer_pages = 128;
    opened = std::make_unique<SamplingSession>(options);
  }
  SamplingSession& session = *opened;
  if (o.output == "-") usage_error(pipe_mode_refusal);
  ReplacingFile output(o.output);
  SessionRecorder recorder(output.writing(), session, names);
  if (o.no_buildid_cache) recorder.set_build_id_cache("");
  install_signal_handlers();

  session.start();
  std::string write_failure;
  try {
    recorder.synthesise_kernel();
    if (o.all_cpus) recorder.synthesise_all_processes();
    else if (pid_given) recorder.synthesise_process(static_cast<pid_t>(o.pid));
  } catch (const Error& e) {
    if (!recorder.writer().write_error()) throw;
    write_failure = e.what();
  }
  if (write_failure.empty()) write_failure = record_until_done(session, recorder, o, duration_given);
  // Ended by --duration or a failed write: SIGTERM, as perf record sends it.
  const bool ended_by_us = session.child_running();
  if (ended_by_us) session.end_child(kill_grace);
  const std::uint64_t recorded = session.samples();
  recorder.finish();
  // The last of the data may have failed only as finish() wrote it.
  if (write_failure.empty()) write_failure = recorder.writer().write_failure();
  const std::string kept_old = output.commit(/*keep_old=*/true);

  for (const std::string& w : recorder.warnings()) fmt::print(stderr, "tagop record: warning: {}\n", w);
  std::string counts;
  for (std::size_t e = 0; e < names.size(); ++e)
    counts += fmt::format("{}{} {}", e ? ", " : "", session.samples_by_event()[e], names[e]);
  fmt::print(stderr, "[ tagop record: wrote {} samples ({}) to {}; {} lost{} ]\n", recorder.writer().samples(), counts,
             o.output, session.lost(), kept_old.empty() ? "" : fmt::format("; the old file is {}", kept_old));
  const int status = report_command_status(session, o.command.empty() ? "" : o.command.front(), ended_by_us);
  if (!write_failure.empty()) {
    // Name the file as the user did, not its name while it was written.
    for (auto at = write_failure.find(output.writing()); at != std::string::npos && output.writing() != o.output;
         at = write_failure.find(output.writing()))
      write_failure.replace(at, output.writing().size(), o.output);
    fmt::print(stderr,
               "tagop record: {}\ntagop record: {} keeps the {} of {} samples written before that, up to its last "
               "whole record: perf and tagop read it\n",
               write_failure, o.output, recorder.writer().samples(), recorded);
    return 1;
  }
  return status;
}

}  // namespace

void add_record_command(CLI::App& app) {
  auto o = std::make_shared<RecordOptions>();
  CLI::App* cmd = app.add_subcommand(
      "record", "Sample a command, a process or every CPU through perf_event_open and write perf.data");
  cmd->add_flag("--ibs-op", o->ibs_op, "AMD IBS op sampling (the ibs_op PMU)");
  cmd->add_flag("--ibs-fetch", o->ibs_fetch, "AMD IBS fetch sampling (the ibs_fetch PMU)");
  cmd->add_option("-e,--event", o->events,
                  "An event, as many as wanted: perf's software events (cpu-clock, task-clock, page-faults, "
                  "context-switches ...) or any libpfm4 name of this machine (default: cpu-clock)");
  cmd->add_option("-c,--count", o->period,
                  "Events between samples, for every event (IBS: ops, fetches or cycles; cpu-clock: nanoseconds; "
                  "page-faults: faults). Default: IBS 65536, others -F 4000");
  cmd->add_option("--period", o->period, "-c, by its earlier name")->group("");
  cmd->add_option("-F,--freq", o->frequency,
                  "Samples a second, for every event (the kernel adjusts the period), or 'max' for "
                  "kernel.perf_event_max_sample_rate (default 4000)");
  cmd->add_flag("-g", o->callchains, "Record call chains (frame pointers), as --call-graph fp");
  cmd->add_option("--call-graph", o->call_graph,
                  "fp: call chains by frame pointers; dwarf[,SIZE]: each sample also copies SIZE bytes of the user stack "
                  "(default 8192, at most 65528) and its user registers, unwound by tagop report (x86_64)");
  auto* all = cmd->add_flag("-a,--all-cpus", o->all_cpus, "Every process on every CPU");
  auto* pid = cmd->add_option("-p,--pid", o->pid,
                              "A running process (and the children it starts); recording stops when it ends");
  all->excludes(pid);
  cmd->add_flag("-N,--no-buildid-cache", o->no_buildid_cache,
                "Do not keep the [vdso]'s image and a copy of /proc/kallsyms in perf's build-id cache "
                "($PERF_BUILDID_DIR, else ~/.debug), where tagop report and perf report find them to name the "
                "vDSO's samples (clock_gettime ...) and, without the kernel's slow writing of /proc/kallsyms, "
                "the kernel's");
  cmd->add_option("--duration", o->duration,
                  "Stop after this many seconds (default: when the command or process ends, or at Ctrl-C)");
  cmd->add_option("-o,--output", o->output,
                  "The perf.data file to write. It is written beside the file and takes its name at the end; an "
                  "existing file of that name is kept as FILE.old, as perf does")
      ->capture_default_str();
  cmd->add_option("command", o->command, "The command to run and sample, after --");
  cmd->footer(
      "Exit status: the command's (128 + N when signal N killed it), as perf record's; 1 when recording fails.\n"
      "Ctrl-C or SIGTERM stops the recording: a command is passed the signal (kill sends it; the terminal's\n"
      "Ctrl-C reaches it directly) and is killed if it has not ended 2 s later, or at a second signal.\n"
      "A full disk stops the recording with a message; the file keeps what was written, readable.\n"
      "\n"
      "Examples:\n"
      "  tagop record -e cpu-clock -e page-faults -g -- make -j2\n"
      "  tagop record --ibs-op -a --duration 10\n"
      "  tagop record --event cpu-clock -c 100000 -o busy.data -- ./busy\n"
      "  tagop report busy.data");
  cmd->callback([o, cmd] {
    const int status = run_record(*o, cmd->count("--pid") > 0, cmd->count("--duration") > 0);
    if (status != 0) std::exit(status);
  });
}

}  // namespace tagop::cli
