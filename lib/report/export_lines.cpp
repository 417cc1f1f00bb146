// JSON lines (`tagop report --format jsonl`): the capture's IBS samples, decoded one at
// a time and written in the file's order (profiles::SampleLineWriter), so
// memory stays flat whatever the capture's size: only the process table,
// the symbol tables of the modules met and a window of samples are kept. A
// capture without IBS gets a line per sample of its events (event, place,
// period, symbol).
//
// A sample waits in a window for the records of its time (record_window.hpp:
// perf may write a sample before the MMAP record of its process), as in
// the report.

#include <algorithm>      // std::find, std::any_of, std::fill
#include <array>          // std::array
#include <memory>         // std::unique_ptr
#include <unordered_map>  // symbol tables, names
#include <variant>        // std::visit
#include <vector>         // std::vector

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/decoder.hpp>       // observable
#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/engine.hpp>                // decide
#include <tagop/error.hpp>                 // Error
#include <tagop/process_table.hpp>         // ProcessTable
#include <tagop/profiles/sample_lines.hpp>  // SampleLineWriter
#include <tagop/report/export.hpp>      // write_sample_lines
#include <tagop/sample_reads.hpp>          // SampleReads

#include "record_window.hpp"  // RecordWindow


namespace tagop::report {

namespace {

template <typename T>
bool allowed(const std::vector<T>& only, const T& value) {
  return only.empty() || std::find(only.begin(), only.end(), value) != only.end();
}

// A module's functions, opened on first use, and their lines' symbols,
// escaped once each (node-based maps: the addresses stay put).
struct ModuleNames {
  std::unique_ptr<SymbolTable> table;
  profiles::EscapedSymbol module_only;  // an address outside its functions
  std::unordered_map<std::uint32_t, profiles::EscapedSymbol> functions;
};

// The symbols of the addresses met last: a slot per hash of (pid, address),
// holding the last one met there; fixed in size, so memory stays flat on
// captures with many addresses. A new mapping or process empties it (a new
// generation), for it can change what an address holds. A hash table of
// every address met was a tenth of a -g capture's lines' time.
class RecentSymbols {
 public:
  const profiles::EscapedSymbol* find(std::uint32_t pid, std::uint64_t ip) const {
    const Slot& s = slots_[slot_of(pid, ip)];
    return s.generation == generation_ && s.ip == ip && s.pid == pid ? s.symbol : nullptr;
  }
  void keep(std::uint32_t pid, std::uint64_t ip, const profiles::EscapedSymbol* symbol) {
    slots_[slot_of(pid, ip)] = {ip, pid, generation_, symbol};
  }
  void clear() {
    if (++generation_ != 0) return;
    std::fill(slots_.begin(), slots_.end(), Slot{});  // 2^32 generations on
    generation_ = 1;
  }

 private:
  struct Slot {
    std::uint64_t ip = 0;
    std::uint32_t pid = 0, generation = 0;
    const profiles::EscapedSymbol* symbol = nullptr;
  };
  static constexpr std::size_t slots = std::size_t{1} << 13;
  static std::size_t slot_of(std::uint32_t pid, std::uint64_t ip) {
    return static_cast<std::size_t>(((ip ^ (std::uint64_t{pid} << 32)) * 0x9E3779B97F4A7C15ULL) >> 51) & (slots - 1);
  }
  std::vector<Slot> slots_ = std::vector<Slot>(slots);
  std::uint32_t generation_ = 1;
};

// What the lines of both kinds of capture share: the process table, the
// filters but --where, each address's symbol, looked up once, and the
// window in which samples and records wait (record_window.hpp). Handler
// has `write(const Line&)`, which filters and writes a line, and Line a
// `time()`.
template <typename Handler, typename Line>
class LineHandlerBase : public perf_data::RecordHandler {
 public:
  LineHandlerBase(const perf_data::PerfDataReader& reader, const Options& options, std::ostream& out)
      : options_(options), writer_(out), window_(reader.info().timed(), static_cast<Handler&>(*this)) {
    processes_.add_build_ids(reader.info().build_ids);
    sources_ = options.symbol_sources;
    sources_.push_back(elf_symbol_source());
    // The lines are written on a thread of their own where threads allow a
    // second, as the symbols are read (cpu_budget.hpp; asked before that
    // read begins, which would count as a CPU's load).
    writer_.write_behind(options.threads == 0 ? two_cpus_idle() : options.threads > 1);
    prepare_symbol_sources(sources_, reader.info(), options.threads);
  }

