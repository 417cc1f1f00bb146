// tagop record [EVENTS] [-a | -p PID | -- COMMAND ...] [-o FILE]: samples
// through perf_event_open as `perf record` does and writes perf.data that
// `tagop report` and `perf report` read.

#include <dirent.h>  // opendir
#include <signal.h>  // sigaction
#include <sys/wait.h>  // WIFEXITED

#include <chrono>   // std::chrono
#include <cstdio>   // stderr
#include <fstream>  // std::ifstream
#include <sstream>  // std::istringstream

#include <fmt/format.h>  // fmt::print

#include <tagop/amd_ibs/programmer.hpp>  // amd_ibs::program
#include <tagop/cpu.hpp>                 // CpuId
#include <tagop/error.hpp>               // Error
#include <tagop/perf_data_writer.hpp>    // PerfDataWriter
#include <tagop/sampling_session.hpp>    // SamplingSession

#include "commands.hpp"
#include "output.hpp"

namespace tagop::cli {

namespace {

// perf record's default rate where no period is given.
constexpr std::uint64_t default_frequency = 4000;

struct RecordOptions {
  bool ibs_op = false, ibs_fetch = false;
  std::vector<std::string> events;
  std::string period;
  bool all_cpus = false;
  std::int64_t pid = -1;
  double duration = 0;
  std::string output = "perf.data";
  std::vector<std::string> command;
};

volatile sig_atomic_t interrupted = 0;

struct NamedEvent {
  PerfEvent event;
  std::string name;  // as perf shows it
};

NamedEvent ibs_event(amd_ibs::IbsUnit unit, const std::string& period) {
  amd_ibs::IbsRequest r;
  r.unit = unit;
  if (!period.empty()) r.period = parse_u64(period, "--period");
  if (const std::string id = host_cpuid(); !id.empty()) {
    const CpuId cpu = CpuId::parse(id);
    if (cpu.vendor == "AuthenticAMD") r.family = cpu.family, r.model = cpu.model, r.stepping = cpu.stepping;
  }
  PerfEvent e = amd_ibs::program(r).perf_events.front();
  return {e, e.pmu + "//"};
}

NamedEvent named_event(const std::string& name, const std::string& period) {
  std::optional<PerfEvent> e = software_event(name);
  if (!e) e = libpfm_event(name);
  if (!period.empty()) {
    e->attr.freq = 0;
    e->attr.sample_period = parse_u64(period, "--period");
  } else if (!e->attr.sample_period) {
    e->attr.freq = 1;
    e->attr.sample_freq = default_frequency;
  }
  return {*e, name};
}

std::vector<NamedEvent> requested_events(const RecordOptions& o) {
  std::vector<NamedEvent> out;
  if (o.ibs_op) out.push_back(ibs_event(amd_ibs::IbsUnit::op, o.period));
  if (o.ibs_fetch) out.push_back(ibs_event(amd_ibs::IbsUnit::fetch, o.period));
  for (const std::string& name : o.events) out.push_back(named_event(name, o.period));
  if (out.empty()) out.push_back(named_event("cpu-clock", o.period));
  return out;
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// What the kernel would have said had the process started while we
// watched: its name and its executable mappings (perf's synthesised
// events, from /proc).
void synthesise_process(perf_data::PerfDataWriter& w, std::uint32_t pid) {
  const std::string dir = fmt::format("/proc/{}", pid);
  const std::string comm = read_line(dir + "/comm");
  if (comm.empty()) return;  // gone, or a kernel thread we cannot read
  if (DIR* tasks = ::opendir((dir + "/task").c_str())) {
    while (const dirent* t = ::readdir(tasks))
      if (t->d_name[0] != '.') {
        const auto tid = static_cast<std::uint32_t>(std::stoul(t->d_name));
        w.comm(pid, tid, tid == pid ? comm : read_line(fmt::format("{}/task/{}/comm", dir, tid)), false);
      }
    ::closedir(tasks);
  }
  std::ifstream maps(dir + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    // start-end perms offset dev inode path
    std::istringstream in(line);
    std::string range, perms, offset, dev, inode, path;
    in >> range >> perms >> offset >> dev >> inode;
    std::getline(in >> std::ws, path);
    if (perms.size() < 3 || perms[2] != 'x' || path.empty() || path[0] != '/') continue;
    const auto dash = range.find('-');
    const std::uint64_t start = std::stoull(range.substr(0, dash), nullptr, 16);
    const std::uint64_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
    w.mmap2(pid, pid, start, end - start, std::stoull(offset, nullptr, 16), path);
  }
}

void synthesise_all_processes(perf_data::PerfDataWriter& w) {
  DIR* proc = ::opendir("/proc");
  if (!proc) return;
  while (const dirent* d = ::readdir(proc))
    if (d->d_name[0] >= '1' && d->d_name[0] <= '9') synthesise_process(w, static_cast<std::uint32_t>(std::stoul(d->d_name)));
  ::closedir(proc);
}

void on_interrupt(int) { interrupted = 1; }

void run_record(const RecordOptions& o) {
  const int targets = o.all_cpus + (o.pid >= 0) + !o.command.empty();
  if (targets == 0) usage_error("say what to sample: -a (every CPU), -p PID, or -- COMMAND ...");
  if (targets > 1) usage_error("-a, -p and a command exclude each other");
  if (o.duration < 0) usage_error("--duration must not be negative");

  const std::vector<NamedEvent> requested = requested_events(o);
  SessionOptions options{.events = {}, .all_cpus = o.all_cpus, .pid = static_cast<pid_t>(o.pid), .command = o.command};
  for (const NamedEvent& e : requested) options.events.push_back(e.event);
  SamplingSession session(std::move(options));

  std::vector<perf_data::WriterEvent> events;
  perf_data::WriterFeatures features{.cpuid = host_cpuid(), .pmu_mappings = {}, .build_ids = {}, .hostname = {}, .os_release = {}};
  for (std::size_t e = 0; e < requested.size(); ++e) {
    events.push_back({.attr = session.events()[e].attr, .ids = session.events()[e].ids, .name = requested[e].name});
    if (!requested[e].event.pmu.empty())
      features.pmu_mappings.push_back({session.events()[e].attr.type, requested[e].event.pmu});
  }
  features.pmu_mappings.push_back({PERF_TYPE_SOFTWARE, "software"});
  if (features.cpuid->empty()) features.cpuid.reset();
  perf_data::PerfDataWriter writer(o.output, std::move(events), std::move(features));

  struct sigaction action {};
  action.sa_handler = on_interrupt;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);

  session.start();
  if (o.all_cpus) synthesise_all_processes(writer);
  else if (o.pid >= 0) synthesise_process(writer, static_cast<std::uint32_t>(o.pid));

  auto write = [&](const SessionRecord& r) { writer.record(r.header.type, r.header.misc, r.body); };
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.duration);
  while (!interrupted) {
    if (session.child() > 0 && !session.child_running()) break;
    if (o.duration > 0 && std::chrono::steady_clock::now() >= end) break;
    session.wait(std::chrono::milliseconds(100));
    session.read_records(write);
  }
  session.stop();
  session.read_records(write);
  writer.finish();

