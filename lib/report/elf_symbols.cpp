// The default symbol source: ELF files, through tagop::ModuleSymbols.

#include <sys/stat.h>  // stat

#include <memory>         // std::shared_ptr
#include <unordered_map>  // the files opened
#include <vector>         // std::vector

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include "../demangle.hpp"           // demangle_short
#include <tagop/error.hpp>           // Error
#include <tagop/module_symbols.hpp>  // ModuleSymbols
#include <tagop/report/symbols.hpp>

namespace tagop::report {

void SymbolTable::lines(std::span<const std::uint64_t>, std::span<Line> out) const {
  for (Line& l : out) l = Line{};
}

std::string SymbolTable::file_name(std::uint32_t) const { return {}; }

std::string SymbolTable::short_function_name(std::uint32_t function) const {
  const std::string symbol = symbol_name(function);
  if (!symbol.starts_with("_Z")) return function_name(function);
  // A mangled name has no '@': what follows is a PLT stub's or a version's.
  const std::size_t at = symbol.find('@');
  const std::string mangled = symbol.substr(0, at);
  const std::string name = demangle_short(mangled.c_str());
  if (name == mangled) return function_name(function);
  return at == std::string::npos ? name : name + symbol.substr(at);
}

namespace {

class ElfSymbolTable final : public SymbolTable {
 public:
  explicit ElfSymbolTable(std::shared_ptr<const ModuleSymbols> symbols) : symbols_(std::move(symbols)) {}
  void functions(std::span<const std::uint64_t> offsets, std::span<std::uint32_t> out) const override {
    symbols_->find_functions(offsets, out);
  }
  std::string function_name(std::uint32_t function) const override { return symbols_->function_name(function); }
  std::string symbol_name(std::uint32_t function) const override { return symbols_->symbol_name(function); }
  // Made once per function, as ModuleSymbols keeps its demangled names
  // (rows by call chain name a function once per chain it is in).
  std::string short_function_name(std::uint32_t function) const override {
    auto it = short_names_.find(function);
    if (it == short_names_.end()) it = short_names_.emplace(function, SymbolTable::short_function_name(function)).first;
    return it->second;
  }
  std::optional<std::uint64_t> function_start(std::uint32_t function) const override {
    return symbols_->function_start(function);
  }
  void lines(std::span<const std::uint64_t> offsets, std::span<Line> out) const override {
    static_assert(sizeof(Line) == sizeof(ModuleSymbols::LineRef));
    std::vector<ModuleSymbols::LineRef> found(offsets.size());
    symbols_->find_lines(offsets, found);
    for (std::size_t i = 0; i < found.size(); ++i) out[i] = Line{found[i].file, found[i].line};
  }
  std::string file_name(std::uint32_t file) const override { return std::string(symbols_->file_name(file)); }
  std::vector<std::string> notes() const override { return symbols_->notes(); }

 private:
  std::shared_ptr<const ModuleSymbols> symbols_;  // shared by the spellings of one file
  mutable std::unordered_map<std::uint32_t, std::string> short_names_;  // by function
};

class ElfSymbolSource final : public SymbolSource {
 public:
  explicit ElfSymbolSource(SymbolFileSearch search) : search_(std::move(search)) {}

  std::unique_ptr<SymbolTable> open(const ModuleRef& module, std::string& problem) override {
    problem.clear();
    // The kernel has its own source; anonymous memory and [heap] have no
    // file; [vdso] has one only in perf's build-id cache.
    if (module.kernel || module.path.empty() || (module.path[0] != '/' && module.path != "[vdso]")) return nullptr;
    const SymbolFileSearchResult found = find_symbol_files(module.path, module.build_id, search_);
    std::vector<std::string> rejected = found.rejected;
    for (const SymbolFile& file : found.files) {
      const std::optional<std::string> expected =
          file.build_id_checked ? std::optional<std::string>(module.build_id) : std::nullopt;
      // One table per file, however a capture spells its path
      // ("/lib/./x.so", "/lib//x.so" under --symfs): by device and inode.
      struct stat st {};
      std::string key;
      if (::stat(file.path.c_str(), &st) == 0)
        key = fmt::format("{}:{}:{}", st.st_dev, st.st_ino, expected.value_or("-"));
      if (auto it = opened_.find(key); !key.empty() && it != opened_.end()) {
        if (it->second.symbols) return std::make_unique<ElfSymbolTable>(it->second.symbols);
        rejected.push_back(it->second.problem);
        continue;
      }
      try {
        std::shared_ptr<const ModuleSymbols> symbols = ModuleSymbols::open(file.path, expected);
        if (!key.empty()) opened_[key] = {symbols, {}};
        return std::make_unique<ElfSymbolTable>(std::move(symbols));
      } catch (const Error& e) {
        if (!key.empty()) opened_[key] = {nullptr, e.what()};
        rejected.push_back(e.what());
      }
    }
    // A module without symbols is a warning in a report.
    if (!rejected.empty()) problem = fmt::format("{}", fmt::join(rejected, "; "));
    return nullptr;
  }

 private:
  struct Opened {
    std::shared_ptr<const ModuleSymbols> symbols;
    std::string problem;  // why not, when it could not be opened
  };
  SymbolFileSearch search_;
  std::unordered_map<std::string, Opened> opened_;  // by device, inode and the build-id expected
};

}  // namespace

std::shared_ptr<SymbolSource> elf_symbol_source(const SymbolFileSearch& search) {
  return std::make_shared<ElfSymbolSource>(search);
}

}  // namespace tagop::report
