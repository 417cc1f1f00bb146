#include <tagop/profiles/folded.hpp>

#include <algorithm>      // std::sort
#include <ostream>        // std::ostream
#include <unordered_map>  // stacks by name
#include <utility>        // std::pair
#include <vector>         // std::vector

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // tagop::Error
#include <tagop/text.hpp>   // printable

#include "frame_names.hpp"

namespace tagop::profiles {

std::string folded_frame(std::string_view name) {
  if (name.empty()) return "[unknown]";
  std::string out(name);
  for (char& c : out) {
    if (c == ';') c = ':';
    else if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return printable(out);
}

namespace {

/// Each location's part of a folded stack, "caller;inlined", ready to join.
std::vector<std::string> folded_locations(const Profile& profile) {
  std::vector<std::string> parts;
  parts.reserve(profile.locations().size());
  for (const auto& names : detail::all_frame_names(profile)) {
    std::string part;
    for (const std::string& name : names) {
      if (!part.empty()) part += ';';
      part += folded_frame(name);
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace

void write_folded(const Profile& profile, std::ostream& out, const FoldedOptions& options) {
  if (options.sample_type >= profile.sample_types().size())
    throw Error(fmt::format("folded: sample type {} is not one of the profile's {} sample types",
                            options.sample_type, profile.sample_types().size()));
  const std::vector<std::string> parts = folded_locations(profile);
  std::unordered_map<std::string, std::int64_t> totals;
  std::string stack;
  for (std::size_t i = 0; i < profile.sample_count(); ++i) {
    const std::int64_t value = profile.exported_value(i, options.sample_type);
    if (value == 0) continue;
    const SampleView s = profile.sample(i);
    stack.clear();
    if (options.process_root) stack = folded_frame(s.labels.comm);
    for (auto id = s.stack.rbegin(); id != s.stack.rend(); ++id) {
      if (!stack.empty()) stack += ';';
      stack += parts[*id];
    }
    if (stack.empty()) stack = "[unknown]";
    std::int64_t& total = totals[stack];
    total = saturating_add(total, value);
  }
  std::vector<std::pair<std::string, std::int64_t>> sorted(totals.begin(), totals.end());
  std::sort(sorted.begin(), sorted.end());
  std::string buffer;
  for (const auto& [name, total] : sorted) {
    if (total == 0) continue;
    buffer += name;
    buffer += ' ';
    buffer += fmt::format("{}\n", total);
    if (buffer.size() > (1 << 16)) out.write(buffer.data(), static_cast<std::streamsize>(buffer.size())), buffer.clear();
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  if (!out.flush()) throw Error("folded: writing the stacks failed (the output stream reported an error)");
}

}  // namespace tagop::profiles
