#include <tagop/emulate/emulator.hpp>

#include <algorithm>      // std::sort
#include <memory>         // std::unique_ptr
#include <unordered_map>  // live processes by pid
#include <optional>  // std::optional
#include <random>    // std::mt19937_64

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include <tagop/amd_ibs/perf_capture.hpp>       // IbsCaptureWriter
#include <tagop/emulate/fast_strings.hpp>       // FastStrings
#include <tagop/emulate/ibs_encoder.hpp>        // IbsEncoder
#include <tagop/emulate/lackey_trace.hpp>       // LackeyTraceParser
#include <tagop/emulate/marker.hpp>             // emulation_cmdline
#include <tagop/emulate/process_code.hpp>       // ProcessCode
#include <tagop/emulate/tool_trace.hpp>         // ToolTraceParser, ToolTraceSink
#include <tagop/emulate/valgrind_tool.hpp>      // valgrind_tool_path, ValgrindToolDir
#include <tagop/emulate/valgrind_trace.hpp>     // ValgrindTrace
#include <tagop/error.hpp>                      // Error
#include <tagop/intel_core/programmer.hpp>      // program, Request
#include <tagop/perf_data_writer.hpp>           // PerfDataWriter
#include <tagop/registry.hpp>                   // Registry
#include <tagop/replacing_file.hpp>             // ReplacingFile

namespace tagop::emulate {

namespace {

using amd_ibs::IbsUnit;

/// One sample every `period` events. With `randomise`, each interval moves
/// by one of 16 values, as IbsRandEn randomises the low 4 bits of the fetch
/// counter's start (BKDG for Family 10h, IbsFetchCtl[57]); centred on the
/// period (-8 to +7) rather than only shortening it, so that samples times
/// the period still estimate the count at small periods.
class PeriodicSampler {
 public:
  PeriodicSampler(std::uint64_t period, bool randomise, std::uint64_t seed)
      : period_(period), randomise_(randomise), random_(seed) {
    left_ = next();
  }
  bool tick() {
    if (--left_ != 0) return false;
    left_ = next();
    return true;
  }

 private:
  std::uint64_t next() { return randomise_ ? period_ - 8 + (random_() & 15) : period_; }
  std::uint64_t period_, left_ = 0;
  bool randomise_;
  std::mt19937_64 random_;
};

intel_core::Microarchitecture atom_of(const MicroarchSpec& m) {
  return m.name == "goldmont" ? intel_core::Microarchitecture::goldmont : intel_core::Microarchitecture::silvermont;
}

std::string comm_of(const std::vector<std::string>& command) {
  std::string name = command.front();
  if (const auto slash = name.rfind('/'); slash != std::string::npos) name.erase(0, slash + 1);
  return name.substr(0, 15);  // the kernel's TASK_COMM_LEN - 1
}

// A PEBS event the model samples: its predicate, and the count to its next sample.
struct PebsEvent {
  std::string name;
  Predicate predicate;
  std::uint64_t left = 0;
};

// One processor model and what it writes.
class ModelRun {
 public:
  ModelRun(const MicroarchSpec& spec, const EmulateOptions& o, std::size_t index, bool several)
      : spec_(spec) {
    result_.spec = &spec;
    const std::string path = several ? capture_path(o, spec) : o.output;
    const std::uint64_t seed = o.seed + index;
    // Written whole or not at all: a run that fails or is stopped leaves
    // an earlier capture of that name as it was.
    if (spec.format != SampleFormat::p4_tagging) file_.emplace(path);
    if (spec.format == SampleFormat::ibs) {
      ibs_encoder_.emplace(spec.family, spec.model);
      period_ = o.period;
      ibs_ = std::make_unique<amd_ibs::IbsCaptureWriter>(
          file_->writing(), amd_ibs::IbsCaptureOptions{.family = spec.family, .model = spec.model, .stepping = spec.stepping,
                                           .fetch_period = o.period, .op_period = o.period,
                                           .op_counts_dispatched = true});
      ibs_->perf().features().cmdline = emulation_cmdline(std::string(spec.name), o.command);
      fetch_sampler_.emplace(o.period, true, seed);
      op_sampler_.emplace(o.period, true, seed ^ 0x5A5A5A5A);
      result_.capture = path;
    } else if (spec.format == SampleFormat::pebs) {
      open_pebs(file_->writing(), o);
      result_.capture = path;
    }
  }

