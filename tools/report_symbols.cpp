#include "report_symbols.hpp"

#include <filesystem>  // std::filesystem::exists

#include <fmt/format.h>  // fmt::format

namespace tagop::cli {

std::optional<SourceLocation> ModuleSymbolCache::lookup(std::uint32_t module, std::uint64_t offset) {
  const std::vector<MappedModule>& modules = processes_.modules();
  if (module >= modules.size()) return std::nullopt;
  if (entries_.size() < modules.size()) entries_.resize(modules.size());
  Entry& e = entries_[module];
  if (!e.tried) {
    e.tried = true;
    const MappedModule& m = modules[module];
    // The kernel, [vdso], anonymous memory: no file to read.
    if (m.kernel || m.filename.empty() || m.filename[0] != '/') return std::nullopt;
    std::error_code ec;
    // A module that is not on this machine shows as module+offset, silently:
    // that is the common case for a capture from elsewhere.
    if (!std::filesystem::exists(m.filename, ec)) return std::nullopt;
    std::string problem;
    const std::optional<std::string> expected = m.build_id.empty() ? std::nullopt : std::optional(m.build_id);
    e.symbols = ModuleSymbols::open(m.filename, expected, problem);
    if (!e.symbols)
      warnings_.push_back(fmt::format("{} is not used for symbols ({}): its samples show as module+offset",
                                      m.filename, problem));
  }
  if (!e.symbols) return std::nullopt;
  return e.symbols->lookup(offset);
}

}  // namespace tagop::cli
