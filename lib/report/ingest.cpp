// tagop ingest: a capture's samples as store rows (profiles/store.hpp),
// streamed to ClickHouse. A sample waits in a window for the records of
// its time (record_window.hpp, as the JSON lines' and the report's): perf
// may write a sample before its process's MMAP record, from another CPU's
// buffer, and the local report names it all the same.

#include <tagop/report/ingest.hpp>

#include <algorithm>      // std::find
#include <array>          // std::array
#include <map>            // std::map
#include <memory>         // std::unique_ptr
#include <span>           // std::span
#include <cctype>         // std::isalnum
#include <optional>       // std::optional
#include <sstream>        // std::istringstream
#include <unordered_map>  // symbol tables, names
#include <variant>        // std::visit
#include <vector>         // std::vector

#include <sys/stat.h>  // ::stat: a capture's modification time

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/call_chain.hpp>            // is_context_marker
#include <tagop/error.hpp>                 // Error
#include <tagop/mem_data_src.hpp>          // read_data_src
#include <tagop/perf_data_reader.hpp>      // PerfDataReader
#include <tagop/process_table.hpp>         // ProcessTable
#include <tagop/profiles/store.hpp>        // StoreRowWriter
#include <tagop/report/capture_damage.hpp>  // capture_damage
#include <tagop/report/kernel_symbol_source.hpp>  // capture_symbol_sources
#include <tagop/report/report.hpp>         // holds_ibs_events
#include <tagop/report/symbols.hpp>        // prepare_symbol_sources
#include <tagop/sample_reads.hpp>          // SampleReads
#include <tagop/symbol_files.hpp>          // find_symbol_files
#include <tagop/user_stack_unwind.hpp>     // UserStackUnwinder
#include <tagop/version.hpp>               // version

#include "../demangle.hpp"  // demangle_short
#include "data_access.hpp"   // data_src_access, ibs_access
#include "data_objects.hpp"  // DataObjects
#include "kernel_address.hpp"
#include "store_text.hpp"    // sql_literal
#include "record_window.hpp"  // RecordWindow
#include "unwind_warnings.hpp"  // unwind_warnings

namespace tagop::report {

namespace {

using store_text::sql_literal;

std::string table_of(const IngestOptions& o) { return o.table.empty() ? profiles::store_table_name() : o.table; }
std::string captures_of(const IngestOptions& o) {
  return o.captures_table.empty() ? profiles::store_captures_table_name() : o.captures_table;
}
std::string frames_of(const IngestOptions& o) { return store_frames_table(o); }


// The names of an address, as a local report names them by function, by
// line and by data (rows.cpp): looked up once per distinct (pid, address)
// while the mappings stay as they are, and once per module's function,
// line and data object. The symbol sources are the local report's
// (capture_symbol_sources(): the kernel's symbols, then the ELF files).
class AddressNamer {
 public:
  AddressNamer(const perf_data::FileInfo& info, const KernelSymbolSearch& search)
      : files_(search.files), sources_(capture_symbol_sources(search, info)) {
    processes_.add_build_ids(info.build_ids);
    prepare_symbol_sources(sources_, info, 0);
  }
  ProcessTable& processes() { return processes_; }
  /// Why modules had no names, once each (as the local report warns).
  const std::vector<std::string>& warnings() const { return warnings_; }
  void forget() {
    at_.clear();
    data_at_.clear();
  }

  struct Names {
    profiles::SampleSymbol symbol;
    std::string_view line;
    std::string_view frame;  // as a local report's row by function names it (rows.cpp base_name)
    std::uint64_t offset = 0;  // the file offset in its module (rows.cpp offset_), the ip where unmapped
    std::string_view symbol_name;  // the function's symbol, not demangled; "" where none holds the address
  };
  Names at(std::uint32_t pid, std::uint64_t ip) {
    const std::uint64_t key = ip * 0x9E3779B97F4A7C15ull ^ pid;
    if (auto it = at_.find(key); it != at_.end() && it->second.pid == pid && it->second.ip == ip)
      return {it->second.symbol, it->second.line, it->second.frame, it->second.offset, it->second.symbol_name};
    if (at_.size() >= (1u << 16)) at_.clear();  // memory stays flat
    At& entry = at_[key];
    entry = look_up(pid, ip);
    return {entry.symbol, entry.line, entry.frame, entry.offset, entry.symbol_name};
  }

  /// The data object of a data address (0: none), as report --by data
  /// names it (rows.cpp name_data()): a mapping without a file by its name,
  /// a file's address by the ELF object symbol that holds it, else
  /// module+0xoffset. Only a file's addresses are looked up and kept (per
  /// distinct address): the others' names are constants or the mapping's.
  std::string_view data_object(std::uint32_t pid, std::uint64_t address) {
    if (address == 0) return "[no data address]";
    const Mapping* m = processes_.find(pid, address);
    if (!m) return kernel_address(address) ? "[kernel]" : "[unknown]";
    const MappedModule& module = processes_.modules()[m->module];
    const std::string& f = module.filename;
    if (module.kernel) return "[kernel]";
    if (f.empty() || f.starts_with("//anon") || f.starts_with("[anon")) return "[anon]";
    if (f[0] != '/') return f;
    const std::uint64_t key = address * 0x9E3779B97F4A7C15ull ^ pid;
    if (auto it = data_at_.find(key); it != data_at_.end() && it->second.pid == pid && it->second.address == address)
      return it->second.name;
    if (data_at_.size() >= (1u << 16)) data_at_.clear();  // memory stays flat
    DataAt& entry = data_at_[key];
    entry = {pid, address, object_name(*m, address)};
    if (entry.name.empty()) entry.name = fmt::format("{}+{:#x}", base(f), m->file_offset(address));
    return entry.name;
  }

