// The default symbol source: ELF files, through tagop::ModuleSymbols.

#include <filesystem>  // std::filesystem::exists
#include <vector>      // std::vector

#include <tagop/error.hpp>           // Error
#include <tagop/module_symbols.hpp>  // ModuleSymbols
#include <tagop/report/symbols.hpp>

namespace tagop::report {

void SymbolTable::lines(std::span<const std::uint64_t>, std::span<Line> out) const {
  for (Line& l : out) l = Line{};
}

std::string SymbolTable::file_name(std::uint32_t) const { return {}; }

namespace {

class ElfSymbolTable final : public SymbolTable {
 public:
  explicit ElfSymbolTable(std::unique_ptr<ModuleSymbols> symbols) : symbols_(std::move(symbols)) {}
  void functions(std::span<const std::uint64_t> offsets, std::span<std::uint32_t> out) const override {
    symbols_->find_functions(offsets, out);
  }
  std::string function_name(std::uint32_t function) const override { return symbols_->function_name(function); }
  std::string symbol_name(std::uint32_t function) const override { return symbols_->symbol_name(function); }
  void lines(std::span<const std::uint64_t> offsets, std::span<Line> out) const override {
    static_assert(sizeof(Line) == sizeof(ModuleSymbols::LineRef));
    std::vector<ModuleSymbols::LineRef> found(offsets.size());
    symbols_->find_lines(offsets, found);
    for (std::size_t i = 0; i < found.size(); ++i) out[i] = Line{found[i].file, found[i].line};
  }
  std::string file_name(std::uint32_t file) const override { return std::string(symbols_->file_name(file)); }

 private:
  std::unique_ptr<ModuleSymbols> symbols_;
};

class ElfSymbolSource final : public SymbolSource {
 public:
  std::unique_ptr<SymbolTable> open(const ModuleRef& module, std::string& problem) override {
    problem.clear();
    // The kernel, [vdso], anonymous memory: no file to read.
    if (module.kernel || module.path.empty() || module.path[0] != '/') return nullptr;
    // A module that is not on this machine shows as module+offset, silently:
    // that is the common case for a capture from elsewhere.
    std::error_code ec;
    const std::string path(module.path);
    if (!std::filesystem::exists(path, ec)) return nullptr;
    const std::optional<std::string> expected =
        module.build_id.empty() ? std::nullopt : std::optional<std::string>(module.build_id);
    try {
      return std::make_unique<ElfSymbolTable>(ModuleSymbols::open(path, expected));
    } catch (const Error& e) {
      problem = e.what();  // a module without symbols is a warning in a report
      return nullptr;
    }
  }
};

}  // namespace

std::shared_ptr<SymbolSource> elf_symbol_source() { return std::make_shared<ElfSymbolSource>(); }

}  // namespace tagop::report
