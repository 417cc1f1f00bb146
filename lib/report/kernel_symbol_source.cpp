// The kernel's map named by kallsyms or a vmlinux (tagop::KernelSymbols).

#include <tagop/report/kernel_symbol_source.hpp>

#include <sys/stat.h>  // stat

#include <algorithm>  // std::is_sorted
#include <chrono>     // std::chrono::seconds
#include <future>  // std::async, std::future
#include <memory>  // std::shared_ptr, std::weak_ptr
#include <mutex>   // std::mutex

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>             // Error
#include <tagop/perf_data_reader.hpp>  // FileInfo

namespace tagop::report {

namespace {

constexpr std::string_view kernel_map = "[kernel.kallsyms]";

// The kernel's symbols seen from a capture: its addresses are the table's
// less `delta` (the table's _text - the capture's: another boot's KASLR,
// as perf's kallsyms__delta moves them).
class KernelSymbolTable final : public SymbolTable {
 public:
  KernelSymbolTable(std::shared_ptr<const KernelSymbols> symbols, std::uint64_t delta)
      : symbols_(std::move(symbols)), delta_(delta) {}
  // The kernel map's offsets are addresses: perf's MMAP gives it pgoff = start.
  void functions(std::span<const std::uint64_t> offsets, std::span<std::uint32_t> out) const override {
    std::vector<std::uint64_t> moved;
    if (delta_ != 0) {
      moved.reserve(offsets.size());
      for (const std::uint64_t offset : offsets) moved.push_back(offset + delta_);
    }
    const std::span<const std::uint64_t> addresses = delta_ != 0 ? std::span<const std::uint64_t>(moved) : offsets;
    const KernelSymbol* first = symbols_->symbols().data();
    const auto index = [&](const std::optional<KernelSymbolHit>& hit) {
      return hit ? static_cast<std::uint32_t>(hit->symbol - first) : none;
    };
    // Moved past 2^64, the addresses are no longer in order: one at a time.
    if (!std::is_sorted(addresses.begin(), addresses.end())) {
      for (std::size_t i = 0; i < addresses.size(); ++i) out[i] = index(symbols_->find(addresses[i]));
      return;
    }
    const auto hits = symbols_->find_sorted(addresses);
    for (std::size_t i = 0; i < hits.size(); ++i) out[i] = index(hits[i]);
  }
  std::string function_name(std::uint32_t function) const override {
    return std::string(symbols_->symbols()[function].name);
  }
  // The kernel map's offsets are addresses.
  std::optional<std::uint64_t> function_start(std::uint32_t function) const override {
    return symbols_->symbols()[function].start - delta_;
  }

 private:
  std::shared_ptr<const KernelSymbols> symbols_;
  std::uint64_t delta_ = 0;
};

// How far the table's kernel is from the capture's: the table's address of
// the symbol the capture's kernel map names (_text) less the recorded one;
// 0 when the capture or the table does not say.
std::optional<std::uint64_t> relocation(const KernelSymbols& symbols, const ModuleRef& module) {
  if (module.reloc_symbol.empty()) return std::nullopt;
  const std::optional<std::uint64_t> at = symbols.address_of(module.reloc_symbol);
  if (!at) return std::nullopt;
  return *at - module.reloc_address;
}

// A vmlinux has link-time addresses; a kernel moved by KASLR is found by
// the running kernel's _text, when it is the running kernel.
void relocate_to_running(KernelSymbols& symbols, const KernelSymbolSearch& search) {
  const std::string running = running_kernel_build_id(search.running_notes);
  if (running.empty() || !same_build_id(symbols.build_id(), running)) return;
  const std::optional<KernelText> text = running_kernel_text(search.running_kallsyms);
  const std::optional<std::uint64_t> linked = symbols.address_of("_text");
  if (text && linked) symbols.relocate(static_cast<std::int64_t>(text->start - *linked));
}

// The table of a file, shared by the reports that are alive at once (an
// HTML page's table and its flame graph, a diff's two captures of one
// kernel): a kallsyms is read and parsed once, where each report's own
// read was most of a flat report's time (0.3 s of the kernel's to write
// /proc/kallsyms, 23 MiB). Known by its path, kind and stat (a file
// written again is read again), a vmlinux also by the running kernel it is
// moved to; held by its tables only.
std::shared_ptr<const KernelSymbols> shared_symbols(const tagop::KernelSymbolSource& found,
                                                    const KernelSymbolSearch& search) {
  static std::mutex mutex;
  static std::weak_ptr<const KernelSymbols> last;
  static std::string last_key;
  struct stat st {};
  if (::stat(found.path.c_str(), &st) != 0) st = {};
  // A vmlinux is moved by the running kernel's text that `search` names.
  const std::string key = fmt::format("{}\n{}\n{}:{}:{}:{}:{}\n{}\n{}", found.path, found.vmlinux, st.st_dev,
                                      st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                                      found.vmlinux ? search.running_notes : "", found.vmlinux ? search.running_kallsyms : "");
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto kept = last.lock(); kept && last_key == key) return kept;
  KernelSymbols loaded = load_kernel_symbols(found);
  if (found.vmlinux) relocate_to_running(loaded, search);
  auto made = std::make_shared<const KernelSymbols>(std::move(loaded));
  last = made;
  last_key = key;
  return made;
}

class KernelSymbolSource final : public SymbolSource {
 public:
  explicit KernelSymbolSource(KernelSymbolSearch search) : search_(std::move(search)) {}