 private:
  struct Module {
    std::unique_ptr<SymbolTable> table;
    bool tried = false;
    struct FunctionNames {
      std::string short_name, symbol;  // as report --by function names it; not demangled
    };
    std::unordered_map<std::uint32_t, FunctionNames> names;
    std::unordered_map<std::uint64_t, std::string> lines;  // by file << 32 | line
    std::unique_ptr<DataObjects> objects;
    bool tried_objects = false;
    std::unordered_map<std::uint32_t, std::string> object_names;
  };
  struct At {
    std::uint32_t pid = 0;
    std::uint64_t ip = 0;
    profiles::SampleSymbol symbol;
    std::string line;   // the line's name, or module+0xoffset
    std::string frame;  // the function, or module+0xoffset, or [unknown]+0xip ([kernel]+0xip)
    std::uint64_t offset = 0;
    std::string_view symbol_name;  // into Module::names: stays put
  };
  struct DataAt {
    std::uint32_t pid = 0;
    std::uint64_t address = 0;
    std::string name;
  };
  static std::string_view base(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
  }

  SymbolTable* table_of(std::uint32_t module_index) {
    const MappedModule& module = processes_.modules()[module_index];
    Module& names = modules_[module_index];
    if (!names.tried) {
      names.tried = true;
      std::vector<std::string> problems;
      for (const auto& source : sources_) {
        std::string problem;
        names.table = source->open(ModuleRef::of(module), problem);
        if (!problem.empty()) problems.push_back(module.filename + ": " + problem);
        if (names.table) break;
      }
      // A caveat of the table used, or why none was.
      if (names.table && !problems.empty()) warnings_.push_back(problems.back());
      else if (!names.table) warnings_.insert(warnings_.end(), problems.begin(), problems.end());
    }
    return names.table.get();
  }

  At look_up(std::uint32_t pid, std::uint64_t ip) {
    At out{pid, ip, {}, {}, {}, ip, {}};
    const Mapping* m = processes_.find(pid, ip);
    if (!m) {
      out.line = fmt::format("{}+{:#x}", kernel_address(ip) ? "[kernel]" : "[unknown]", ip);
      out.frame = out.line;
      return out;
    }
    const MappedModule& module = processes_.modules()[m->module];
    Module& names = modules_[m->module];
    const std::uint64_t offset = m->file_offset(ip);
    out.offset = offset;
    out.symbol.module = module.filename;
    out.line = fmt::format("{}+{:#x}", base(module.filename), offset);
    out.frame = out.line;
    const SymbolTable* table = table_of(m->module);
    if (!table) return out;
    SymbolTable::Line line;
    table->lines({&offset, 1}, {&line, 1});
    if (line.file != SymbolTable::none) {
      const std::uint64_t line_key = std::uint64_t{line.file} << 32 | line.line;
      auto it = names.lines.find(line_key);
      if (it == names.lines.end())
        it = names.lines.emplace(line_key, fmt::format("{}:{}", table->file_name(line.file), line.line)).first;
      out.line = it->second;
    }
    std::uint32_t function = SymbolTable::none;
    table->functions({&offset, 1}, {&function, 1});
    if (function == SymbolTable::none) return out;
    auto it = names.names.find(function);
    if (it == names.names.end())
      it = names.names.emplace(function, Module::FunctionNames{table->short_function_name(function), table->symbol_name(function)}).first;
    out.symbol.function = it->second.short_name;
    out.symbol_name = it->second.symbol;
    out.frame = it->second.short_name;
    return out;
  }

  // The ELF object symbol holding a file's address, demangled as perf
  // names it (a C++ static: _ZL14private_buffer); "" where none does.
  std::string object_name(const Mapping& m, std::uint64_t address) {
    const MappedModule& module = processes_.modules()[m.module];
    Module& names = modules_[m.module];
    if (!names.tried_objects) {
      names.tried_objects = true;
      for (const SymbolFile& file : find_symbol_files(module.filename, module.build_id, files_).files) {
        try {
          names.objects = DataObjects::open(file.path);
          break;
        } catch (const Error&) {
          // The next candidate; none: module+offset, as the report's rows.
        }
      }
    }
    if (!names.objects) return {};
    const std::uint64_t offset = m.file_offset(address);
    std::uint32_t object = DataObjects::none;
    names.objects->find({&offset, 1}, {&object, 1});
    if (object == DataObjects::none) return {};
    auto it = names.object_names.find(object);
    if (it == names.object_names.end()) {
      const std::string& symbol = names.objects->name(object);
      it = names.object_names.emplace(object, symbol.starts_with("_Z") ? demangle_short(symbol.c_str()) : symbol).first;
    }
    return it->second;
  }

