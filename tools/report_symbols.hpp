#pragma once
// Function and source line of a sample, from the module it hit: each
// module's ELF file is opened once (through tagop::ModuleSymbols) when the
// report first needs it. A module that is missing, or whose build-id
// differs from the capture's, is not used, and the report says so once.

#include <cstdint>   // std::uint32_t, std::uint64_t
#include <memory>    // std::unique_ptr
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/module_symbols.hpp>  // ModuleSymbols, SourceLocation
#include <tagop/process_table.hpp>   // ProcessTable

namespace tagop::cli {

class ModuleSymbolCache {
 public:
  explicit ModuleSymbolCache(const ProcessTable& processes) : processes_(processes) {}

  /// The location of `offset` in module `module` (ProcessTable's index),
  /// or nullopt when the module's file cannot be used or has no symbol there.
  std::optional<SourceLocation> lookup(std::uint32_t module, std::uint64_t offset);

  /// Why modules were not used: one line per module.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct Entry {
    bool tried = false;
    std::unique_ptr<ModuleSymbols> symbols;
  };
  const ProcessTable& processes_;
  std::vector<Entry> entries_;
  std::vector<std::string> warnings_;
};

}  // namespace tagop::cli
