#pragma once
// The processes of a perf.data capture as its COMM, FORK, EXIT, MMAP and
// MMAP2 records describe them: each process's name and the files mapped
// into it, so that a sample's pid and ip give a module and an offset.
//
// Thread safety: a ProcessTable is not thread-safe, not even its const lookups (they cache the last
// process found): one per thread.

#include <cstdint>        // std::uint32_t, std::uint64_t
#include <map>            // std::map
#include <memory>         // std::shared_ptr
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <unordered_map>  // by pid
#include <vector>         // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/perf_data_reader.hpp>  // CommRecord, MmapRecord, TaskRecord

namespace tagop TAGOP_API {

/// A file as the capture saw it; mappings of the same file share it.
struct MappedModule {
  std::string filename;
  std::string build_id;  ///< lowercase hex from MMAP2 or HEADER_BUILD_ID, "" unknown
  bool kernel = false;
  /// The kernel's map only: the symbol its MMAP record names after
  /// "[kernel.kallsyms]" ("_text") and that symbol's address when the
  /// capture was recorded (the record's pgoff), perf's ref_reloc_sym: a
  /// kernel laid out elsewhere (another boot's KASLR) is moved by it.
  /// "" and 0 when the capture does not say.
  std::string reloc_symbol{};
  std::uint64_t reloc_address = 0;  ///< see reloc_symbol
};

struct Mapping {
  std::uint64_t start = 0, len = 0, pgoff = 0;
  std::uint32_t module = 0;  ///< index into ProcessTable::modules()
  /// The offset in the file of an address inside the mapping.
  std::uint64_t file_offset(std::uint64_t ip) const { return ip - start + pgoff; }
};

class ProcessTable {
 public:
  /// Build-ids from HEADER_BUILD_ID, for files whose MMAP records lack them.
  void add_build_ids(const std::vector<perf_data::BuildIdEntry>& ids);

  void comm(const perf_data::CommRecord& r);
  void mmap(const perf_data::MmapRecord& r);
  void task(const perf_data::TaskRecord& r);

  /// The process's name, "" when the capture never named it.
  std::string_view comm_of(std::uint32_t pid) const;
  /// The mapping that holds `ip` in process `pid` (or in the kernel), or
  /// nullptr.
  const Mapping* find(std::uint32_t pid, std::uint64_t ip) const;
  const std::vector<MappedModule>& modules() const { return modules_; }

 private:
  using MapSet = std::map<std::uint64_t, Mapping>;  ///< by start
  static const Mapping* find_in(const MapSet& maps, std::uint64_t ip);
  std::uint32_t module_of(std::string_view filename, std::string_view build_id, bool kernel);
  MapSet& own_maps(std::uint32_t pid);

  std::unordered_map<std::uint32_t, std::string> comms_;
  // Shared between a parent and the children it forked until one maps more.
  std::unordered_map<std::uint32_t, std::shared_ptr<MapSet>> maps_;
  MapSet kernel_maps_;
  std::vector<MappedModule> modules_;
  std::map<std::pair<std::string, std::string>, std::uint32_t> module_index_;
  std::unordered_map<std::string, std::string> header_build_ids_;  ///< filename -> id
  // The last answer: consecutive samples mostly hit the same mapping.
  mutable std::uint32_t last_pid_ = 0;
  mutable const Mapping* last_ = nullptr;
};

}  // namespace tagop