  void prepare(std::span<const ModuleRef> sampled, bool background) override {
    if (!background) return;
    for (const ModuleRef& module : sampled)
      if (module.kernel && module.path == kernel_map) {
        const KernelSymbolSearchResult found = find_kernel_symbols(module.build_id, search_);
        if (!found.found) return;
        ahead_path_ = found.found->path;
        ahead_ = std::async(std::launch::async, [source = *found.found, search = search_] {
          return shared_symbols(source, search);
        });
        return;
      }
  }

  bool reading(const ModuleRef& module) const override {
    return module.kernel && module.path == kernel_map && ahead_.valid() &&
           ahead_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
  }

  std::unique_ptr<SymbolTable> open(const ModuleRef& module, std::string& problem) override {
    problem.clear();
    if (!module.kernel || module.path != kernel_map) return nullptr;
    const KernelSymbolSearchResult found = find_kernel_symbols(module.build_id, search_);
    if (!found.found) {
      problem = "no kernel symbols found";
      for (const std::string& why : found.rejected) problem += "; " + why;
      problem += fmt::format("; give --kallsyms or --vmlinux, or put a copy of the recording machine's /proc/kallsyms "
                             "in {}/[kernel.kallsyms]/{}/kallsyms as perf does",
                             search_.files.build_id_dir.empty() ? "~/.debug" : search_.files.build_id_dir,
                             module.build_id.empty() ? "BUILD-ID" : std::string(module.build_id));
      return nullptr;
    }
    tagop::KernelSymbolSource source = *found.found;
    try {
      std::shared_ptr<const KernelSymbols> symbols =
          ahead_.valid() && ahead_path_ == source.path ? ahead_.get() : shared_symbols(source, search_);
      std::optional<std::uint64_t> delta = relocation(*symbols, module);
      // A build-id cache copy that cannot be moved to the capture's kernel
      // may be another boot's: the running kernel's, as perf.
      if (!delta && found.fallback) {
        source = *found.fallback;
        symbols = shared_symbols(source, search_);
        delta = relocation(*symbols, module);
      }
      if (module.build_id.empty() && source.path == search_.running_kallsyms)
        problem = fmt::format("the capture records no build-id for the kernel: its samples are named by {} of the "
                              "running kernel, which is right only if the capture was made on this machine with this "
                              "kernel", source.path);
      return std::make_unique<KernelSymbolTable>(std::move(symbols), delta.value_or(0));
    } catch (const Error& e) {
      problem = fmt::format("{} ({}): {}", source.path, source.why, e.what());
      return nullptr;
    }
  }

 private:
  KernelSymbolSearch search_;
  std::string ahead_path_;
  std::future<std::shared_ptr<const KernelSymbols>> ahead_;
};

}  // namespace

std::shared_ptr<SymbolSource> kernel_symbol_source(KernelSymbolSearch search) {
  return std::make_shared<KernelSymbolSource>(std::move(search));
}

std::vector<std::shared_ptr<SymbolSource>> capture_symbol_sources(KernelSymbolSearch search,
                                                                  const perf_data::FileInfo& capture) {
  if (search.os_release.empty()) search.os_release = capture.os_release;
  const SymbolFileSearch files = search.files;
  return {kernel_symbol_source(std::move(search)), elf_symbol_source(files)};
}

}  // namespace tagop::report