  // The records' strings are the mapping's: readable until read() returns.
  void mmap(const perf_data::MmapRecord& r) override { window_.record(r, r.id.time); }
  void comm(const perf_data::CommRecord& r) override { window_.record(r, r.id.time); }
  void task(const perf_data::TaskRecord& r) override { window_.record(r, r.time); }
  void progress(std::uint64_t done, std::uint64_t total) override {
    if (options_.progress) options_.progress(done, total);
  }

  std::uint64_t finish() {
    window_.finish();
    release_held(true);
    writer_.flush();
    return writer_.lines();
  }

  /// Takes a record the window released: a new mapping or process can
  /// change what an address holds.
  void apply(const ProcessRecord& record) {
    std::visit([&](const auto& r) { take(r); }, record);
  }

 protected:
  /// Hands on a sample's line, which the derived class's write(line) writes
  /// when its time comes.
  void queue(Line&& line) { window_.queue(std::move(line)); }

  bool passes(std::uint32_t cpu, std::uint32_t pid, std::uint32_t tid, std::uint64_t time) const {
    const Filters& f = options_.filters;
    if (!allowed(f.cpus, cpu) || !allowed(f.pids, pid) || !allowed(f.tids, tid)) return false;
    if (!f.comms.empty() && !allowed(f.comms, std::string(processes_.comm_of(pid)))) return false;
    return !f.time || (time >= f.time->start && time <= f.time->stop);
  }

  // The symbol of an address, looked up once per address (samples hit the
  // same hot addresses again and again); nullptr while its module's
  // symbols are still being read (SymbolSource::reading: the kernel's, on
  // a thread of their own), and then held_ says where it is.
  const profiles::EscapedSymbol* symbol_at(std::uint32_t pid, std::uint64_t ip) {
    if (const profiles::EscapedSymbol* known = symbols_at_.find(pid, ip)) return known;
    const profiles::EscapedSymbol* symbol = symbol_of(pid, ip);
    if (symbol) symbols_at_.keep(pid, ip, symbol);
    return symbol;
  }

  // Lines whose symbol waits for their module's symbols are written
  // without it and held (SampleLineWriter::write_held), so that the walk
  // and the lines' work go on while the symbols are read, rather than the
  // first kernel sample waiting for them. They are named once the read is
  // done, or when so many wait that memory would grow (`wait`: now).
  void release_held(bool wait) {
    if (held_.empty()) return;
    constexpr std::size_t most_held = std::size_t{64} << 20;
    if (!wait && writer_.held_bytes() < most_held &&
        std::any_of(held_modules_.begin(), held_modules_.end(), [&](std::uint32_t m) { return reading(m); }))
      return;
    std::vector<const profiles::EscapedSymbol*> symbols;
    symbols.reserve(held_.size());
    for (const Held& h : held_) symbols.push_back(&name_in(h.module, h.offset));
    writer_.fill_held(symbols);
    held_.clear();
    held_modules_.clear();
  }

  const Options& options_;
  profiles::SampleLineWriter writer_;

 private:
  void take(const perf_data::MmapRecord& r) {
    processes_.mmap(r);
    symbols_at_.clear();
  }
  void take(const perf_data::CommRecord& r) { processes_.comm(r); }
  void take(const perf_data::TaskRecord& r) {
    processes_.task(r);
    symbols_at_.clear();
  }
  // Where a held line's address is: its module and offset there (the
  // process table may change before it is named).
  struct Held {
    std::uint32_t module = 0;
    std::uint64_t offset = 0;
  };

