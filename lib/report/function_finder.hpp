#pragma once
// The function `tagop annotate` is asked for: by name, ELF address, module
// offset or offset range, among the modules a capture's samples are in,
// with the file its bytes are read from.

#include <cstdint>      // std::uint64_t
#include <functional>   // std::function
#include <memory>       // std::shared_ptr
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/module_symbols.hpp>  // ModuleSymbols
#include <tagop/symbol_files.hpp>    // SymbolFileSearch

namespace tagop::report {

/// A module some samples are in, as the capture names it.
struct SampledModule {
  std::string path;
  std::string build_id;  ///< lowercase hex; "" when not recorded
};

struct FoundFunction {
  SampledModule module;
  std::string file;  ///< the file its bytes and symbols are read from
  std::shared_ptr<const ModuleSymbols> symbols;
  std::string name;    ///< demangled; for a range, the range as given
  std::string symbol;  ///< as the table has it; "" for a range
  std::uint64_t start = 0, end = 0;  ///< file offsets, end excluded
};

/// Whether a module has samples in [start, end) (file offsets).
using HasSamples = std::function<bool(const SampledModule&, std::uint64_t start, std::uint64_t end)>;

/// Throws tagop::Error (not_found, bad_input) saying why no one function
/// is meant: see report::annotate(). An ELF address that several modules
/// have a function at means the one function of them with samples.
FoundFunction find_function(std::string_view spec, const std::vector<SampledModule>& modules,
                            const SymbolFileSearch& search, const HasSamples& has_samples);

}  // namespace tagop::report
