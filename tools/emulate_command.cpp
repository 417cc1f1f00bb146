// tagop emulate --as MODEL -- CMD ARGS: what IBS, PEBS or Pentium 4
// tagging would have said about a program, without the hardware: the
// program runs under Valgrind, its trace goes through a model of the
// processor, and the samples are written as that hardware writes them.

#include <signal.h>  // sigaction, kill, SIGINT, SIGTERM

#include <cstdio>   // stderr
#include <cstdlib>  // std::exit
#include <cstring>  // strsignal
#include <fstream>  // std::ofstream
#include <memory>   // std::make_shared

#include <fmt/format.h>       // fmt::print
#include <fmt/ranges.h>       // fmt::join

#include <tagop/emulate/core_model.hpp>         // CoreModel::modelled
#include <tagop/emulate/counts_file.hpp>        // counts_of
#include <tagop/emulate/emulator.hpp>           // emulate
#include <tagop/emulate/microarchitecture.hpp>  // find_microarchitecture
#include <tagop/error.hpp>                      // Error
#include <tagop/measures.hpp>                   // measure_table
#include <tagop/predicate.hpp>                  // Predicate

#include "commands.hpp"
#include "emulate_records.hpp"
#include "output.hpp"

namespace tagop::cli {

namespace {

// The traced process, for the stop-signal handler: 0 until it runs.
volatile sig_atomic_t traced_pid = 0;

// Ctrl-C or SIGTERM: the capture of what ran so far is still written, as
// `tagop record` writes its own. The terminal's Ctrl-C reaches the
// program itself (it is in our process group); a kill from a process is
// passed on, so that the program ends and its trace with it.
void forward_stop_signal(int signal, siginfo_t* info, void*) {
  if (info && info->si_code != SI_KERNEL && traced_pid > 0) ::kill(traced_pid, signal);
}

void forward_stop_signals() {
  struct sigaction action {};
  action.sa_sigaction = forward_stop_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  ::sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

// tagop record's exit status: the program's, 128 + N when signal N ended it.
void report_status(const emulate::EmulateResult& r) {
  const int status = r.exit_status;
  if (status > 128 && status < 128 + 65)
    fmt::print(stderr, "tagop emulate: {} ended with status {} (128 + {}: {})\n", r.command.front(), status,
               status - 128, ::strsignal(status - 128));
  else if (status != 0)
    fmt::print(stderr, "tagop emulate: {} exited with status {}\n", r.command.front(), status);
}

struct EmulateCommandOptions {
  std::vector<std::string> models;
  std::string period = "0x10000";
  std::string pebs_period;
  std::vector<std::string> pebs_events;
  std::string output = "emulated.data";
  std::string counts;
  std::string page_size = "4k";
  std::string seed = "1";
  std::string valgrind = "valgrind";
  std::vector<std::string> command;
  OutputOptions format;
  bool period_given = false;
  bool no_prefetch = false, exact_cachegrind = false;
};

// The headline numbers of a model, vendor-neutral: each a predicate over
// its ops and the predicate it is a fraction of.
struct Headline {
  const char* title;
  const char* what;
  const char* of;
};
constexpr Headline headlines[] = {
    {"loads", "op & load", "op"},
    {"DC miss rate of loads", "op & load & dc.miss", "op & load"},
    {"L2 miss rate of loads", "op & load & l2.miss", "op & load"},
    {"DTLB miss rate (L1)", "op & (load | store) & dtlb.l1_miss", "op & (load | store)"},
    {"DTLB walk rate", "op & (load | store) & dtlb.l2_miss", "op & (load | store)"},
    {"branches", "op & branch", "op"},
    {"mispredict rate", "op & branch & branch.mispredicted", "op & branch"},
    {"IC miss rate", "fetch & ic.miss", "fetch"},
};

std::vector<std::string> names(const ConditionSet& set) {
  std::vector<std::string> out;
  for (Condition c : set.members()) out.emplace_back(c.name());
  return out;
}

std::string_view sample_kind_name(SampleKind k) { return k == SampleKind::fetch ? "fetch" : "op"; }

void add_signatures(std::vector<SignatureRecord>& out, const std::vector<emulate::SignatureCount>& list, SampleKind kind) {
  for (const emulate::SignatureCount& s : list) {
    SignatureRecord r{{sample_kind_name(kind)}, names(s.conditions), s.count, {}};
    for (std::size_t m = 0; m < measure_count; ++m)
      if (s.sums[m]) r.sums.emplace_back(measure_table[m].name, s.sums[m]);
    out.push_back(std::move(r));
  }
}

EmulatedModelRecord model_record(const emulate::ModelResult& m) {
  EmulatedModelRecord out{std::string(m.spec->name), std::string(m.spec->title), std::string(m.spec->backend),
                          m.capture.empty() ? std::nullopt : std::optional(m.capture), m.ops, m.fetches,
                          {m.fetch_samples, m.op_samples, m.pebs_samples}, m.pebs_events,
                          {names(emulate::CoreModel::modelled(SampleKind::op)),
                           names(emulate::CoreModel::modelled(SampleKind::fetch))},
                          {}, {}};
  add_signatures(out.signatures, m.op_signatures, SampleKind::op);
  add_signatures(out.signatures, m.fetch_signatures, SampleKind::fetch);
  for (const emulate::EventCount& e : m.events) {
    const auto modelled = [&](std::uint64_t n) { return e.modelled ? std::optional(n) : std::nullopt; };
    EmulatedEventRecord r{std::string(e.event->name), std::string(e.event->code), std::string(e.event->predicate),
                          {sample_kind_name(e.event->kind)}, modelled(e.count), {}, {}};
    if (!e.event->sums.empty()) r.total.emplace(modelled(e.total)), r.sums.emplace(e.event->sums);
    out.events.push_back(std::move(r));
  }
  return out;
}

// Each model's counts, by Cachegrind's names.
std::vector<EmulatedCoreCounts> core_counts_records(const std::vector<emulate::CoreCounts>& counts,
                                                    const emulate::EmulateResult& r) {
  std::vector<EmulatedCoreCounts> out;
  for (std::size_t i = 0; i < counts.size() && i < r.models.size(); ++i) {
    const emulate::CoreCounts& c = counts[i];
    out.push_back({std::string(r.models[i].spec->name), c.instructions, c.i1_misses, c.il_misses, c.data_reads,
                   c.d1_read_misses, c.ll_read_misses, c.data_writes, c.d1_write_misses, c.ll_write_misses,
                   c.conditional_branches, c.conditional_mispredicts, c.indirect_branches, c.indirect_mispredicts});
  }
  return out;
}

EmulatedProcessRecord process_record(const emulate::ProcessResult& p, const emulate::EmulateResult& r) {
  EmulatedProcessRecord out{p.pid, p.ppid, p.program, p.forked, p.instructions, p.inherited, {},
                            core_counts_records(p.models, r)};
  for (const emulate::ThreadResult& t : p.threads)
    out.threads.push_back({t.tid, t.instructions, core_counts_records(t.models, r)});
  return out;
}

EmulateRecord emulate_record(const emulate::EmulateResult& r) {
  EmulateRecord out{{}, {}, r.engine, fmt::format("{}", fmt::join(r.command, " ")),
                    r.exit_status, r.instructions, r.distinct_instructions, r.unresolved, {}, {}};
  for (const emulate::ModelResult& m : r.models) out.models.push_back(model_record(m));
  for (const emulate::ProcessResult& p : r.processes) out.processes.push_back(process_record(p, r));
  return out;
}

std::string percent(std::uint64_t n, std::uint64_t of) {
  return of ? fmt::format("{:.2f}%", 100.0 * static_cast<double>(n) / static_cast<double>(of)) : "-";
}

// A line per model of a process's or a thread's counts.
void print_counts(const std::vector<emulate::CoreCounts>& counts, const emulate::EmulateResult& r,
                  std::string_view indent) {
  for (std::size_t i = 0; i < counts.size() && i < r.models.size(); ++i) {
    const emulate::CoreCounts& c = counts[i];
    fmt::print(stderr,
               "{}{:<10} I1 misses {} (LL {}); reads {} (D1 misses {}, LL {}); writes {} (D1 misses {}, LL {}); "
               "conditional branches {} ({} mispredicted, {}); indirect {} ({}, {})\n",
               indent, r.models[i].spec->name, c.i1_misses, c.il_misses, c.data_reads, c.d1_read_misses,
               c.ll_read_misses, c.data_writes, c.d1_write_misses, c.ll_write_misses, c.conditional_branches,
               c.conditional_mispredicts, percent(c.conditional_mispredicts, c.conditional_branches),
               c.indirect_branches, c.indirect_mispredicts, percent(c.indirect_mispredicts, c.indirect_branches));
  }
}

// Each process of the family with its own counts, as Cachegrind's
// per-process files give them.
void print_processes(const emulate::EmulateResult& r) {
  fmt::print(stderr, "\nprocesses ({}; each its own core, a forked child's counts go on from its parent's at the fork):\n",
             r.processes.size());
  for (const emulate::ProcessResult& p : r.processes) {
    fmt::print(stderr, "  pid {} {}", p.pid, p.program.empty() ? "(not told)" : p.program);
    if (p.forked) fmt::print(stderr, " (forked from {}, {} instructions inherited)", p.ppid, p.inherited);
    else if (p.ppid) fmt::print(stderr, " (parent {})", p.ppid);
    fmt::print(stderr, ": {} instructions\n", p.instructions);
    print_counts(p.models, r, "    ");
    if (p.threads.size() > 1)
      for (const emulate::ThreadResult& t : p.threads) {
        fmt::print(stderr, "    thread {}: {} instructions\n", t.tid, t.instructions);
        print_counts(t.models, r, "      ");
      }
  }
}

// On stderr, as perf record does: stdout is the program's.
void print_text(const emulate::EmulateResult& r, const EmulateRecord& counts, std::uint64_t period, bool period_given,
                bool pebs_period_given) {
  fmt::print(stderr, "emulated {} instructions of '{}' (exit status {}; {} distinct addresses", r.instructions,
             counts.command, r.exit_status, r.distinct_instructions);
  if (r.unresolved) fmt::print(stderr, ", {} whose bytes were not found: taken as not branches", r.unresolved);
  if (r.fast_string_iterations)
    fmt::print(stderr, "; {} REP MOVS/STOS iterations run as 64-byte fast-string chunks", r.fast_string_iterations);
  fmt::print(stderr, ")\n");
  if (r.engine.find("lackey") != std::string::npos)
    fmt::print(stderr, "traced with Valgrind's Lackey (tagop's own Valgrind tool was not built or not found): the "
                       "command's process only, not the processes it starts\n");
  for (std::size_t i = 0; i < r.models.size(); ++i) {
    const emulate::ModelResult& m = r.models[i];
    fmt::print(stderr, "\n{} ({}): {}\n", m.spec->name, m.spec->title, emulate::format_name(m.spec->format));
    if (!m.capture.empty()) {
      fmt::print(stderr, "  capture: {}", m.capture);
      if (m.spec->format == emulate::SampleFormat::ibs)
        fmt::print(stderr, " ({} op and {} fetch samples, one every {} ops and fetches{})\n", m.op_samples,
                   m.fetch_samples, period, period_given ? "" : ", the default --period");
      else
        fmt::print(stderr, " ({} PEBS samples of {}, one every {} events{})\n", m.pebs_samples,
                   fmt::join(m.pebs_events, ", "), m.pebs_period,
                   pebs_period_given ? "" : ", the default --pebs-period");
      if (!m.kept_old.empty()) fmt::print(stderr, "  the old {} is {}\n", m.capture, m.kept_old);
    }
    fmt::print(stderr, "  {} ops, {} fetches\n", m.ops, m.fetches);
    // Headlines from the signatures, as `tagop compare --counts` computes them.
    const emulate::CountsFile::Model model = emulate::counts_of(m);
    for (const Headline& h : headlines) {
      const auto n = model.count(Predicate::parse(h.what));
      const auto d = model.count(Predicate::parse(h.of));
      if (!n || !d) continue;
      if (std::string_view(h.of) == "op")
        fmt::print(stderr, "  {:<24} {}\n", h.title, *n);
      else
        fmt::print(stderr, "  {:<24} {:.2f}% ({} of {})\n", h.title, *d ? 100.0 * static_cast<double>(*n) / static_cast<double>(*d) : 0.0,
                   *n, *d);
    }
    std::size_t modelled = 0;
    for (const auto& e : m.events) modelled += e.modelled;
    fmt::print(stderr, "  {} of the {} events of {} counted (--json or --counts FILE lists them)\n", modelled, m.events.size(),
               m.spec->backend);
  }
  print_processes(r);
  fmt::print(stderr, "\nThe numbers are a model's, not the hardware's: see `tagop emulate --help`.\n");
}

int run(const EmulateCommandOptions& o) {
  emulate::EmulateOptions e;
  for (const std::string& name : o.models) {
    const emulate::MicroarchSpec* m = emulate::find_microarchitecture(name);
    if (!m) {
      std::string known;
      for (const auto& x : emulate::microarchitectures()) known += (known.empty() ? "" : ", ") + std::string(x.name);
      usage_error(fmt::format("--as '{}': expected one of {}", name, known));
    }
    e.models.push_back(m);
  }
  if (e.models.empty()) e.models.push_back(emulate::find_microarchitecture("zen3"));
  e.period = parse_u64(o.period, "--period");
  if (e.period < 16 || e.period % 16 != 0)
    usage_error(fmt::format("--period {}: give a multiple of 16 of at least 16 (IBS counts ops in units of 16)",
                            o.period));
  if (!o.pebs_period.empty()) e.pebs_period = parse_u64(o.pebs_period, "--pebs-period");
  if (!o.pebs_period.empty() && e.pebs_period == 0) usage_error("--pebs-period 0: give at least 1");
  e.pebs_events = o.pebs_events;
  if (o.output == "-") usage_error(pipe_mode_refusal);
  e.output = o.output;
  if (o.page_size == "4k") e.data_pages = emulate::PageSize::small_4k;
  else if (o.page_size == "2m") e.data_pages = emulate::PageSize::large_2m;
  else usage_error(fmt::format("--page-size '{}': expected 4k or 2m", o.page_size));
  e.seed = parse_u64(o.seed, "--seed");
  e.cache.prefetchers = !o.no_prefetch && !o.exact_cachegrind;
  e.cache.victim_l3 = !o.exact_cachegrind;
  e.cache.cachegrind_branches = o.exact_cachegrind;
  if (o.exact_cachegrind) e.valgrind_options.push_back("--vex-guest-chase=no");
  e.fast_strings = !o.exact_cachegrind;
  e.valgrind = o.valgrind;
  e.command = o.command;
  if (e.command.empty()) usage_error("give the command to emulate after --, e.g. tagop emulate --as zen3 -- ./a.out");
  if (const std::string problem = emulate::options_problem(e); !problem.empty()) usage_error(problem);
  e.on_started = [](int pid) { traced_pid = pid; };
  forward_stop_signals();

  const emulate::EmulateResult r = emulate::emulate(e);
  const EmulateRecord counts = emulate_record(r);
  if (!o.counts.empty()) {
    std::ofstream out(o.counts);
    out << record::to_json(counts).dump(1) << '\n';
    if (!out) throw Error(fmt::format("{}: cannot write the counts", o.counts));
  }
  if (o.format.resolved() != Format::text) print_record(record::to_json(counts), emulate_contract.schema, o.format.resolved());
  else print_text(r, counts, e.period, o.period_given, !o.pebs_period.empty());
  report_status(r);
  return r.exit_status;
}

}  // namespace

void add_emulate_command(CLI::App& app) {
  auto o = std::make_shared<EmulateCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "emulate", "IBS, PEBS or Pentium 4 tagging of a program without the hardware: its trace (Valgrind) through a "
                 "model of the processor");
  std::string models;
  for (const auto& m : emulate::microarchitectures())
    models += fmt::format("\n  {:10} {}: {}", m.name, m.title, emulate::format_name(m.format));
  cmd->add_option("--as", o->models, "The processor to emulate (repeat for several; default zen3):" + models);
  cmd->add_option("--period", o->period, "IBS: one op (and one fetch) sample every N, a multiple of 16, each interval "
                                         "moved by -8 to +7 like IbsRandEn")
      ->capture_default_str();
  cmd->add_option("--pebs-event", o->pebs_events,
                  "Goldmont/Silvermont: a PEBS-capable event to sample (repeatable; default: L1 or L2 load misses "
                  "and mispredicted branches)");
  cmd->add_option("--pebs-period", o->pebs_period,
                  fmt::format("PEBS: one sample every N events (default {}: PEBS events are rarer than ops)",
                              emulate::default_pebs_period));
  cmd->add_option("-o,--output", o->output,
                  "The capture (perf.data); with several models each gets its name before the extension")
      ->capture_default_str();
  cmd->add_option("--counts", o->counts, "Write every event's count of every model as JSON, for tagop compare --counts");
  cmd->add_option("--page-size", o->page_size, "The data pages the TLBs see: 4k or 2m (the model cannot see the "
                                               "page tables)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the IBS randomisation (the same seed gives the same samples)")
      ->capture_default_str();
  cmd->add_flag("--no-prefetch", o->no_prefetch,
                "Without the L1D's next-line and stride prefetchers (zen3, zen4 have them in the model)");
  cmd->add_flag("--exact-cachegrind", o->exact_cachegrind,
                "Caches and branches as Cachegrind simulates them, for an exact comparison: no prefetchers, an L3 "
                "filled by every miss (not by L2 victims), REP MOVS/STOS one op per iteration (not in 64-byte "
                "fast-string chunks), Cachegrind's branch predictor (cg_branchpred.c) instead of the part's, and "
                "Valgrind run with --vex-guest-chase=no (its default merges some short conditional jumps away). Each "
                "process's counts (the summary's processes, --json's \"processes\") are then those of Cachegrind's "
                "cachegrind.out file of that process, Cachegrind run with --vex-guest-chase=no and --I1, --D1 and "
                "--LL set to the model's L1I, L1D and last level");
  cmd->add_option("--valgrind", o->valgrind, "The valgrind to run")->capture_default_str();
  cmd->add_option("command", o->command, "The command to emulate, after --")->required();
  add_output_options(*cmd, o->format, /*with_csv=*/true);
  cmd->footer(
      "The program runs under Valgrind's lackey tool (about 100 times slower than alone); each\n"
      "instruction is one op of the model: L1I, L1D, L2 (L3) caches, L1/L2 ITLB and DTLB, a gshare\n"
      "branch predictor and fixed latencies, one table per processor (cited). Zen models add L1D\n"
      "next-line and stride prefetchers and a victim L3; REP MOVS/STOS run in 64-byte chunks as\n"
      "fast-string microcode does (--exact-cachegrind turns all three off, and predicts branches\n"
      "with Cachegrind's predictor: each process's counts are then Cachegrind's). The model ignores\n"
      "out-of-order overlap (a miss adds its whole latency), other prefetchers, SMT and other\n"
      "cores, and the memory controller; physical addresses are unknown.\n"
      "Captures say they are emulated (HEADER_CMDLINE), and tagop report says so.\n"
      "The summary goes to stderr (stdout is the program's); --json prints the counts on stdout\n"
      "after the program's own output: --counts FILE keeps them apart.\n"
      "Exit status: the program's (128 + N when signal N ended it), as tagop record's; 1 when the emulation\n"
      "fails, 2 for bad usage. Each capture is written beside its name and renamed at the end, an earlier\n"
      "file kept as FILE.old: a failed run leaves it as it was; Ctrl-C writes what ran until then.\n\n"
      "Examples:\n"
      "  tagop emulate --as zen3 -o x.data -- gzip -c big.txt\n"
      "  tagop report x.data\n"
      "  tagop emulate --as zen3 --as goldmont --as p4 --counts counts.json -o run.data -- xz -c big.txt\n"
      "  tagop compare 'load & dc.miss' --counts counts.json\n"
      "  tagop emulate --as goldmont --pebs-event MEM_UOPS_RETIRED.ALL_LOADS --pebs-period 1000 -- ./a.out\n"
      "  perf report -D -i x.data | head");
  cmd->callback([o, cmd] {
    o->period_given = cmd->count("--period") > 0;
    const int status = run(*o);
    if (status != 0) std::exit(status);
  });
}

}  // namespace tagop::cli