  bool reading(std::uint32_t module) const {
    const ModuleRef ref = ModuleRef::of(processes_.modules()[module]);
    return std::any_of(sources_.begin(), sources_.end(), [&](const auto& s) { return s->reading(ref); });
  }

  const profiles::EscapedSymbol* symbol_of(std::uint32_t pid, std::uint64_t ip) {
    const Mapping* m = processes_.find(pid, ip);
    if (!m) return &unknown_;
    if (!modules_[m->module].table && !tried_.contains(m->module) && reading(m->module)) {
      held_.push_back({m->module, m->file_offset(ip)});
      if (std::find(held_modules_.begin(), held_modules_.end(), m->module) == held_modules_.end())
        held_modules_.push_back(m->module);
      return nullptr;
    }
    return &name_in(m->module, m->file_offset(ip));
  }

  const profiles::EscapedSymbol& name_in(std::uint32_t module_index, std::uint64_t offset) {
    const MappedModule& module = processes_.modules()[module_index];
    ModuleNames& names = modules_[module_index];
    if (names.module_only.module == "null")
      names.module_only = profiles::EscapedSymbol::of({{}, module.filename});
    const profiles::EscapedSymbol& out = names.module_only;
    if (!names.table && !tried_.contains(module_index)) {
      tried_.insert({module_index, true});
      std::string problem;
      for (const auto& source : sources_)
        if ((names.table = source->open(ModuleRef::of(module), problem))) break;
    }
    if (!names.table) return out;
    std::uint32_t function = SymbolTable::none;
    names.table->functions({&offset, 1}, {&function, 1});
    if (function == SymbolTable::none) return out;
    auto it = names.functions.find(function);
    if (it == names.functions.end()) {
      const std::string name =
          !options_.demangle ? names.table->symbol_name(function)
          : options_.signatures ? names.table->function_name(function)
                                : names.table->short_function_name(function);
      it = names.functions.emplace(function, profiles::EscapedSymbol::of({name, module.filename})).first;
    }
    return it->second;
  }

  ProcessTable processes_;
  std::vector<std::shared_ptr<SymbolSource>> sources_;
  std::unordered_map<std::uint32_t, ModuleNames> modules_;
  std::unordered_map<std::uint32_t, bool> tried_;
  RecentSymbols symbols_at_;
  std::vector<Held> held_;  ///< the writer's held lines, in order
  std::vector<std::uint32_t> held_modules_;  ///< the modules they wait for
  const profiles::EscapedSymbol unknown_;
  RecordWindow<Line, Handler> window_;
};

// IBS: each sample decoded, with its conditions and measures.
struct IbsLine {
  Sample sample;
  amd_ibs::IbsUnit unit = amd_ibs::IbsUnit::op;
  std::uint64_t time() const { return sample.time; }
};

class LineHandler : public LineHandlerBase<LineHandler, IbsLine> {
 public:
  LineHandler(const perf_data::PerfDataReader& reader, const Options& options, std::ostream& out)
      : LineHandlerBase(reader, options, out), capture_(reader.info(), options.cpu) {
    // What the decoder can see of each unit: a condition there that a
    // sample did not observe is "unknown" on its line.
    for (amd_ibs::IbsUnit u : {amd_ibs::IbsUnit::fetch, amd_ibs::IbsUnit::op})
      scopes_[static_cast<std::size_t>(u)] = capture_.decoder().observable(u);
  }