  ProcessTable processes_;
  SymbolFileSearch files_;  // the data objects' ELF files, as the report's
  std::vector<std::shared_ptr<SymbolSource>> sources_;
  std::vector<std::string> warnings_;
  std::unordered_map<std::uint32_t, Module> modules_;  // node-based: the names stay put
  std::unordered_map<std::uint64_t, At> at_;
  std::unordered_map<std::uint64_t, DataAt> data_at_;
};

// A row that waits in the window for the records of its time.
struct RowLine {
  Sample sample;                  // its chain is set from `chain` when written
  std::vector<ChainFrame> chain;  // the sample's own frames
  std::uint32_t event = 0;        // an index in the capture's attrs
  std::uint64_t period = 0;
  std::uint64_t data_address = 0;  // the data view's (0: none)
  std::uint32_t data_access = 0;   // the data view's DataAccess bits
  // perf record --call-graph dwarf: the user registers and stack copy (in
  // the reader's mapping, which outlives the window), unwound when the
  // mappings of the sample's time are known; `chain`'s frames before its
  // PERF_CONTEXT_USER (the kernel's) are kept before the unwound ones.
  UserStack stack{};
  std::size_t kernel_frames = 0;
  std::uint64_t time() const { return sample.time; }
};

// How a capture's samples' perf times become times of day: perf's clock
// data (perf record -k: the clock's reading against the time of day), else
// the file's modification time as its last sample's (HEADER_SAMPLE_TIME),
// which perf report prints as "captured on". Neither: not known.
struct WallClock {
  std::optional<std::int64_t> offset;  // the time of day less the perf time, ns
  std::string how;                     // captures.wall_clock
};

WallClock wall_clock_of(const perf_data::FileInfo& info, const std::string& path) {
  if (info.clock_data)
    return {static_cast<std::int64_t>(info.clock_data->wall_ns - info.clock_data->clock_ns), "perf clock data"};
  struct stat st{};
  if (info.sample_time && info.sample_time->second && ::stat(path.c_str(), &st) == 0) {
    const auto modified = static_cast<std::uint64_t>(st.st_mtim.tv_sec) * 1'000'000'000u +
                          static_cast<std::uint64_t>(st.st_mtim.tv_nsec);
    return {static_cast<std::int64_t>(modified - info.sample_time->second), "file time"};
  }
  return {};
}

class RowHandler : public perf_data::RecordHandler {
 public:
  RowHandler(const perf_data::PerfDataReader& reader, const IngestOptions& options, const profiles::StoreCapture& capture,
             const std::function<void(std::string_view)>& write,
             const std::function<void(std::string_view)>& write_frames)
      : options_(options), symbols_(reader.info(), options.symbols), blocks_(capture), lines_(capture), write_(write),
        write_frames_(write_frames), events_(reader.info().event_names()), reads_(reader.info()),
        window_(reader.info().timed(), *this) {
    if (holds_ibs_events(reader.info())) ibs_.emplace(reader.info(), options.cpu);
    for (const perf_data::EventAttr& a : reader.info().attrs) {
      fixed_periods_.push_back(a.attr.freq ? 0 : a.attr.sample_period);
      if (a.attr.sample_type & PERF_SAMPLE_STACK_USER && !unwinder_)
        unwinder_ = std::make_unique<UserStackUnwinder>(
            UserStackUnwindOptions{.search = options.symbols.files, .arch = reader.info().arch});
    }
  }

  // The records wait for the samples' times (record_window.hpp); their
  // strings are the reader's mapping's, which outlives finish().
  void mmap(const perf_data::MmapRecord& r) override { window_.record(r, r.id.time); }
  void comm(const perf_data::CommRecord& r) override { window_.record(r, r.id.time); }
  void task(const perf_data::TaskRecord& r) override { window_.record(r, r.time); }

  /// A record the window released: a new mapping or process can change
  /// what an address holds.
  void apply(const ProcessRecord& record) {
    std::visit([&](const auto& r) { take(r); }, record);
  }
  void progress(std::uint64_t done, std::uint64_t total) override {
    if (options_.progress) options_.progress(done, total);
  }

