#include "frame_names.hpp"

#include <fmt/format.h>  // fmt::format

namespace tagop::profiles::detail {

namespace {

std::string file_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string address_name(const Profile& profile, const Location& location) {
  if (location.mapping) {
    const Mapping& m = profile.mappings()[*location.mapping];
    if (location.address < m.start) return file_name(m.path);  // a location that is the whole module
    return fmt::format("{}+0x{:x}", file_name(m.path), location.address - m.start + m.file_offset);
  }
  if (location.address != 0) return fmt::format("0x{:x}", location.address);
  return "[unknown]";
}

}  // namespace

std::vector<std::string> frame_names(const Profile& profile, const Location& location) {
  std::vector<std::string> names;
  for (auto f = location.frames.rbegin(); f != location.frames.rend(); ++f)
    if (!f->function.empty()) names.push_back(f->function);
  if (names.empty()) names.push_back(address_name(profile, location));
  return names;
}

std::vector<std::vector<std::string>> all_frame_names(const Profile& profile) {
  std::vector<std::vector<std::string>> names;
  names.reserve(profile.locations().size());
  for (const Location& l : profile.locations()) names.push_back(frame_names(profile, l));
  return names;
}

}  // namespace tagop::profiles::detail
