#include "function_finder.hpp"

#include <algorithm>   // std::sort, std::min
#include <charconv>    // std::from_chars
#include <filesystem>  // std::filesystem::path::filename
#include <map>         // the matches, by module and offset
#include <optional>    // std::optional

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include <tagop/error.hpp>  // Error

#include "../demangle.hpp"  // demangle, demangle_short

namespace tagop::report {

namespace {

std::optional<std::uint64_t> parse_hex(std::string_view text) {
  if (!text.starts_with("0x") && !text.starts_with("0X")) return std::nullopt;
  text.remove_prefix(2);
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string module_offset(const SampledModule& m, std::uint64_t offset) {
  return fmt::format("{}+{:#x}", m.path, offset);
}

struct OpenedModule {
  std::shared_ptr<const ModuleSymbols> symbols;
  std::string file;
  std::string problem;  // why there are no symbols
};

// The module's file where perf finds it (find_symbol_files), the first
// that opens as ELF with the recorded build-id.
OpenedModule open_module(const SampledModule& m, const SymbolFileSearch& search) {
  OpenedModule out;
  if (m.path.empty() || m.path[0] != '/') {
    out.problem = fmt::format("{} is not a file", m.path);
    return out;
  }
  const SymbolFileSearchResult found = find_symbol_files(m.path, m.build_id, search);
  std::vector<std::string> rejected = found.rejected;
  for (const SymbolFile& file : found.files) {
    try {
      out.symbols = ModuleSymbols::open(file.path, file.build_id_checked ? std::optional<std::string>(m.build_id)
                                                                         : std::nullopt);
      out.file = file.path;
      return out;
    } catch (const Error& e) {
      rejected.push_back(e.what());
    }
  }
  std::vector<std::string> looked;
  for (const SymbolFileCandidate& c : symbol_file_candidates(m.path, m.build_id, search)) looked.push_back(c.path);
  out.problem = fmt::format("the file of {}{} is not here: looked for {}{}", m.path,
                            m.build_id.empty() ? "" : fmt::format(" (build-id {})", m.build_id),
                            fmt::join(looked, ", "),
                            rejected.empty() ? "" : fmt::format("; not used: {}", fmt::join(rejected, "; ")));
  return out;
}

struct Candidate {
  const SampledModule* module = nullptr;
  const OpenedModule* opened = nullptr;
  ModuleSymbols::Symbol symbol;
};

// The code symbol holding `offset`: one whose bytes hold it, else (a
// sizeless one, hand-written assembly) the last to start before it.
std::optional<ModuleSymbols::Symbol> function_at(const std::vector<ModuleSymbols::Symbol>& symbols,
                                                 std::uint64_t offset) {
  std::optional<ModuleSymbols::Symbol> best, sizeless;
  for (const ModuleSymbols::Symbol& s : symbols) {
    if (!s.code || !s.offset || *s.offset > offset) continue;
    if (s.size && offset - *s.offset < s.size) {
      // Of aliases, a global name rather than a static one.
      if (!best || (s.global && !best->global)) best = s;
    } else if (!s.size && (!sizeless || *s.offset > *sizeless->offset)) {
      sizeless = s;
    }
  }
  return best ? best : sizeless;
}

// Where a function ends: its size, or (sizeless) the next code symbol's start.
std::uint64_t end_of(const std::vector<ModuleSymbols::Symbol>& symbols, const ModuleSymbols::Symbol& f) {
  if (f.size) return *f.offset + f.size;
  std::uint64_t end = ~std::uint64_t{0};
  for (const ModuleSymbols::Symbol& s : symbols)
    if (s.code && s.offset && *s.offset > *f.offset) end = std::min(end, *s.offset);
  if (end == ~std::uint64_t{0})
    throw Error(ErrorCode::not_found, fmt::format("{} has no size and no symbol after it: give its range, "
                                                  "MODULE+0xSTART-0xEND",
                                                  f.name));
  return end;
}

FoundFunction found(const Candidate& c, const std::vector<ModuleSymbols::Symbol>& symbols) {
  const std::uint64_t start = *c.symbol.offset;
  return {*c.module, c.opened->file, c.opened->symbols, demangle(c.symbol.name.c_str()), c.symbol.name, start,
          end_of(symbols, c.symbol)};
}

bool name_matches(const std::string& symbol, std::string_view wanted) {
  if (symbol == wanted) return true;
  // A versioned name (memcpy@@GLIBC_2.14) by its name alone.
  const std::size_t at = symbol.find('@');
  if (at != std::string::npos && std::string_view(symbol).substr(0, at) == wanted) return true;
  if (!symbol.starts_with("_Z")) return false;
  // A part GCC split off a function (f.cold, f.part.0, f.isra.0: a mangled
  // name has no '.' but before such a suffix) is not the function its short
  // name names: only its full name ("f(int) [clone .cold]") asks for it.
  if (symbol.find('.') != std::string::npos) return demangle(symbol.c_str()) == wanted;
  return demangle(symbol.c_str()) == wanted || demangle_short(symbol.c_str()) == wanted;
}

// Levenshtein distance, for suggestions; names are cut to 64 characters
// (a mangled C++ name may be kilobytes).
std::size_t distance(std::string_view a, std::string_view b) {
  a = a.substr(0, 64);
  b = b.substr(0, 64);
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string kind_of(const ModuleSymbols::Symbol& s) { return s.global ? "global" : "static"; }

class Finder {
 public:
  // A module's file is opened when first needed: a name is looked up in
  // every module, an offset only in the module it names.
  Finder(const std::vector<SampledModule>& modules, const SymbolFileSearch& search)
      : modules_(modules), search_(search), opened_(modules.size()), symbols_(modules.size()) {}

  FoundFunction by_name(std::string_view name) {
    std::map<std::pair<std::size_t, std::uint64_t>, Candidate> code, data;
    for (std::size_t m = 0; m < modules_.size(); ++m)
      for (const ModuleSymbols::Symbol& s : symbols_of(m))
        if (name_matches(s.name, name)) {
          auto& into = s.code ? code : data;
          const auto [it, fresh] = into.try_emplace({m, s.address}, Candidate{&modules_[m], &opened(m), s});
          if (!fresh && s.global && !it->second.symbol.global) it->second.symbol = s;
        }
    if (code.size() == 1) {
      const auto& [key, c] = *code.begin();
      if (!c.symbol.offset)
        throw Error(ErrorCode::not_found, fmt::format("{}: {} has no bytes in the file", name, c.module->path));
      return found(c, symbols_of(key.first));
    }
    if (code.size() > 1) {
      std::vector<std::string> listed;
      for (const auto& [key, c] : code)
        listed.push_back(fmt::format("{} ({}{})", c.symbol.offset ? module_offset(*c.module, *c.symbol.offset) : c.module->path,
                                     kind_of(c.symbol), c.symbol.name != name ? ", " + c.symbol.name : ""));
      throw Error(ErrorCode::bad_input,
                  fmt::format("'{}' is ambiguous: {} functions have that name: {}; give one as MODULE+0xOFFSET", name,
                              code.size(), fmt::join(listed, ", ")));
    }
    if (!data.empty()) {
      const Candidate& c = data.begin()->second;
      throw Error(ErrorCode::bad_input, fmt::format("'{}' is not code: it is a data object (OBJECT) of {} at {:#x}, "
                                                    "{} bytes; annotate a function",
                                                    name, c.module->path, c.symbol.address, c.symbol.size));
    }
    throw Error(ErrorCode::not_found, not_found(name));
  }

  FoundFunction by_address(std::uint64_t address, std::string_view spec, const HasSamples& has_samples) {
    std::vector<FoundFunction> hits;
    for (std::size_t m = 0; m < modules_.size(); ++m) {
      if (!opened(m).symbols) continue;
      const std::optional<std::uint64_t> offset = opened(m).symbols->offset_of_address(address);
      if (!offset) continue;
      if (const auto f = function_at(symbols_of(m), *offset))
        hits.push_back(found({&modules_[m], &opened(m), *f}, symbols_of(m)));
    }
    if (hits.size() == 1) return hits.front();
    if (hits.empty())
      throw Error(ErrorCode::not_found,
                  fmt::format("{}: no function of a module with samples is at that address{}", spec, missing_files()));
    // An ELF address is in every module's own space (ld.so's code starts
    // where an executable's does): the function with samples is meant.
    std::vector<FoundFunction> sampled;
    for (const FoundFunction& f : hits)
      if (has_samples(f.module, f.start, f.end)) sampled.push_back(f);
    if (sampled.size() == 1) return sampled.front();
    std::vector<std::string> listed;
    for (const FoundFunction& f : hits) listed.push_back(fmt::format("{} ({})", module_offset(f.module, f.start), f.name));
    throw Error(ErrorCode::bad_input, fmt::format("{} is ambiguous: {} modules have a function there: {}; give one as "
                                                  "MODULE+0xOFFSET",
                                                  spec, hits.size(), fmt::join(listed, ", ")));
  }

  FoundFunction by_offset(std::string_view module_name, std::uint64_t start, std::optional<std::uint64_t> end,
                          std::string_view spec) {
    const std::size_t m = module_named(module_name, spec);
    const OpenedModule& module = opened(m);
    if (!module.symbols) throw Error(ErrorCode::io, fmt::format("{}: {}", spec, module.problem));
    if (end) {
      if (*end <= start) throw Error(fmt::format("{}: the range is empty (its end is not after its start)", spec));
      return {modules_[m], module.file, module.symbols, std::string(spec), "", start, *end};
    }
    const auto f = function_at(symbols_of(m), start);
    if (!f)
      throw Error(ErrorCode::not_found,
                  fmt::format("{}: no function symbol holds offset {:#x} of {} (a stripped module? give a range, "
                              "{}+{:#x}-0xEND)",
                              spec, start, modules_[m].path, module_name, start));
    return found({&modules_[m], &module, *f}, symbols_of(m));
  }

 private:
  const OpenedModule& opened(std::size_t m) {
    if (!opened_[m]) opened_[m] = open_module(modules_[m], search_);
    return *opened_[m];
  }

  const std::vector<ModuleSymbols::Symbol>& symbols_of(std::size_t m) {
    if (!symbols_[m] && opened(m).symbols) symbols_[m] = opened(m).symbols->symbols();
    static const std::vector<ModuleSymbols::Symbol> none;
    return symbols_[m] ? *symbols_[m] : none;
  }

  std::size_t module_named(std::string_view name, std::string_view spec) const {
    std::vector<std::size_t> hits;
    for (std::size_t m = 0; m < modules_.size(); ++m)
      if (modules_[m].path == name || std::filesystem::path(modules_[m].path).filename() == name) hits.push_back(m);
    if (hits.size() == 1) return hits.front();
    std::vector<std::string> paths;
    for (std::size_t m : hits.empty() ? all() : hits)
      paths.push_back(modules_[m].build_id.empty() ? modules_[m].path
                                                   : fmt::format("{} (build-id {})", modules_[m].path, modules_[m].build_id));
    if (hits.empty())
      throw Error(ErrorCode::not_found, fmt::format("{}: no module '{}' has samples; those with samples: {}", spec, name,
                                                    paths.empty() ? "none" : fmt::format("{}", fmt::join(paths, ", "))));
    throw Error(ErrorCode::bad_input, fmt::format("{}: several modules with samples are '{}': {}; give its whole path",
                                                  spec, name, fmt::join(paths, ", ")));
  }

  std::vector<std::size_t> all() const {
    std::vector<std::size_t> out(modules_.size());
    for (std::size_t m = 0; m < out.size(); ++m) out[m] = m;
    return out;
  }

  std::string missing_files() const {
    std::vector<std::string> problems;
    for (const std::optional<OpenedModule>& o : opened_)
      if (o && !o->symbols && o->problem.find(" is not a file") == std::string::npos) problems.push_back(o->problem);
    return problems.empty() ? "" : fmt::format(" (and some modules' files were not read: {})", fmt::join(problems, "; "));
  }

  // The closest names of functions: by edit distance, or holding the name.
  std::string not_found(std::string_view name) {
    std::vector<std::pair<std::size_t, std::string>> close;
    for (std::size_t m = 0; m < modules_.size(); ++m)
      for (const ModuleSymbols::Symbol& s : symbols_of(m)) {
        if (!s.code) continue;
        const std::string shown = s.name.starts_with("_Z") ? demangle_short(s.name.c_str()) : s.name;
        const std::size_t d = distance(shown, name);
        if (d <= std::max<std::size_t>(2, name.size() / 3) || (name.size() >= 3 && shown.find(name) != std::string::npos))
          close.emplace_back(d, shown);
      }
    std::sort(close.begin(), close.end());
    close.erase(std::unique(close.begin(), close.end()), close.end());
    std::vector<std::string> names;
    for (std::size_t i = 0; i < close.size() && names.size() < 5; ++i) names.push_back(close[i].second);
    std::vector<std::string> modules;
    for (const SampledModule& m : modules_) modules.push_back(m.path);
    return fmt::format("no function '{}' in the modules with samples ({}){}{}", name,
                       modules.empty() ? "none" : fmt::format("{}", fmt::join(modules, ", ")),
                       names.empty() ? "" : fmt::format("; did you mean: {}?", fmt::join(names, ", ")),
                       missing_files());
  }

  const std::vector<SampledModule>& modules_;
  const SymbolFileSearch& search_;
  std::vector<std::optional<OpenedModule>> opened_;  // opened when first asked
  std::vector<std::optional<std::vector<ModuleSymbols::Symbol>>> symbols_;  // read when first asked
};

}  // namespace

FoundFunction find_function(std::string_view spec, const std::vector<SampledModule>& modules,
                            const SymbolFileSearch& search, const HasSamples& has_samples) {
  if (spec.empty()) throw Error("no function given: a name, 0xADDRESS, MODULE+0xOFFSET or MODULE+0xSTART-0xEND");
  // MODULE+0xOFFSET or MODULE+0xSTART-0xEND: the last '+' before a hex number.
  if (const std::size_t plus = spec.rfind('+'); plus != std::string_view::npos && plus > 0) {
    const std::string_view module = spec.substr(0, plus), rest = spec.substr(plus + 1);
    const std::size_t dash = rest.find('-');
    const auto start = parse_hex(rest.substr(0, dash));
    const auto end = dash == std::string_view::npos ? std::nullopt : parse_hex(rest.substr(dash + 1));
    if (start && (dash == std::string_view::npos || end)) {
      Finder finder(modules, search);
      return finder.by_offset(module, *start, end, spec);
    }
  }
  Finder finder(modules, search);
  if (const auto address = parse_hex(spec)) return finder.by_address(*address, spec, has_samples);
  return finder.by_name(spec);
}

}  // namespace tagop::report
