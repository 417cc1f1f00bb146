#include <tagop/intel_p4/backend.hpp>

#include <cctype>  // std::tolower

#include <fmt/format.h>  // fmt::format

#include <tagop/intel_p4/programmer.hpp>  // program
#include <tagop/intel_p4/tables.hpp>      // event_entries

namespace tagop::intel_p4 {

namespace {

bool starts_with_ignoring_case(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

// The P4 name with the mask bits the user gave (netburst::replay_event:NBOGUS), if any.
std::string name_as_spelled(const EventEntry& e, std::string_view spelled) {
  if (spelled.starts_with("netburst::")) spelled.remove_prefix(10);
  if (starts_with_ignoring_case(spelled, e.name) && spelled.size() > e.name.size() && spelled[e.name.size()] == ':')
    return std::string(spelled);
  return std::string(e.name);
}

Programming program_entry(const EventEntry& e, std::string_view spelled, const ProgramOptions& o) {
  P4Request request;
  request.events.push_back({.name = name_as_spelled(e, spelled), .pebs = false});
  request.exclude_user = o.exclude_user;
  request.exclude_kernel = o.exclude_kernel;
  request.period = o.period;
  return program(request);
}

std::string program_command(const EventEntry& e, std::string_view spelled) {
  return fmt::format("tagop program p4 {}", name_as_spelled(e, spelled));
}

}  // namespace

void register_backend(Registry& registry) {
  registry.add(BackendInfo{
      .name = "p4",
      .title = "Intel Pentium 4 (NetBurst) at-retirement tagging",
      .mechanism = Mechanism::at_retirement_tagging,
      .events = [] { return event_entries(); },
      .program = program_entry,
      .program_command = program_command,
      .tables_for =
          [](const CpuId& cpu) {
            return cpu.vendor == "GenuineIntel" && cpu.family == 0xF
                       ? std::string("Pentium 4 ESCR/CCCR events and at-retirement metrics (SDM Tables 19-31 to 19-33)")
                       : std::string();
          },
  });
}

}  // namespace tagop::intel_p4