  void mapping(const CodeMapping& m, std::uint32_t pid, std::uint64_t time) {
    if (perf_data::PerfDataWriter* w = writer())
      w->mmap2(pid, pid, m.start, m.end - m.start, m.pgoff, m.path, {}, {.pid = pid, .tid = pid, .cpu = 0, .time = time});
  }
  /// A process's name: at an exec (`exec`), or a forked child's, its parent's.
  void comm(std::uint32_t pid, const std::string& name, bool exec, std::uint64_t time) {
    if (perf_data::PerfDataWriter* w = writer())
      w->comm(pid, pid, name, exec, {.pid = pid, .tid = pid, .cpu = 0, .time = time});
  }

  /// One instruction of thread `tid` of process `pid`, through `model`
  /// (that process's core).
  void retire(CoreModel& model, const TraceInstruction& ins, const InstructionInfo& info, std::uint32_t pid,
              std::uint32_t tid, std::uint64_t time) {
    model.retire(ins, info, op_, fetches_);
    op_.time = time;
    op_.pid = pid;
    op_.tid = tid;
    ops_.add(op_);
    for (unsigned i = 0; i < fetches_.count; ++i) {
      Sample& f = fetches_.fetch[i];
      fetch_tally_.add(f);
      if (fetch_sampler_ && fetch_sampler_->tick()) {
        ibs_->sample(ibs_encoder_->encode(f, period_), pid, tid, 0, time);
        ++result_.fetch_samples;
      }
    }
    if (op_sampler_ && op_sampler_->tick()) {
      ibs_->sample(ibs_encoder_->encode(op_, period_), pid, tid, 0, time);
      ++result_.op_samples;
    }
    for (std::size_t e = 0; e < pebs_.size(); ++e) {
      PebsEvent& p = pebs_[e];
      if (!p.predicate.matches(op_.conditions) || --p.left != 0) continue;
      p.left = pebs_period_;
      // EventingRIP, the instruction itself; Goldmont's record adds its data address.
      pebs_writer_->sample(e, {.ip = op_.ip, .pid = pid, .tid = tid, .time = time, .addr = op_.data_linear,
                               .cpu = 0, .period = pebs_period_});
      ++result_.pebs_samples;
    }
  }

  ModelResult finish() {
    if (ibs_) ibs_->finish();
    if (pebs_writer_) pebs_writer_->finish();
    if (file_) result_.kept_old = file_->commit(/*keep_old=*/true);
    result_.ops = ops_.total();
    result_.fetches = fetch_tally_.total();
    result_.op_signatures = ops_.signatures();
    result_.fetch_signatures = fetch_tally_.signatures();
    if (const BackendInfo* b = Registry::builtin().find(spec_.backend))
      result_.events = count_events(b->events(), ops_, fetch_tally_);
    for (const PebsEvent& p : pebs_) result_.pebs_events.push_back(p.name);
    return std::move(result_);
  }
  const std::string& capture() const { return result_.capture; }
  const MicroarchSpec& spec() const { return spec_; }

 private:
  perf_data::PerfDataWriter* writer() {
    if (ibs_) return &ibs_->perf();
    return pebs_writer_.get();
  }

  void open_pebs(const std::string& path, const EmulateOptions& o) {
    pebs_period_ = o.pebs_period ? o.pebs_period : default_pebs_period;
    result_.pebs_period = pebs_period_;
    const auto uarch = atom_of(spec_);
    const auto& pmu = intel_core::pmu_spec(uarch);
    std::vector<perf_data::WriterEvent> events;
    const std::vector<std::string> names = o.pebs_events.empty() ? default_pebs_events(spec_) : o.pebs_events;
    for (const std::string& name : names) {
      const intel_core::EventSpec& e = intel_core::require_event(uarch, name);
      // The attr the programmer makes for this event alone: the hardware
      // has one PEBS counter, so each event would be its own run there.
      const Programming p = intel_core::program({.uarch = uarch, .events = {{.event = name, .pebs = true}},
                                                 .period = pebs_period_});
      const Predicate predicate = Predicate::parse(e.predicate);
      const ConditionSet modelled = CoreModel::modelled(SampleKind::op);
      ConditionSet missing;
      for (Condition c : predicate.used().members())
        if (!modelled.contains(c)) missing.insert(c);
      if (!missing.empty())
        throw Error(fmt::format("{}: the model does not decide {}, so it cannot emulate this event's samples", e.name,
                                missing.to_string()));
      perf_data::WriterEvent w;
      w.attr = p.perf_events.at(0).attr;
      w.attr.sample_type |= PERF_SAMPLE_IDENTIFIER | (pmu.pebs_data_linear_address ? PERF_SAMPLE_ADDR : 0);
      w.attr.sample_id_all = 1;
      if (events.empty()) w.attr.mmap = w.attr.comm = w.attr.mmap2 = w.attr.comm_exec = w.attr.task = 1;
      w.ids = {events.size() + 1};
      w.name = fmt::format("emulated-{}/{}/pp", spec_.name, e.name);
      events.push_back(std::move(w));
      pebs_.push_back({std::string(e.name), predicate, pebs_period_});
    }
    pebs_writer_ = std::make_unique<perf_data::PerfDataWriter>(
        path, std::move(events),
        perf_data::WriterFeatures{
            .cpuid = fmt::format("{},{},{},{}", spec_.vendor, spec_.family, spec_.model, spec_.stepping),
            .cmdline = emulation_cmdline(std::string(spec_.name), o.command)});
  }

