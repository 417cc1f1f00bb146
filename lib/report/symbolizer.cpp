// Symbolizer: the report's pieces for one address at a time. The capture's
// process records are logged in time order (SpaceLog, as the report logs
// them); a name() replays them up to its time into a ProcessTable, and the
// module found there is named by the report's symbol sources, each
// module's table opened once.

#include <tagop/report/symbolizer.hpp>

#include <map>      // the tables opened
#include <tuple>    // std::tuple
#include <utility>  // std::pair

#include <tagop/report/kernel_symbol_source.hpp>  // kernel_symbol_source

#include "space_log.hpp"

namespace tagop::report {

namespace {

struct LogHandler final : perf_data::RecordHandler {
  explicit LogHandler(SpaceLog& log) : log(log) {}
  SpaceLog& log;
  std::uint64_t sample_fields() const override { return 0; }  // samples are not read
  void mmap(const perf_data::MmapRecord& r) override { log.mmap(r); }
  void comm(const perf_data::CommRecord& r) override { log.comm(r); }
  void task(const perf_data::TaskRecord& r) override { log.task(r); }
};

}  // namespace

struct Symbolizer::State {
  State(perf_data::PerfDataReader& reader, SymbolizerOptions options)
      : log(reader.info().build_ids, [](std::uint32_t, std::string_view) { return true; }, reader.info().timed()),
        sources(std::move(options.sources)) {
    KernelSymbolSearch kernel = std::move(options.kernel);
    kernel.files = options.files;
    if (kernel.os_release.empty()) kernel.os_release = reader.info().os_release;
    sources.push_back(elf_symbol_source(options.files));
    sources.push_back(kernel_symbol_source(std::move(kernel)));
    LogHandler handler(log);
    reader.read(handler);
    log.take_all();
  }

  // The process table as it was at `time`.
  const ProcessTable& table_at(std::uint64_t time) {
    const std::size_t position = log.position_at(time);
    if (!replay || position < replay->position()) replay = std::make_unique<SpaceLog::Replay>(log);
    return replay->to(position);
  }

  // The module's symbols, opened once; nullptr when no source has them.
  const SymbolTable* symbols(const MappedModule& module) {
    auto [it, fresh] = tables.try_emplace({module.filename, module.build_id, module.kernel});
    if (!fresh) return it->second.get();
    const ModuleRef ref = ModuleRef::of(module);
    std::vector<std::string> problems;
    for (const std::shared_ptr<SymbolSource>& source : sources) {
      std::string problem;
      it->second = source->open(ref, problem);
      if (!problem.empty()) problems.push_back(module.filename + ": " + problem);
      if (it->second) break;
    }
    // A caveat of the table used, or why none was: said once per module.
    if (it->second && !problems.empty()) warnings.push_back(problems.back());
    else if (!it->second) warnings.insert(warnings.end(), problems.begin(), problems.end());
    return it->second.get();
  }

  SpaceLog log;
  std::unique_ptr<SpaceLog::Replay> replay;
  std::vector<std::shared_ptr<SymbolSource>> sources;
  std::map<std::tuple<std::string, std::string, bool>, std::unique_ptr<SymbolTable>> tables;
  std::vector<std::string> warnings;
};

Symbolizer::Symbolizer(perf_data::PerfDataReader& reader, SymbolizerOptions options)
    : state_(std::make_unique<State>(reader, std::move(options))) {}

Symbolizer::~Symbolizer() = default;

Frame Symbolizer::name(std::uint32_t pid, std::uint64_t address, std::uint64_t time) {
  Frame frame;
  const ProcessTable& table = state_->table_at(time);
  const Mapping* mapping = table.find(pid, address);
  if (!mapping) return frame;
  const MappedModule& module = table.modules()[mapping->module];
  frame.module = module.filename;
  frame.mapped = true;
  frame.module_offset = mapping->file_offset(address);
  const SymbolTable* symbols = state_->symbols(module);
  if (!symbols) return frame;
  const std::uint64_t offset = frame.module_offset;
  std::uint32_t function = SymbolTable::none;
  symbols->functions({&offset, 1}, {&function, 1});
  if (function != SymbolTable::none) {
    frame.function = symbols->function_name(function);
    frame.symbol = symbols->symbol_name(function);
    if (const std::optional<std::uint64_t> start = symbols->function_start(function); start && *start <= offset)
      frame.function_offset = offset - *start;
  }
  SymbolTable::Line line;
  symbols->lines({&offset, 1}, {&line, 1});
  if (line.file != SymbolTable::none) {
    frame.file = symbols->file_name(line.file);
    frame.line = line.line;
  }
  return frame;
}

std::string Symbolizer::comm(std::uint32_t pid, std::uint64_t time) {
  return std::string(state_->table_at(time).comm_of(pid));
}

const std::vector<std::string>& Symbolizer::warnings() const { return state_->warnings; }

}  // namespace tagop::report