  void sample(const perf_data::SampleRecord& r) override {
    Sample s;
    if (ibs_) {
      amd_ibs::IbsSampleInfo info;
      if (const auto result = ibs_->decode(r, s, info, problem_); result != amd_ibs::IbsCapture::Result::ok) {
        if (result == amd_ibs::IbsCapture::Result::damaged) ++damaged_;  // skipped, as the report's tally counts it
        return;
      }
      periods_[static_cast<std::size_t>(info.unit)].add({info.period, info.counts_ops});
    } else {
      s.ip = r.ip;
      s.time = r.id.time;
      s.pid = r.id.pid;
      s.tid = r.id.tid;
      s.cpu = r.id.cpu;
      s.ip_exact = r.attr && r.attr->attr.precise_ip != 0;
      s.conditions.insert(condition("op"));
      s.observed.insert(condition("op"));
      s.observed.insert(condition("fetch"));
      if (r.sample_type & PERF_SAMPLE_DATA_SRC) {
        const DataSrcReading reading = read_data_src(r.data_src);
        s.conditions |= reading.conditions;
        s.observed |= reading.observed;
        if (r.sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT) &&
            reading.conditions.contains(condition("load")))
          s.set_measure(measure("mem.load_latency"), static_cast<std::uint32_t>(r.weight));
      }
      if (r.sample_type & PERF_SAMPLE_ADDR) {
        s.data_linear = r.addr;
        if (r.addr) s.conditions.insert(condition("dc.lin_addr_valid"));
      }
    }
    RowLine line{s, {}, r.event, 0, 0};
    if (unwinder_ && r.sample_type & PERF_SAMPLE_STACK_USER) line.stack = UserStack::of(r);
    line.kernel_frames = SIZE_MAX;
    for (std::size_t i = 0; i + 8 <= r.callchain.size(); i += 8) {
      std::uint64_t address = 0;
      std::memcpy(&address, r.callchain.data() + i, 8);
      if (address == static_cast<std::uint64_t>(PERF_CONTEXT_USER) && line.kernel_frames == SIZE_MAX)
        line.kernel_frames = line.chain.size();
      if (!is_context_marker(address)) line.chain.push_back({address, FrameContext::unknown});
      else if (!known_marker(address)) {
        // As perf (and the local report, walk.cpp corrupt_chain): a value
        // among the markers that is none (-1 of a broken user stack) makes
        // the whole chain corrupt; the sample stays, without it.
        line.chain.clear();
        break;
      }
    }
    // The data view's address (walk.cpp): IBS's linear address where
    // dc.lin_addr_valid says so, perf mem's PERF_SAMPLE_ADDR.
    line.data_address = ibs_ ? (s.conditions.contains(condition("dc.lin_addr_valid")) ? s.data_linear : 0)
                             : (r.sample_type & PERF_SAMPLE_ADDR ? r.addr : 0);
    line.data_access = static_cast<std::uint32_t>(
        ibs_ ? ibs_access(s.conditions) : (r.sample_type & PERF_SAMPLE_DATA_SRC ? data_src_access(r.data_src) : 0));
    // A sample that read its group's counters (PERF_SAMPLE_READ) stands,
    // as in the local report (walk.cpp), for a sample of each counter that
    // moved, its period how far it moved; its own period is not used.
    if (!ibs_ && reads_.reads(r.event)) {
      const std::span<const perf_data::ReadShare> shares = reads_.shares(r);
      for (std::size_t k = 0; k < shares.size(); ++k) {
        RowLine share = k + 1 < shares.size() ? line : std::move(line);
        share.event = shares[k].event;
        share.period = shares[k].period;
        window_.queue(std::move(share));
      }
      return;
    }
    line.period = r.sample_type & PERF_SAMPLE_PERIOD ? r.period
                  : r.event < fixed_periods_.size() ? fixed_periods_[r.event]
                                                    : 0;
    window_.queue(std::move(line));
  }

  /// The capture's wall clock (wall_clock_of()), for the rows' wall_time.
  void set_wall_offset(std::optional<std::int64_t> offset) { wall_offset_ = offset; }
  /// A perf time as a time of day (0: not known).
  std::uint64_t wall_time(std::uint64_t time) const {
    if (!wall_offset_ || !time) return 0;
    const std::int64_t wall = static_cast<std::int64_t>(time) + *wall_offset_;
    return wall > 0 ? static_cast<std::uint64_t>(wall) : 0;
  }

  /// Writes a row the window released, named by the mappings of its time.
  void write(const RowLine& line) {
    Sample s = line.sample;
    s.chain = line.stack.regs_abi != PERF_SAMPLE_REGS_ABI_NONE ? unwind(line) : std::span<const ChainFrame>(line.chain);
    const AddressNamer::Names names = symbols_.at(s.pid, s.ip);
    const std::string_view event = line.event < events_.size() ? std::string_view(events_[line.event]) : "";
    // A sample outside every function is named as a local report's row by
    // function names it (module+0xoffset, [unknown]+0xip), as its line and
    // data object are: the store's rows by function are then the local ones.
    const profiles::SampleSymbol symbol{names.symbol.function.empty() ? names.frame : names.symbol.function,
                                        names.symbol.module};
    const auto thread = thread_comms_.find(s.tid);
    const profiles::StoreSource source{names.line, symbols_.data_object(s.pid, line.data_address),
                                       symbols_.processes().comm_of(s.pid),
                                       thread == thread_comms_.end() ? std::string_view() : thread->second,
                                       names.offset, line.data_access, wall_time(s.time)};
    if (options_.format == RowFormat::native) blocks_.append(s, symbol, {event, line.period}, source);
    else lines_.append(s, symbol, batch_, {event, line.period}, source);
    if (write_frames_) {
      // After the row: at() may drop the names the row's views are of.
      add_frame(s.pid, s.ip, names);
      for (const ChainFrame& f : s.chain)
        if (f.address != s.ip) add_frame(s.pid, f.address, symbols_.at(s.pid, f.address));
    }
    ++rows_;
    if (++in_batch_ >= options_.batch_rows) flush();
  }

  std::uint64_t finish() {
    window_.finish();
    flush();
    flush_frames();
    return rows_;
  }
  /// The symbols' warnings, and the user stacks' that could not be unwound.
  std::vector<std::string> warnings() const {
    std::vector<std::string> out = symbols_.warnings();
    for (std::string& w : unwind_warnings(not_unwound_, unwound_, unwinder_.get())) out.push_back(std::move(w));
    return out;
  }

  /// IBS records the decoder found damaged (and left out).
  std::uint64_t damaged() const { return damaged_; }
  // IBS: each unit's periods as a local report reads them (empty otherwise).
  const std::array<PeriodSeen, 2>& periods() const { return periods_; }
  std::uint64_t requested_period(amd_ibs::IbsUnit unit) const { return ibs_ ? ibs_->requested_period(unit) : 0; }
  const amd_ibs::SamplingFilter* filter(amd_ibs::IbsUnit unit) const { return ibs_ ? &ibs_->filter(unit) : nullptr; }