  const MicroarchSpec& spec_;
  Sample op_;
  Fetches fetches_;
  SignatureTally ops_, fetch_tally_;
  ModelResult result_;
  std::uint64_t period_ = 0;
  std::optional<IbsEncoder> ibs_encoder_;
  std::optional<ReplacingFile> file_;  // before the writers: they close first
  std::unique_ptr<amd_ibs::IbsCaptureWriter> ibs_;
  std::optional<PeriodicSampler> fetch_sampler_, op_sampler_;
  std::vector<PebsEvent> pebs_;
  std::uint64_t pebs_period_ = 0;
  std::unique_ptr<perf_data::PerfDataWriter> pebs_writer_;
};

std::string comm_of_path(const std::string& path) { return comm_of({path}); }

// Each program of the traced family: its code, its model state per model
// run, its counts.
struct Image {
  ProcessResult result;
  std::unique_ptr<ProcessCode> code;
  std::vector<CoreModel> models;  ///< one per ModelRun
  FastStrings strings;             // the process's string instruction under way
  std::string comm;
  std::vector<ThreadResult> threads;
  // The thread whose instructions the models count now, and their counts
  // when it began to: what they count until the next thread runs is its.
  std::size_t running = no_thread;
  std::vector<CoreCounts> at_switch;
  static constexpr std::size_t no_thread = ~std::size_t{0};

  // The counts since the last switch go to the thread that ran.
  void settle() {
    for (std::size_t i = 0; i < models.size(); ++i) {
      const CoreCounts now = models[i].counts();
      if (running != no_thread) threads[running].models[i] += now - at_switch[i];
      at_switch[i] = now;
    }
  }
  ThreadResult& run(std::uint32_t tid) {
    std::size_t k = 0;
    while (k < threads.size() && threads[k].tid != tid) ++k;
    if (k == threads.size()) threads.push_back(ThreadResult{tid, 0, std::vector<CoreCounts>(models.size())});
    if (k != running) {
      settle();
      running = k;
    }
    return threads[k];
  }
};

// The trace's instructions, processes and mappings, to each process's
// models and the model runs' captures.
class Family final : public ToolTraceSink {
 public:
  Family(std::vector<std::unique_ptr<ModelRun>>& runs, const EmulateOptions& o, std::uint32_t root)
      : runs_(runs), options_(o) {
    Image& im = start(root, 0, o.command.front(), false);
    im.comm = comm_of(o.command);
    for (auto& r : runs_) r->comm(root, im.comm, true, 0);
  }

  void program(std::uint32_t pid, std::uint32_t ppid, const std::string& path) override {
    Image* live = find(pid);
    // The command's own program, told at its start: no new image.
    if (live && !live->result.forked && live->result.instructions == 0) {
      live->result.program = path;
      live->result.ppid = ppid;
      return;
    }
    Image& im = start(pid, ppid, path, false);
    im.comm = comm_of_path(path);
    for (auto& r : runs_) r->comm(pid, im.comm, true, time_);
  }

  void forked(std::uint32_t parent, std::uint32_t child) override {
    Image& p = image(parent);
    auto im = std::make_unique<Image>();
    im->result = {.pid = child, .ppid = parent, .program = p.result.program, .forked = true,
                  .instructions = p.result.instructions, .inherited = p.result.instructions, .threads = {},
                  .models = {}};
    im->code = std::make_unique<ProcessCode>(static_cast<pid_t>(child));
    for (const CodeMapping& m : p.code->mappings()) im->code->add_mapping(m);
    std::vector<CoreModel> copied(p.models);  // the caches and predictors as the fork found them
    im->models.swap(copied);
    for (const CoreModel& m : im->models) im->at_switch.push_back(m.counts());  // its threads count from here
    im->comm = p.comm;
    for (auto& r : runs_) r->comm(child, im->comm, false, time_);
    add(std::move(im));
  }

