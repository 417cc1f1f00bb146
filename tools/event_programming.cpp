#include "event_programming.hpp"

#include <tagop/error.hpp>     // Error
#include <tagop/registry.hpp>  // Registry

namespace tagop::cli {

EntryProgramming program_entry(const EventEntry& e, std::string_view spelled) {
  const Registry& registry = Registry::builtin();
  EntryProgramming out;
  try {
    out.request = registry.program_command(e, spelled);
    out.programming = registry.program(e, spelled);
  } catch (const Error& error) {
    out.refused = error.what();
  }
  return out;
}

}  // namespace tagop::cli