 private:
  void take(const perf_data::MmapRecord& r) {
    symbols_.processes().mmap(r);
    symbols_.forget();
  }
  void take(const perf_data::CommRecord& r) {
    symbols_.processes().comm(r);
    // Each thread's own name, as the local report's rows by thread read
    // every COMM (walk.hpp thread_comms_).
    thread_comms_[r.tid] = std::string(r.comm);
  }
  void take(const perf_data::TaskRecord& r) {
    symbols_.processes().task(r);
    symbols_.forget();
  }

  // As the local report (walk.cpp release): the recorded chain's kernel
  // part, then the user frames unwound from the sample's registers and
  // stack copy by the mappings of its time; the recorded chain as it is
  // where nothing was unwound (a kernel thread's sample, or a stack that
  // cannot be).
  std::span<const ChainFrame> unwind(const RowLine& line) {
    unwound_frames_.clear();
    const std::string why = unwinder_->unwind(symbols_.processes(), line.sample.pid, line.sample.tid, line.stack,
                                              max_unwound_frames, unwound_frames_);
    if (!why.empty()) ++not_unwound_[why];
    if (unwound_frames_.empty()) return line.chain;
    if (why.empty()) ++unwound_;
    unwound_chain_.assign(line.chain.begin(), line.chain.begin() + std::min(line.kernel_frames, line.chain.size()));
    for (std::uint64_t address : unwound_frames_) unwound_chain_.push_back({address, FrameContext::user});
    return unwound_chain_;
  }

  static bool known_marker(std::uint64_t value) {
    switch (value) {
      case static_cast<std::uint64_t>(PERF_CONTEXT_HV):
      case static_cast<std::uint64_t>(PERF_CONTEXT_KERNEL):
      case static_cast<std::uint64_t>(PERF_CONTEXT_USER):
      case static_cast<std::uint64_t>(PERF_CONTEXT_GUEST):
      case static_cast<std::uint64_t>(PERF_CONTEXT_GUEST_KERNEL):
      case static_cast<std::uint64_t>(PERF_CONTEXT_GUEST_USER): return true;
      default: return false;
    }
  }

  // A frame's names into the frames' table, once per distinct (pid,
  // address) while the set of those written stays under its bound (the
  // memory stays flat; past it, a frame may be written twice, which a
  // report reads as once). A frame named before its mapping was known
  // ([unknown]+0x...) is written again once it is.
  void add_frame(std::uint32_t pid, std::uint64_t address, const AddressNamer::Names& names) {
    const std::uint64_t key = address * 0x9E3779B97F4A7C15ull ^ pid;
    const bool mapped = !names.symbol.module.empty();
    if (auto it = written_.find(key);
        it != written_.end() && it->second.pid == pid && it->second.address == address && (it->second.mapped || !mapped))
      return;
    if (written_.size() >= (1u << 18)) written_.clear();
    written_[key] = {pid, address, mapped};
    profiles::append_frame_row({blocks_.capture().id, pid, address, names.symbol.module, names.frame, names.symbol_name},
                               frames_batch_);
    if (frames_batch_.size() >= (4u << 20)) flush_frames();
  }
  void flush_frames() {
    if (!frames_batch_.empty()) write_frames_(frames_batch_);
    frames_batch_.clear();
  }

  void flush() {
    blocks_.flush(batch_);
    if (!batch_.empty()) write_(batch_);
    batch_.clear();
    in_batch_ = 0;
  }