  void mapping(std::uint32_t pid, const CodeMapping& m) override { image(pid).code->add_mapping(m); }

  void instruction(std::uint32_t pid, std::uint32_t tid, const TraceInstruction& ins) override {
    if (pid != last_pid_ || !last_) {
      last_ = &image(pid);
      last_pid_ = pid;
      last_thread_ = nullptr;
    }
    Image& im = *last_;
    if (!last_thread_ || last_thread_->tid != tid) last_thread_ = &im.run(tid);
    const InstructionInfo& info = im.code->instruction(ins.ip);
    if (im.code->has_new_mappings())
      for (const CodeMapping& m : im.code->take_new_mappings())
        for (auto& r : runs_) r->mapping(m, pid, time_ + 1);
    auto retire = [&](const TraceInstruction& op) {
      ++time_;
      for (std::size_t i = 0; i < runs_.size(); ++i) runs_[i]->retire(im.models[i], op, info, pid, tid, time_);
    };
    if (options_.fast_strings) im.strings.feed(ins, info, retire);
    else retire(ins);
    ++im.result.instructions;
    ++last_thread_->instructions;
  }

  void finish(EmulateResult& out) {
    for (auto& im : images_) {
      out.unresolved += im->code->unresolved();
      out.distinct_instructions += im->code->distinct_instructions();
      out.fast_string_iterations += im->strings.folded_iterations();
      im->settle();
      im->result.threads = std::move(im->threads);
      std::sort(im->result.threads.begin(), im->result.threads.end(),
                [](const ThreadResult& a, const ThreadResult& b) { return a.tid < b.tid; });
      for (const CoreModel& m : im->models) im->result.models.push_back(m.counts());
      out.processes.push_back(std::move(im->result));
    }
  }

