#include "report_symbols.hpp"

namespace tagop::cli {

std::optional<SourceLocation> ModuleSymbolCache::lookup(std::uint32_t module, std::uint64_t offset) {
  (void)processes_;
  (void)module;
  (void)offset;
  return std::nullopt;  // until ModuleSymbols is implemented (branch symbols)
}

}  // namespace tagop::cli