  const IngestOptions& options_;
  AddressNamer symbols_;
  profiles::StoreBlockWriter blocks_;  // RowFormat::native
  profiles::StoreRowWriter lines_;     // RowFormat::tab_separated
  const std::function<void(std::string_view)>& write_;
  const std::function<void(std::string_view)>& write_frames_;  // empty: no frames' rows
  struct Written {
    std::uint32_t pid = 0;
    std::uint64_t address = 0;
    bool mapped = false;
  };
  std::unordered_map<std::uint64_t, Written> written_;  // frames written, by (pid, address)
  std::string frames_batch_;
  std::vector<std::string> events_;
  std::optional<std::int64_t> wall_offset_;  // WallClock::offset
  std::unordered_map<std::uint32_t, std::string> thread_comms_;  // by tid: its last COMM so far
  std::vector<std::uint64_t> fixed_periods_;
  perf_data::SampleReads reads_;
  std::optional<amd_ibs::IbsCapture> ibs_;
  std::array<PeriodSeen, 2> periods_{};  // by IbsUnit
  std::string batch_, problem_;
  std::size_t in_batch_ = 0;
  std::uint64_t rows_ = 0;
  // perf's --max-stack default: the frames a local report unwinds.
  static constexpr std::size_t max_unwound_frames = 127;
  std::unique_ptr<UserStackUnwinder> unwinder_;  // captures with user stacks
  std::vector<std::uint64_t> unwound_frames_;
  std::vector<ChainFrame> unwound_chain_;  // the chain of the row being written
  std::map<std::string, std::uint64_t> not_unwound_;  // samples by why
  std::uint64_t unwound_ = 0;
  std::uint64_t damaged_ = 0;
  RecordWindow<RowLine, RowHandler> window_;  // last: its rows are written with the members above
};

// What the capture's rows say of where they came from.
profiles::StoreCapture capture_of(const perf_data::FileInfo& info, const IngestOptions& options, std::uint64_t id) {
  profiles::StoreCapture capture;
  capture.id = id;
  capture.host = options.host.empty() ? info.hostname : options.host;
  std::optional<CpuId> cpu = options.cpu;
  if (!cpu && info.cpuid) {
    try {
      cpu = CpuId::parse(*info.cpuid);
    } catch (const Error&) {
      // Not x86's form (an Arm MIDR): the vendor column holds it as it is.
      capture.vendor = *info.cpuid;
    }
  }
  if (cpu) {
    capture.vendor = cpu->vendor;
    capture.family = cpu->family;
    capture.model = cpu->model;
  }
  capture.backend = holds_ibs_events(info) ? "amd-ibs" : "perf";
  return capture;
}

// The captures' table's period and filter columns of a capture (store_captures_columns()
// after `ingested`), as SQL values: what report::unit_period() reads.
std::string period_values(const RowHandler& handler) {
  std::string out;
  for (amd_ibs::IbsUnit unit : {amd_ibs::IbsUnit::fetch, amd_ibs::IbsUnit::op}) {
    const PeriodSeen& seen = handler.periods()[static_cast<std::size_t>(unit)];
    out += fmt::format(", {}, {}, {}, {}, {}", handler.requested_period(unit), seen.samples, seen.sum,
                       seen.samples ? seen.min : 0, seen.max);
  }
  out += fmt::format(", {}", handler.periods()[static_cast<std::size_t>(amd_ibs::IbsUnit::op)].counts_ops ? 1 : 0);
  for (amd_ibs::IbsUnit unit : {amd_ibs::IbsUnit::fetch, amd_ibs::IbsUnit::op}) {
    const amd_ibs::SamplingFilter* f = handler.filter(unit);
    const bool any = f && f->any();
    out += fmt::format(", {}, {}", sql_literal(any ? f->population.to_string() : ""), any ? f->load_latency : 0);
  }
  return out;
}

// The captures' table's columns after tagop_version of a capture, as SQL
// values: each attr's name (as the rows' event column has it), type and
// config; how its wall times were found; what its reading met
// (capture_damage()).
std::string event_values(const perf_data::FileInfo& info, const WallClock& clock, const std::string& damage) {
  std::vector<std::string> names, types, configs;
  for (const std::string& name : info.event_names()) names.push_back(sql_literal(name));
  for (const perf_data::EventAttr& a : info.attrs) {
    types.push_back(fmt::format("{}", a.attr.type));
    configs.push_back(fmt::format("{}", a.attr.config));
  }
  return fmt::format(", [{}], [{}], [{}], {}, {}", fmt::join(names, ", "), fmt::join(types, ", "),
                     fmt::join(configs, ", "), sql_literal(clock.how), sql_literal(damage));
}

std::uint64_t write_rows(const std::string& path, std::uint64_t id, const std::function<void(std::string_view)>& write,
                         const IngestOptions& options, std::string* host = nullptr,
                         std::vector<std::string>* warnings = nullptr, std::string* periods = nullptr,
                         const std::function<void(std::string_view)>& write_frames = {}, std::string* events = nullptr) {
  perf_data::PerfDataReader reader(path);
  // Said in ingest's words (the decoder's name the report's options).
  if (!options.cpu && !reader.info().cpuid && holds_ibs_events(reader.info()))
    throw Error(ErrorCode::damaged,
                fmt::format("{}: the file does not say which processor recorded it (no HEADER_CPUID; a truncated file "
                            "loses it), and the IBS layout depends on it: give it (IngestOptions::cpu; tagop ingest "
                            "--cpu AuthenticAMD,FAMILY,MODEL,STEPPING, as perf's cpuid)",
                            path));
  const profiles::StoreCapture capture = capture_of(reader.info(), options, id);
  if (host) *host = capture.host;
  RowHandler handler(reader, options, capture, write, write_frames);
  const WallClock clock = wall_clock_of(reader.info(), path);
  handler.set_wall_offset(clock.offset);
  const perf_data::ReadSummary summary = reader.read(handler);
  const std::uint64_t rows = handler.finish();
  const std::string damage = capture_damage(reader.info(), summary, summary.skipped.count + handler.damaged());
  if (warnings) {
    *warnings = handler.warnings();
    if (!damage.empty())
      warnings->push_back(fmt::format("the capture is damaged ({}): its readable samples are ingested; report "
                                      "--source --strict refuses it",
                                      damage));
  }
  if (periods) *periods = period_values(handler);
  if (events) *events = event_values(reader.info(), clock, damage);
  return rows;
}

std::uint64_t number(const std::string& answer) {
  std::istringstream in(answer);
  std::uint64_t value = 0;
  in >> value;
  return value;
}

// A table's columns' names, in order ("" database: the URL's).
std::vector<std::string> column_names(const profiles::ClickHouseServer& server, const std::string& table,
                                      const std::string& database = "") {
  const std::string answer = server.query(
      fmt::format("SELECT name FROM system.columns WHERE database = {} AND table = {} FORMAT TabSeparated",
                  database.empty() ? "currentDatabase()" : sql_literal(database), sql_literal(table)));
  std::vector<std::string> have;
  std::istringstream lines(answer);
  for (std::string line; std::getline(lines, line);) have.push_back(line);
  return have;
}

// A captures' table made before its period columns were, or its
// tagop_version: they are added (0 and '' in the rows it holds: those
// captures' estimates are not available, nor their addresses' offsets).
void add_missing_captures_columns(const profiles::ClickHouseServer& server, const std::string& captures,
                                  const std::string& database = "") {
  const std::vector<std::string> have = column_names(server, captures, database);
  const std::string name = database.empty() ? captures : database + "." + captures;
  for (const profiles::StoreColumn& c : profiles::store_captures_columns())
    if (std::find(have.begin(), have.end(), c.name) == have.end())
      server.query(fmt::format("ALTER TABLE {} ADD COLUMN {} {}", name, c.name, c.type));
}

// The samples' columns declared after the schema's version was made, last:
// comm (tagop 0.8.2), offset and thread_comm (0.9.0), data_access and
// wall_time (0.10.0).
constexpr std::size_t samples_columns_added = 5;
// The frames' table's: symbol (0.11.0).
constexpr std::size_t frames_columns_added = 1;

// A samples' (or frames') table of this schema version made by an older
// tagop lacks the columns declared since (`added`): they are added, its
// rows reading their default (""). Only where its columns are ours less
// those, in order; another table is left to check_columns()'s error.
void add_samples_columns(const profiles::ClickHouseServer& server, const std::string& table,
                          const std::vector<profiles::StoreColumn>& columns, const std::string& database = "",
                          std::size_t added = samples_columns_added) {
  const std::vector<std::string> have = column_names(server, table, database);
  if (have.size() >= columns.size() || have.size() + added < columns.size()) return;
  for (std::size_t i = 0; i < have.size(); ++i)
    if (have[i] != columns[i].name) return;
  const std::string name = database.empty() ? table : database + "." + table;
  for (std::size_t i = have.size(); i < columns.size(); ++i)
    server.query(fmt::format("ALTER TABLE {} ADD COLUMN {} {}", name, columns[i].name, columns[i].type));
}

// A table of this name made by another tagop (or by hand) must have this
// version's columns, in order: rows are sent without their names.
void check_columns(const profiles::ClickHouseServer& server, const std::string& table,
                   const std::vector<profiles::StoreColumn>& columns) {
  const std::string answer = server.query(fmt::format(
      "SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = {} FORMAT TabSeparated",
      sql_literal(table)));
  std::istringstream lines(answer);
  std::string line;
  std::size_t i = 0;
  while (std::getline(lines, line)) {
    // TabSeparated escapes quotes and backslashes in the type's text.
    std::string text;
    for (std::size_t k = 0; k < line.size(); ++k) text += line[k] == '\\' && k + 1 < line.size() ? line[++k] : line[k];
    line = text;
    const std::string expected = i < columns.size() ? columns[i].name + '\t' + columns[i].type : "(none)";
    if (line != expected)
      throw Error(fmt::format("{}: table {} has a column '{}' where tagop's store schema {} has '{}': it was made "
                              "by another version of tagop (or by hand); use another table or database",
                              server.url(), table, line, profiles::store_schema_version, expected));
    ++i;
  }
  if (i != columns.size())
    throw Error(fmt::format("{}: table {} has {} columns where tagop's store schema {} has {}: it was made by another "
                            "version of tagop (or by hand); use another table or database",
                            server.url(), table, i, profiles::store_schema_version, columns.size()));
}

}  // namespace

