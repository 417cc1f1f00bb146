#pragma once
// The data objects of one ELF module: its OBJECT symbols (globals and
// statics of .data, .bss, .rodata; not TLS, whose values are no addresses), by the file offsets that perf's
// MMAP records give a data address (address - start + pgoff), so that a
// report --by data names the object a sample's data address falls in, as
// perf mem report's symbol_daddr does. Internal to the report.

#include <cstdint>  // std::uint32_t, std::uint64_t
#include <memory>   // std::unique_ptr
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

namespace tagop::report {

class DataObjects {
 public:
  static constexpr std::uint32_t none = 0xFFFFFFFFu;
  /// The objects of the ELF file at `path`. Throws tagop::Error when it
  /// cannot be read, or is no ELF file.
  static std::unique_ptr<DataObjects> open(const std::string& path);

  /// For each of `offsets` (ascending), the object that holds it: an index
  /// for name() and start(), or none.
  void find(std::span<const std::uint64_t> offsets, std::span<std::uint32_t> out) const;
  const std::string& name(std::uint32_t object) const { return objects_[object].name; }
  /// Where the object starts, as a file offset of the kind find() takes.
  std::uint64_t start(std::uint32_t object) const { return objects_[object].start; }
  std::size_t size() const { return objects_.size(); }

 private:
  struct Object {
    std::uint64_t start = 0, end = 0;  // file offsets: [start, end)
    std::string name;
  };
  std::vector<Object> objects_;  // by start
};

}  // namespace tagop::report