 private:
  Image& start(std::uint32_t pid, std::uint32_t ppid, const std::string& program, bool forked) {
    auto im = std::make_unique<Image>();
    im->result = {.pid = pid, .ppid = ppid, .program = program, .forked = forked, .instructions = 0, .inherited = 0,
                  .threads = {}, .models = {}};
    im->code = std::make_unique<ProcessCode>(static_cast<pid_t>(pid));
    for (auto& r : runs_) im->models.emplace_back(r->spec(), options_.data_pages, options_.cache);
    im->at_switch.resize(im->models.size());
    return add(std::move(im));
  }
  Image& add(std::unique_ptr<Image> im) {
    Image& out = *im;
    live_[im->result.pid] = &out;
    images_.push_back(std::move(im));
    last_ = nullptr;
    last_thread_ = nullptr;
    return out;
  }
  Image* find(std::uint32_t pid) {
    const auto it = live_.find(pid);
    return it == live_.end() ? nullptr : it->second;
  }
  // A process the trace did not introduce (its fork was lost): on its own.
  Image& image(std::uint32_t pid) {
    if (Image* im = find(pid)) return *im;
    Image& im = start(pid, 0, "", false);
    im.comm = fmt::format("{}", pid);
    return im;
  }
  std::vector<std::unique_ptr<ModelRun>>& runs_;
  const EmulateOptions& options_;
  std::vector<std::unique_ptr<Image>> images_;
  std::unordered_map<std::uint32_t, Image*> live_;
  std::uint32_t last_pid_ = 0;
  Image* last_ = nullptr;
  ThreadResult* last_thread_ = nullptr;
  std::uint64_t time_ = 0;
};

}  // namespace

std::string options_problem(const EmulateOptions& o) {
  if (o.models.empty()) return "no model: give --as with one of zen3, zen4, fam10h, goldmont, silvermont, p4";
  if (o.command.empty()) return "no command to emulate: give it after --";
  if (o.period < 16 || o.period % 16 != 0)
    return fmt::format("period {} is not a multiple of 16 of at least 16 (IBS counts in units of 16: MaxCnt = "
                       "period / 16)",
                       o.period);
  for (const MicroarchSpec* m : o.models) {
    if (m->format != SampleFormat::ibs) continue;
    const IbsEncoder encoder(m->family, m->model);
    for (IbsUnit unit : {IbsUnit::fetch, IbsUnit::op})
      if (o.period > encoder.max_period(unit))
        return fmt::format("period {} is larger than {}'s {} MaxCnt field holds (at most {})", o.period, m->name,
                           amd_ibs::unit_name(unit), encoder.max_period(unit));
  }
  for (std::size_t i = 0; i < o.models.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (o.models[i] == o.models[k]) return fmt::format("--as {} is given twice", o.models[i]->name);
  return "";
}

std::string capture_path(const EmulateOptions& o, const MicroarchSpec& m) {
  const auto slash = o.output.rfind('/');
  const auto dot = o.output.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == 0)
    return fmt::format("{}.{}", o.output, m.name);
  return fmt::format("{}.{}{}", o.output.substr(0, dot), m.name, o.output.substr(dot));
}

std::vector<std::string> default_pebs_events(const MicroarchSpec& m) {
  if (m.name == "goldmont") return {"MEM_LOAD_UOPS_RETIRED.L1_MISS", "BR_MISP_RETIRED.ALL_BRANCHES"};
  if (m.name == "silvermont") return {"MEM_UOPS_RETIRED.L2_MISS_LOADS", "BR_MISP_RETIRED.ALL_BRANCHES"};
  return {};
}

EmulateResult emulate(const EmulateOptions& o) {
  if (const std::string problem = options_problem(o); !problem.empty()) throw Error(problem);
  std::size_t writing = 0;
  for (const MicroarchSpec* m : o.models) writing += m->format != SampleFormat::p4_tagging;
  std::vector<std::unique_ptr<ModelRun>> runs;
  for (std::size_t i = 0; i < o.models.size(); ++i)
    runs.push_back(std::make_unique<ModelRun>(*o.models[i], o, i, writing > 1));

  // tagop's own tool where it was built, else Lackey (the command's process only).
  const std::string tool = valgrind_tool_path();
  const std::string core = tool.empty() ? std::string() : valgrind_core_folder(o.valgrind);
  if (!tool.empty() && core.empty())
    throw Error(fmt::format("cannot find Valgrind's core files (vgpreload_core-amd64-linux.so) for {}: tagop's "
                            "Valgrind tool needs them beside it (set TAGOP_VALGRIND_TOOL=lackey to use Lackey)",
                            o.valgrind));
  std::optional<ValgrindToolDir> folder;
  if (!tool.empty()) folder.emplace(tool, core);
  ValgrindTrace trace(o.valgrind, o.command, folder ? folder->path() : std::string(), o.valgrind_options);
  const auto root = static_cast<std::uint32_t>(trace.pid());
  if (o.on_started) o.on_started(trace.pid());
  Family family(runs, o, root);
  EmulateResult result;
  result.command = o.command;
  std::vector<std::string> engine{o.valgrind};
  for (const std::string& a : ValgrindTrace::valgrind_arguments(100, folder.has_value()))
    if (!a.starts_with("--log-fd") && !a.starts_with("--tagop-fd") && a != "-q") engine.push_back(a);
  engine.insert(engine.end(), o.valgrind_options.begin(), o.valgrind_options.end());
  result.engine = fmt::format("{}", fmt::join(engine, " "));
  // Large reads: the trace is tens to hundreds of bytes per instruction.
  std::vector<char> buffer(std::size_t{1} << 20);
  std::vector<std::string> said;
  if (folder) {
    ToolTraceParser parser(root);
    while (const std::size_t n = trace.read(buffer)) parser.feed(std::span<const char>(buffer.data(), n), family);
    parser.finish(family);
    result.instructions = parser.instructions();
    result.bad_lines = parser.bad_frames();
  } else {
    LackeyTraceParser parser;
    auto on_instruction = [&](const TraceInstruction& ins) { family.instruction(root, root, ins); };
    while (const std::size_t n = trace.read(buffer))
      parser.feed(std::span<const char>(buffer.data(), n), on_instruction);
    parser.finish(on_instruction);
    result.instructions = parser.instructions();
    result.bad_lines = parser.bad_lines();
    said = parser.messages();
  }
  result.exit_status = trace.wait();
  family.finish(result);
  if (result.instructions == 0) {
    std::string told;
    for (const std::string& m : said) told += "\n  " + m;
    throw Error(fmt::format("valgrind traced no instruction of '{}' (exit status {}){}", o.command.front(),
                            result.exit_status, told.empty() ? "" : ": it said" + told));
  }
  for (auto& r : runs) result.models.push_back(r->finish());
  return result;
}

}  // namespace tagop::emulate