std::string store_frames_table(const IngestOptions& options) {
  if (!options.frames_table.empty()) return options.frames_table;
  return options.table.empty() ? profiles::store_frames_table_name() : options.table + "_frames";
}

void create_store_tables(const profiles::ClickHouseServer& server, const IngestOptions& options) {
  const std::string table = table_of(options), frames = frames_of(options);
  server.query(profiles::store_create_table(table));
  server.query(profiles::store_create_captures_table(captures_of(options)));
  server.query(profiles::store_create_frames_table(frames));
  add_missing_captures_columns(server, captures_of(options));
  add_samples_columns(server, table, profiles::store_columns());
  add_samples_columns(server, frames, profiles::store_frame_columns(), "", frames_columns_added);
  check_columns(server, table, profiles::store_columns());
  check_columns(server, frames, profiles::store_frame_columns());
}

void create_cluster_store(const profiles::ClickHouseServer& server, std::string_view cluster,
                          const IngestOptions& options) {
  const bool identifier = !cluster.empty() && !std::isdigit(static_cast<unsigned char>(cluster[0])) &&
                          std::all_of(cluster.begin(), cluster.end(),
                                      [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  if (!identifier)
    throw Error(fmt::format("cluster '{}': a cluster's name (remote_servers) is also its database's here: letters, "
                            "digits and _, not a digit first",
                            cluster));
  create_store_tables(server, options);
  std::string own = server.query("SELECT currentDatabase()");
  while (!own.empty() && (own.back() == '\n' || own.back() == '\r')) own.pop_back();
  if (own == cluster)
    throw Error(fmt::format("{}: the cluster's database '{}' would be this server's own, which holds its shard's "
                            "tables: give the server's URL without ?database={} (or with its shard's database)",
                            server.url(), cluster, cluster));
  server.query(fmt::format("CREATE DATABASE IF NOT EXISTS {}", cluster));
  for (const std::string& table : {table_of(options), captures_of(options), frames_of(options)})
    server.query(fmt::format("CREATE TABLE IF NOT EXISTS {0}.{1} AS `{2}`.{1} ENGINE = Distributed({0}, `{2}`, {1}, capture)",
                             cluster, table, own));
  // A cluster's tables made over an older shard's have its columns.
  add_samples_columns(server, table_of(options), profiles::store_columns(), std::string(cluster));
  add_samples_columns(server, frames_of(options), profiles::store_frame_columns(), std::string(cluster),
                      frames_columns_added);
  add_missing_captures_columns(server, captures_of(options), std::string(cluster));
}

IngestResult ingest_capture(const std::string& path, const profiles::ClickHouseServer& server,
                            const IngestOptions& options) {
  IngestResult result;
  result.capture = profiles::capture_identity(path);
  const std::string table = table_of(options), captures = captures_of(options);
  if (number(server.query(fmt::format("SELECT count() FROM {} WHERE capture = {}", captures, result.capture))) != 0) {
    result.skipped = true;
    return result;
  }
  const std::string frames = frames_of(options);
  for (const std::string& t : {table, frames})
    if (number(server.query(fmt::format("SELECT count() FROM {} WHERE capture = {}", t, result.capture))) != 0)
      throw Error(fmt::format("{}: the store holds rows of {} from an ingest that did not finish; remove them first: "
                              "ALTER TABLE {} DELETE WHERE capture = {}; ALTER TABLE {} DELETE WHERE capture = {}",
                              server.url(), path, table, result.capture, frames, result.capture));

  profiles::ClickHouseInsert insert(
      server, fmt::format("INSERT INTO {} FORMAT {}", table,
                          options.format == RowFormat::native ? "Native" : "TabSeparated"));
  std::string host, periods, events;
  // The frames' names go in INSERTs of their own, a batch each (a few per
  // capture: one row per distinct frame), before the capture is listed.
  const std::string frames_insert = fmt::format("INSERT INTO {} FORMAT TabSeparated", frames);
  result.rows = write_rows(
      path, result.capture, [&](std::string_view rows) { insert.write(rows); }, options, &host, &result.warnings,
      &periods, [&](std::string_view rows) {
        profiles::ClickHouseInsert frames_rows(server, frames_insert);
        frames_rows.write(rows);
        frames_rows.finish();
      }, &events);
  insert.finish();
  std::string names;
  for (const profiles::StoreColumn& c : profiles::store_captures_columns()) names += (names.empty() ? "" : ", ") + c.name;
  const Version v = version();
  server.query(fmt::format("INSERT INTO {} ({}) VALUES ({}, {}, {}, {}, now(){}, {}{})", captures, names, result.capture,
                           sql_literal(host), sql_literal(path), result.rows, periods,
                           sql_literal(fmt::format("{}.{}.{}", v.major, v.minor, v.patch)), events));
  return result;
}

std::uint64_t write_capture_rows(const std::string& path, const std::function<void(std::string_view)>& write,
                                 const IngestOptions& options) {
  return write_rows(path, profiles::capture_identity(path), write, options);
}

std::string tally_store_sql(std::string_view key, std::string_view where_sql, const IngestOptions& options,
                            std::string_view from) {
  std::string sums;
  for (std::size_t m = 0; m < measure_count; ++m)
    sums += fmt::format(", sum({})", profiles::measure_column(Measure{static_cast<std::uint8_t>(m)}));
  return fmt::format("SELECT toString({0}) AS key, conditions_lo, conditions_hi, observed_lo, observed_hi, measured, "
                     "count(){1} FROM {2} WHERE capture IN (SELECT capture FROM {3}){4}{5} GROUP BY key, "
                     "conditions_lo, conditions_hi, observed_lo, observed_hi, measured ORDER BY key FORMAT TabSeparated",
                     key, sums, from.empty() ? table_of(options) : std::string(from), captures_of(options),
                     where_sql.empty() ? "" : " AND ",
                     where_sql.empty() ? std::string() : fmt::format("({})", where_sql));
}

StoreTallies tally_store(const profiles::ClickHouseServer& server, std::string_view key, std::string_view where_sql,
                         const IngestOptions& options, std::string_view from) {
  const std::string answer = server.query(tally_store_sql(key, where_sql, options, from));
  StoreTallies out;
  std::string_view rest = answer;
  while (!rest.empty()) {
    const std::size_t eol = rest.find('\n');
    std::string_view line = rest.substr(0, eol);
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos) continue;
    // The key, TabSeparated-escaped.
    std::string name;
    for (std::size_t k = 0; k < tab; ++k) {
      if (line[k] != '\\' || k + 1 >= tab) {
        name += line[k];
        continue;
      }
      const char c = line[++k];
      name += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c == '0' ? '\0' : c;
    }
    if (out.rows.empty() || out.rows.back() != name) out.rows.push_back(std::move(name));  // ORDER BY key
    std::istringstream numbers{std::string(line.substr(tab + 1))};
    Signature signature;
    signature.row = static_cast<std::uint32_t>(out.rows.size() - 1);
    Tally tally;
    numbers >> signature.conditions.words[0] >> signature.conditions.words[1] >> signature.observed.words[0] >>
        signature.observed.words[1] >> signature.measured >> tally.count;
    for (std::uint64_t& total : tally.totals) numbers >> total;
    if (!numbers) throw Error(fmt::format("{}: a tally row the store sent is not numbers: {}", server.url(), line));
    out.tallies.add(signature, tally);
  }
  return out;
}

}  // namespace tagop::report
