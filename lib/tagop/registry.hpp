#pragma once
// Where backends make themselves known. The core never includes a backend;
// backends add themselves here (see backends/registry.cpp) and tools and
// users ask the registry.

#include <functional>   // std::function
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/event.hpp>  // EventEntry

namespace tagop {

struct BackendInfo {
  std::string_view name;   // "amd-ibs"
  std::string_view title;  // "AMD Instruction-Based Sampling"
  Mechanism mechanism;
  /// The backend's events, in table order.
  std::function<std::span<const EventEntry>()> events;
};

class Registry {
 public:
  /// The process-wide registry, with every built-in backend already added.
  static Registry& builtin();

  void add(BackendInfo backend);
  std::span<const BackendInfo> backends() const { return backends_; }
  /// nullptr when there is no backend of that name.
  const BackendInfo* find(std::string_view name) const;

 private:
  std::vector<BackendInfo> backends_;
};

/// Adds every backend compiled into the library; defined in backends/.
void register_builtin_backends(Registry& registry);

}  // namespace tagop