  void sample(const perf_data::SampleRecord& record) override {
    IbsLine line;
    amd_ibs::IbsSampleInfo info;
    if (capture_.decode(record, line.sample, info, problem_) != amd_ibs::IbsCapture::Result::ok) return;
    line.unit = info.unit;
    queue(std::move(line));
  }
  void write(const IbsLine& line) {
    const Sample& s = line.sample;
    if (!passes(s.cpu, s.pid, s.tid, s.time)) return;
    const Filters& f = options_.filters;
    if (f.where && decide(*f.where, s.conditions, s.observed) != Decision::yes) return;
    writer_.set_scope(scopes_[static_cast<std::size_t>(line.unit)]);
    if (const profiles::EscapedSymbol* symbol = symbol_at(s.pid, s.ip)) writer_.write_escaped(s, *symbol);
    else writer_.write_held(s);
    release_held(false);
  }

 private:
  amd_ibs::IbsCapture capture_;
  std::array<ConditionSet, 2> scopes_{};
  std::string problem_;
};

// Other captures: each sample's event, place, period and symbol.
struct EventLine {
  profiles::EventSample sample;
  std::uint32_t cpu = 0;  // for --cpu, whether written or not
  std::uint64_t time() const { return sample.time; }
};

class EventLineHandler : public LineHandlerBase<EventLineHandler, EventLine> {
 public:
  EventLineHandler(const perf_data::PerfDataReader& reader, const Options& options, std::ostream& out)
      : LineHandlerBase(reader, options, out), reads_(reader.info()) {
    const std::vector<std::string> names = reader.info().event_names();
    for (std::size_t e = 0; e < names.size(); ++e) {
      const perf_data::EventAttr& a = reader.info().attrs[e];
      std::string name;
      profiles::append_json_string(name, names[e]);
      events_.push_back(std::move(name));
      // Without PERF_SAMPLE_PERIOD (perf record -c N) every sample's period
      // is the attr's, as perf report counts it.
      fixed_periods_.push_back(a.attr.freq ? 0 : a.attr.sample_period);
    }
  }

  void sample(const perf_data::SampleRecord& r) override {
    if (r.event >= events_.size()) return;
    const std::uint64_t period = r.sample_type & PERF_SAMPLE_PERIOD ? r.period : fixed_periods_[r.event];
    const std::optional<std::uint32_t> cpu =
        r.sample_type & PERF_SAMPLE_CPU ? std::optional<std::uint32_t>(r.id.cpu) : std::nullopt;
    if (reads_.reads(r.event)) {
      for (const perf_data::ReadShare& share : reads_.shares(r))
        queue({{events_[share.event], r.id.time, r.id.pid, r.id.tid, cpu, r.ip, share.period}, r.id.cpu});
    } else {
      queue({{events_[r.event], r.id.time, r.id.pid, r.id.tid, cpu, r.ip, period}, r.id.cpu});
    }
  }
  void write(const EventLine& line) {
    const profiles::EventSample& s = line.sample;
    if (!passes(line.cpu, s.pid, s.tid, s.time)) return;
    if (const profiles::EscapedSymbol* symbol = symbol_at(s.pid, s.ip)) writer_.write_event(s, *symbol);
    else writer_.write_event_held(s);
    release_held(false);
  }

 private:
  perf_data::SampleReads reads_;
  std::vector<std::string> events_;  // by FileInfo::attrs index, as JSON strings
  std::vector<std::uint64_t> fixed_periods_;
};

}  // namespace

std::uint64_t write_sample_lines(perf_data::PerfDataReader& reader, const Options& options, std::ostream& out) {
  auto run = [&](auto handler) {
    reader.read(handler);
    return handler.finish();
  };
  if (holds_ibs_events(reader.info())) return run(LineHandler(reader, options, out));
  if (options.filters.where && holds_data_sources(reader.info()))
    throw Error(fmt::format("--where with --format jsonl: the event lines of {} carry no conditions (its samples' "
                            "data sources are read by the report and its other exports, not by its lines yet)",
                            reader.info().path));
  if (options.filters.where)
    throw Error(fmt::format("--where: {} has no IBS events (a predicate tests IBS samples' conditions)",
                            reader.info().path));
  return run(EventLineHandler(reader, options, out));
}

}  // namespace tagop::report
