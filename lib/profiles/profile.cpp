#include <tagop/profiles/profile.hpp>

#include <cmath>       // std::isfinite
#include <functional>  // std::hash
#include <limits>      // std::numeric_limits

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // tagop::Error

namespace tagop::profiles {

namespace {

enum : std::uint8_t { has_pid = 1, has_tid = 2, has_cpu = 4 };

void mix(std::size_t& seed, std::size_t value) { seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2); }

std::size_t hash_of(const Location& location) {
  std::size_t seed = std::hash<std::uint64_t>{}(location.address);
  mix(seed, location.mapping ? *location.mapping + 1 : 0);
  for (const Frame& f : location.frames) {
    mix(seed, std::hash<std::string>{}(f.function));
    mix(seed, std::hash<std::string>{}(f.system_name));
    mix(seed, std::hash<std::string>{}(f.file));
    mix(seed, std::hash<std::int64_t>{}(f.line));
  }
  return seed;
}

std::uint32_t checked_u32(std::size_t n, const char* what) {
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw Error(fmt::format("profile: more than 2^32 {} (a profile holds at most 4294967295)", what));
  return static_cast<std::uint32_t>(n);
}

}  // namespace

Profile::Profile(std::vector<SampleType> sample_types) : sample_types_(std::move(sample_types)) {
  if (sample_types_.empty()) throw Error("profile: no sample types (a profile needs at least one, e.g. samples/count)");
  for (const SampleType& t : sample_types_) {
    if (t.name.empty() || t.unit.empty())
      throw Error("profile: a sample type needs a name and a unit (e.g. ibs_dc_miss/count)");
    if (!std::isfinite(t.period) || t.period <= 0)
      throw Error(fmt::format("profile: sample type {}/{} has period {}; a period is a positive number", t.name,
                              t.unit, t.period));
  }
}

MappingId Profile::add_mapping(const Mapping& mapping) {
  // Profiles have a handful of mappings: a linear search is the cheapest index.
  for (std::size_t i = 0; i < mappings_.size(); ++i)
    if (mappings_[i] == mapping) return static_cast<MappingId>(i);
  if (mapping.limit < mapping.start)
    throw Error(fmt::format("profile: mapping {} ends (0x{:x}) before it starts (0x{:x})", mapping.path,
                            mapping.limit, mapping.start));
  mappings_.push_back(mapping);
  return checked_u32(mappings_.size() - 1, "mappings");
}

LocationId Profile::add_location(const Location& location) {
  if (location.mapping && *location.mapping >= mappings_.size())
    throw Error(fmt::format("profile: location 0x{:x} names mapping {}, but the profile has {} mappings",
                            location.address, *location.mapping, mappings_.size()));
  const std::size_t hash = hash_of(location);
  auto [first, last] = location_by_hash_.equal_range(hash);
  for (auto it = first; it != last; ++it)
    if (locations_[it->second] == location) return it->second;
  const LocationId id = checked_u32(locations_.size(), "locations");
  locations_.push_back(location);
  location_by_hash_.emplace(hash, id);
  return id;
}

void Profile::add_sample(std::span<const std::int64_t> values, std::span<const LocationId> stack,
                         const Labels& labels) {
  if (values.size() != sample_types_.size())
    throw Error(fmt::format("profile: sample {} has {} values, but the profile has {} sample types", samples_.size(),
                            values.size(), sample_types_.size()));
  for (LocationId id : stack)
    if (id >= locations_.size())
      throw Error(fmt::format("profile: sample {} names location {}, but the profile has {} locations",
                              samples_.size(), id, locations_.size()));
  StoredSample s;
  s.first_frame = checked_u32(frames_.size(), "stack entries");
  s.frame_count = checked_u32(stack.size(), "stack entries");
  checked_u32(frames_.size() + stack.size(), "stack entries");
  if (labels.pid) s.pid = *labels.pid, s.present |= has_pid;
  if (labels.tid) s.tid = *labels.tid, s.present |= has_tid;
  if (labels.cpu) s.cpu = *labels.cpu, s.present |= has_cpu;
  if (!labels.comm.empty()) {
    auto [it, added] = comm_ids_.try_emplace(std::string(labels.comm), static_cast<std::uint32_t>(comms_.size()));
    if (added) comms_.emplace_back(labels.comm);
    s.comm = it->second;
  }
  values_.insert(values_.end(), values.begin(), values.end());
  frames_.insert(frames_.end(), stack.begin(), stack.end());
  samples_.push_back(s);
}

SampleView Profile::sample(std::size_t index) const {
  const StoredSample& s = samples_.at(index);
  const std::size_t types = sample_types_.size();
  SampleView view{{values_.data() + index * types, types}, {frames_.data() + s.first_frame, s.frame_count}, {}};
  if (s.present & has_pid) view.labels.pid = s.pid;
  if (s.present & has_tid) view.labels.tid = s.tid;
  if (s.present & has_cpu) view.labels.cpu = s.cpu;
  view.labels.comm = comms_[s.comm];
  return view;
}

std::int64_t Profile::exported_total(std::size_t type) const {
  std::int64_t total = 0;
  for (std::size_t i = 0; i < samples_.size(); ++i) total = saturating_add(total, exported_value(i, type));
  return total;
}

}  // namespace tagop::profiles
