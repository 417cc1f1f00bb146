#pragma once
// The code of the traced process: its executable mappings (as the trace
// tells them, or from /proc/PID/maps, read again whenever the trace reaches
// an address outside the known ones) and each instruction's bytes (from the
// mapped file, or /proc/PID/mem for anonymous code), decoded once per
// address.
// Not thread-safe: a ProcessCode caches what it reads and decodes, for one
// thread.

#include <sys/types.h>  // pid_t

#include <cstdint>        // std::uint64_t
#include <memory>         // std::unique_ptr
#include <string>         // std::string
#include <unordered_map>  // instructions by address
#include <vector>         // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/emulate/instruction.hpp>  // InstructionInfo, InstructionClassifier

namespace tagop TAGOP_API {
namespace emulate {

struct CodeMapping {
  std::uint64_t start = 0, end = 0, pgoff = 0;
  std::string path;  ///< "" for anonymous code
};

class ProcessCode {
 public:
  /// `maps_path` and `mem_path` default to /proc/PID/maps and /proc/PID/mem.
  explicit ProcessCode(pid_t pid);
  ProcessCode(std::string maps_path, std::string mem_path);
  ~ProcessCode();

  /// The instruction at `ip`, decoded on first sight.
  const InstructionInfo& instruction(std::uint64_t ip) {
    Slot& s = recent_[(ip ^ (ip >> 16)) & (recent_size - 1)];
    if (s.ip != ip + 1) {
      s.ip = ip + 1;
      s.info = lookup(ip);
    }
    return s.info;
  }

  /// An executable mapping the trace told of (tagop's Valgrind tool sees
  /// every mmap): it replaces what it overlaps, and /proc/PID/maps is then
  /// asked only for addresses outside every told mapping (so that a
  /// process that has exited, or exec'd another program, is still decoded
  /// from its own files).
  void add_mapping(const CodeMapping& mapping);
  /// The executable mappings known, in address order.
  const std::vector<CodeMapping>& mappings() const { return mappings_; }

  /// Executable file mappings found since the last call, in address order
  /// (for the captures' MMAP2 records).
  std::vector<CodeMapping> take_new_mappings();
  /// Whether take_new_mappings has any (a check per instruction, cheaper than the call).
  bool has_new_mappings() const { return !new_mappings_.empty(); }
  /// Addresses whose bytes could not be read or decoded.
  std::uint64_t unresolved() const { return unresolved_; }
  std::uint64_t distinct_instructions() const { return decoded_.size(); }

 private:
  struct Slot {
    std::uint64_t ip = 0;  ///< ip + 1; 0 is empty
    InstructionInfo info;
  };
  static constexpr std::size_t recent_size = std::size_t{1} << 15;
  struct MappedFile;

  InstructionInfo lookup(std::uint64_t ip);
  const CodeMapping* mapping_of(std::uint64_t ip) const;
  void read_maps();
  bool read_bytes(const CodeMapping& m, std::uint64_t ip, std::uint8_t (&out)[16], std::size_t& got);

  std::string maps_path_, mem_path_;
  int mem_fd_ = -1;
  bool told_ = false;  ///< mappings come from the trace (add_mapping)
  std::vector<CodeMapping> mappings_;  ///< sorted by start
  std::vector<CodeMapping> new_mappings_;
  std::unordered_map<std::string, std::unique_ptr<MappedFile>> files_;
  std::unordered_map<std::uint64_t, InstructionInfo> decoded_;
  std::vector<Slot> recent_;
  InstructionClassifier classifier_;
  std::uint64_t unresolved_ = 0;
};

}  // namespace emulate
}  // namespace tagop