  std::string names;
  for (const NamedEvent& e : requested) names += (names.empty() ? "" : ", ") + e.name;
  fmt::print(stderr, "[ tagop record: wrote {} samples of {} to {}; {} lost ]\n", session.samples(), names, o.output,
             session.lost());
  if (const auto status = session.child_status(); status && !(WIFEXITED(*status) && WEXITSTATUS(*status) == 0))
    fmt::print(stderr, "tagop record: {} {} {}\n", o.command.front(),
               WIFEXITED(*status) ? "exited with status" : "was killed by signal",
               WIFEXITED(*status) ? WEXITSTATUS(*status) : WTERMSIG(*status));
}

}  // namespace

void add_record_command(CLI::App& app) {
  auto o = std::make_shared<RecordOptions>();
  CLI::App* cmd = app.add_subcommand(
      "record", "Sample a command, a process or every CPU through perf_event_open and write perf.data");
  cmd->add_flag("--ibs-op", o->ibs_op, "AMD IBS op sampling (the ibs_op PMU)");
  cmd->add_flag("--ibs-fetch", o->ibs_fetch, "AMD IBS fetch sampling (the ibs_fetch PMU)");
  cmd->add_option("-e,--event", o->events,
                  "An event: cpu-clock, task-clock, or any libpfm4 name of this machine (default: cpu-clock)");
  cmd->add_option("--period", o->period,
                  "Events (IBS: ops, fetches or cycles; cpu-clock: nanoseconds) between samples "
                  "(default: IBS 65536, others 4000 samples a second)");
  auto* all = cmd->add_flag("-a,--all-cpus", o->all_cpus, "Every process on every CPU");
  auto* pid = cmd->add_option("-p,--pid", o->pid, "A running process (and the children it starts)");
  all->excludes(pid);
  cmd->add_option("--duration", o->duration, "With -a or -p: stop after this many seconds (default: at Ctrl-C)");
  cmd->add_option("-o,--output", o->output, "The perf.data file to write")->capture_default_str();
  cmd->add_option("command", o->command, "The command to run and sample, after --");
  cmd->footer(
      "Examples:\n"
      "  tagop record --ibs-op -a --duration 10\n"
      "  tagop record --event cpu-clock --period 100000 -o busy.data -- ./busy\n"
      "  tagop report busy.data");
  cmd->callback([o] { run_record(*o); });
}

}  // namespace tagop::cli
