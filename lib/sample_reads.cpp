#include <tagop/sample_reads.hpp>

#include <algorithm>  // std::min
#include <cstring>    // std::memcpy

namespace tagop::perf_data {

SampleReads::SampleReads(const FileInfo& info) {
  for (std::uint32_t event = 0; event < info.attrs.size(); ++event) {
    const EventAttr& a = info.attrs[event];
    reads_.push_back((a.attr.sample_type & PERF_SAMPLE_READ) != 0);
    for (std::uint64_t id : a.ids) by_id_.try_emplace(id, Counter{event, 0});
  }
}

std::span<const ReadShare> SampleReads::shares(const SampleRecord& r) {
  shares_.clear();
  const std::uint64_t format = r.attr->attr.read_format;
  const std::size_t count = r.read.size() / 8;
  const auto u64 = [&](std::size_t i) {
    std::uint64_t v = 0;
    if (i < count) std::memcpy(&v, r.read.data() + i * 8, 8);
    return v;
  };
  const std::size_t times = ((format & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 1 : 0) +
                            ((format & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 1 : 0);
  const bool has_id = format & PERF_FORMAT_ID;
  const std::size_t per_value = 1 + (has_id ? 1 : 0) + ((format & PERF_FORMAT_LOST) ? 1 : 0);
  // A group: nr, the times, then {value, id, lost} per member; one counter:
  // value, the times, id, lost.
  const bool group = format & PERF_FORMAT_GROUP;
  const std::size_t values = group ? static_cast<std::size_t>(std::min<std::uint64_t>(u64(0), count)) : 1;
  for (std::size_t v = 0; v < values; ++v) {
    const std::size_t at = group ? 1 + times + v * per_value : 0;
    if (at + per_value > count) break;  // the reader checked the sizes: not reached
    const std::uint64_t value = u64(at);
    const std::uint64_t id = has_id ? u64(group ? at + 1 : 1 + times) : 0;
    const auto it = has_id ? by_id_.find(id) : by_id_.end();
    if (it == by_id_.end()) {
      ++unknown_;
      continue;
    }
    Counter& c = it->second;
    const std::uint64_t moved = value - c.last;
    c.last = value;
    if (moved) shares_.push_back({c.event, moved});
  }
  return shares_;
}

}  // namespace tagop::perf_data
