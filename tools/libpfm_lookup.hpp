#pragma once
// Events beyond tagop's own tables: any event of any PMU libpfm4 knows,
// whether or not this machine has that PMU.

#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace tagop::cli {

struct LibpfmAttribute {
  std::string name;
  std::string kind;  // "umask", "modifier"
  std::uint64_t code = 0;
  bool is_default = false;
  bool precise = false;
  std::string description;
};

struct LibpfmEvent {
  std::string pmu;        // "skl"
  std::string pmu_title;  // "Intel Skylake"
  std::string name;       // "INST_RETIRED"
  std::uint64_t code = 0;
  bool precise = false;
  std::string description;
  std::vector<LibpfmAttribute> attributes;
  /// The whole name's encoding (event select | umask << 8 ...), where
  /// libpfm4 can encode it.
  std::optional<std::uint64_t> encoding;
};

/// The event libpfm4 finds for `name` ("skl::INST_RETIRED:ANY_P",
/// "INST_RETIRED" on this machine's PMUs), or nothing.
std::optional<LibpfmEvent> libpfm_find(std::string_view name);

}  // namespace tagop::cli
