// `tagop report --format jsonl`: the capture's IBS samples, decoded one at
// a time and written as they are read (profiles::SampleLineWriter), so
// memory stays flat whatever the capture's size: only the process table
// and the symbol tables of the modules met are kept.

#include <algorithm>      // std::find
#include <array>          // std::array
#include <memory>         // std::unique_ptr
#include <unordered_map>  // symbol tables, names

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/decoder.hpp>       // observable
#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/engine.hpp>                // decide
#include <tagop/error.hpp>                 // Error
#include <tagop/process_table.hpp>         // ProcessTable
#include <tagop/profiles/sample_lines.hpp>  // SampleLineWriter

#include "report_export.hpp"

namespace tagop::cli {

namespace {

template <typename T>
bool allowed(const std::vector<T>& only, const T& value) {
  return only.empty() || std::find(only.begin(), only.end(), value) != only.end();
}

// A module's functions, opened on first use, and their lines' symbols,
// escaped once each (node-based maps: the addresses stay put).
struct ModuleNames {
  std::unique_ptr<report::SymbolTable> table;
  profiles::EscapedSymbol module_only;  // an address outside its functions
  std::unordered_map<std::uint32_t, profiles::EscapedSymbol> functions;
};

// Where a sample's address is: its process and address.
struct AddressKey {
  std::uint32_t pid;
  std::uint64_t ip;
  bool operator==(const AddressKey&) const = default;
};
struct AddressKeyHash {
  std::size_t operator()(const AddressKey& k) const {
    return std::hash<std::uint64_t>{}(k.ip * 0x9E3779B97F4A7C15ULL ^ k.pid);
  }
};

class LineHandler : public perf_data::RecordHandler {
 public:
  LineHandler(const perf_data::PerfDataReader& reader, const report::Options& options, std::ostream& out)
      : options_(options), capture_(reader.info(), options.cpu), writer_(out) {
    processes_.add_build_ids(reader.info().build_ids);
    // What the decoder can see of each unit: a condition there that a
    // sample did not observe is "unknown" on its line.
    for (amd_ibs::IbsUnit u : {amd_ibs::IbsUnit::fetch, amd_ibs::IbsUnit::op})
      scopes_[static_cast<std::size_t>(u)] = capture_.decoder().observable(u);
    sources_ = options.symbol_sources;
    sources_.push_back(report::elf_symbol_source());
  }

  void sample(const perf_data::SampleRecord& record) override {
    Sample s;
    amd_ibs::IbsSampleInfo info;
    if (capture_.decode(record, s, info, problem_) != amd_ibs::IbsCapture::Result::ok) return;
    const report::Filters& f = options_.filters;
    if (!allowed(f.cpus, s.cpu) || !allowed(f.pids, s.pid) || !allowed(f.tids, s.tid)) return;
    if (!f.comms.empty() && !allowed(f.comms, std::string(processes_.comm_of(s.pid)))) return;
    if (f.time && (s.time < f.time->start || s.time > f.time->stop)) return;
    if (f.where && decide(*f.where, s.conditions, s.observed) != Decision::yes) return;
    writer_.set_scope(scopes_[static_cast<std::size_t>(info.unit)]);
    writer_.write_escaped(s, symbol_at(s));
  }
  // A new mapping or process can change what an address holds.
  void mmap(const perf_data::MmapRecord& r) override {
    processes_.mmap(r);
    symbols_at_.clear();
  }
  void comm(const perf_data::CommRecord& r) override { processes_.comm(r); }
  void task(const perf_data::TaskRecord& r) override {
    processes_.task(r);
    symbols_at_.clear();
  }
  void progress(std::uint64_t done, std::uint64_t total) override {
    if (options_.progress) options_.progress(done, total);
  }

  std::uint64_t finish() {
    writer_.flush();
    return writer_.lines();
  }

 private:
  // The symbol of a sample's address, looked up once per address (samples
  // hit the same hot addresses again and again).
  const profiles::EscapedSymbol& symbol_at(const Sample& s) {
    const AddressKey key{s.pid, s.ip};
    if (auto it = symbols_at_.find(key); it != symbols_at_.end()) return *it->second;
    // Bounded, so memory stays flat on captures with many addresses.
    if (symbols_at_.size() >= (1u << 16)) symbols_at_.clear();
    const profiles::EscapedSymbol& symbol = symbol_of(s);
    symbols_at_.emplace(key, &symbol);
    return symbol;
  }

  const profiles::EscapedSymbol& symbol_of(const Sample& s) {
    const Mapping* m = processes_.find(s.pid, s.ip);
    if (!m) return unknown_;
    const MappedModule& module = processes_.modules()[m->module];
    ModuleNames& names = modules_[m->module];
    if (names.module_only.module == "null")
      names.module_only = profiles::EscapedSymbol::of({{}, module.filename});
    const profiles::EscapedSymbol& out = names.module_only;
    if (!names.table && !tried_.contains(m->module)) {
      tried_.insert({m->module, true});
      std::string problem;
      for (const auto& source : sources_)
        if ((names.table = source->open({module.filename, module.build_id, module.kernel}, problem))) break;
    }
    if (!names.table) return out;
    const std::uint64_t offset = m->file_offset(s.ip);
    std::uint32_t function = report::SymbolTable::none;
    names.table->functions({&offset, 1}, {&function, 1});
    if (function == report::SymbolTable::none) return out;
    auto it = names.functions.find(function);
    if (it == names.functions.end()) {
      const std::string name =
          options_.demangle ? names.table->function_name(function) : names.table->symbol_name(function);
      it = names.functions.emplace(function, profiles::EscapedSymbol::of({name, module.filename})).first;
    }
    return it->second;
  }

  const report::Options& options_;
  amd_ibs::IbsCapture capture_;
  profiles::SampleLineWriter writer_;
  std::array<ConditionSet, 2> scopes_{};
  ProcessTable processes_;
  std::vector<std::shared_ptr<report::SymbolSource>> sources_;
  std::unordered_map<std::uint32_t, ModuleNames> modules_;
  std::unordered_map<std::uint32_t, bool> tried_;
  std::unordered_map<AddressKey, const profiles::EscapedSymbol*, AddressKeyHash> symbols_at_;
  const profiles::EscapedSymbol unknown_;
  std::string problem_;
};

}  // namespace

std::uint64_t write_sample_lines(perf_data::PerfDataReader& reader, const report::Options& options, std::ostream& out) {
  if (!report::holds_ibs_events(reader.info()))
    throw Error(fmt::format("--format jsonl: {} has no IBS events; its lines are decoded IBS samples (for the "
                            "events of other captures, use --format json or perf script)",
                            reader.info().path));
  LineHandler handler(reader, options, out);
  reader.read(handler);
  return handler.finish();
}

}  // namespace tagop::cli
