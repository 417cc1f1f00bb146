#include <tagop/perf_data_reader.hpp>

#include <fcntl.h>     // open
#include <sys/mman.h>  // mmap, madvise
#include <sys/stat.h>  // fstat
#include <unistd.h>    // close

#include <algorithm>  // std::min, std::minmax_element
#include <unordered_set>  // FileInfo::event_names
#include <cerrno>     // errno
#include <cstring>    // std::memcpy, std::strerror
#include <iterator>   // std::prev
#include <map>        // std::map

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>        // Error
#include <tagop/page_keeper.hpp>  // PageKeeper

#include "perf_data_reader_guard.hpp"  // ShrinkGuard

namespace tagop::perf_data {

namespace {

template <typename T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string hex_bytes(std::span<const std::byte> bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::byte b : bytes) out += fmt::format("{:02x}", static_cast<unsigned>(b));
  return out;
}

// The string in `region` up to its first NUL (or all of it).
std::string_view c_string(std::span<const std::byte> region) {
  const char* p = reinterpret_cast<const char*>(region.data());
  std::size_t n = 0;
  while (n < region.size() && p[n] != '\0') ++n;
  return {p, n};
}

bool in_bounds(std::uint64_t offset, std::uint64_t size, std::uint64_t total) {
  return offset <= total && size <= total - offset;
}

// A feature section's bytes, read with bounds: a perf_header_string is a
// u32 length and that many bytes (NUL-padded).
class FeatureCursor {
 public:
  explicit FeatureCursor(std::span<const std::byte> bytes) : bytes_(bytes) {}
  bool u32(std::uint32_t& out) {
    if (bytes_.size() - at_ < 4) return false;
    out = load<std::uint32_t>(bytes_.data() + at_);
    at_ += 4;
    return true;
  }
  bool u64(std::uint64_t& out) {
    if (bytes_.size() - at_ < 8) return false;
    out = load<std::uint64_t>(bytes_.data() + at_);
    at_ += 8;
    return true;
  }
  bool bytes(std::size_t n, std::span<const std::byte>& out) {
    if (bytes_.size() - at_ < n) return false;
    out = bytes_.subspan(at_, n);
    at_ += n;
    return true;
  }
  bool string(std::string& out) {
    std::uint32_t len = 0;
    std::span<const std::byte> s;
    if (!u32(len) || !bytes(len, s)) return false;
    out = std::string(c_string(s));
    return true;
  }

 private:
  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
};

// The id lists of the events, where the attribute section says they are.
// perf writes them between the header and the attribute section, one after
// another; a list must lie in the file, outside the header, the attribute
// section and the data section, and in no other list's bytes, or it is
// refused (its event keeps no ids, and its samples cannot name it). So all
// the ids together take at most the file's size: without the rule, every
// event's list could be the whole file, and a 1 MB file take gigabytes.
class IdLists {
 public:
  explicit IdLists(const FileInfo& info) : info_(info) {}

  /// Whether event `event`'s list may be read.
  bool take(std::uint64_t event, const FileSection& ids) {
    const char* problem = nullptr;
    const std::uint64_t file = info_.file_size;
    const FileHeader& h = info_.header;
    const std::uint64_t data_end = h.data.size ? h.data.offset + h.data.size : file;  // 0: to the end
    if (ids.size % 8 != 0) problem = "is not a whole number of ids";
    else if (!in_bounds(ids.offset, ids.size, file)) problem = "is outside the file";
    else if (ids.size == 0) return true;
    else if (ids.offset < h.size) problem = "overlaps the file header";
    else if (overlaps(ids, h.attrs.offset, h.attrs.offset + h.attrs.size)) problem = "overlaps the attribute section";
    else if (overlaps(ids, h.data.offset, data_end)) problem = "overlaps the data section";
    else if (overlaps_taken(ids)) problem = "overlaps the id list of another event";
    if (!problem) {
      taken_.emplace(ids.offset, ids.offset + ids.size);
      return true;
    }
    if (refused_++ == 0)
      first_ = fmt::format("event {}'s at offset {}, {} bytes, {}", event, ids.offset, ids.size, problem);
    return false;
  }

  /// One warning for every list refused.
  void warn(std::vector<std::string>& warnings) const {
    if (refused_)
      warnings.push_back(fmt::format("{} id list{} where perf never puts one, refused (the first, {}): samples "
                                     "cannot name {} event{}",
                                     refused_, refused_ == 1 ? " lies" : "s lie", first_, refused_ == 1 ? "its" : "their",
                                     refused_ == 1 ? "" : "s"));
  }

 private:
  static bool overlaps(const FileSection& s, std::uint64_t begin, std::uint64_t end) {
    return s.offset < end && begin < s.offset + s.size;
  }
  bool overlaps_taken(const FileSection& s) const {
    // The taken list that starts last before s ends.
    auto after = taken_.lower_bound(s.offset + s.size);
    return after != taken_.begin() && std::prev(after)->second > s.offset;
  }

  const FileInfo& info_;
  std::map<std::uint64_t, std::uint64_t> taken_;  // begin -> end, none overlapping
  std::uint64_t refused_ = 0;
  std::string first_;
};

constexpr const char* compressed_advice = "decompress with 'perf inject -i IN -o OUT'";

}  // namespace

void Skipped::add(std::uint64_t offset, std::string_view reason) {
  if (count++ == 0) {
    first_offset = offset;
    first_reason = std::string(reason);
  }
}

void Skipped::merge(const Skipped& o) {
  if (o.count == 0) return;
  if (count == 0 || o.first_offset < first_offset) {
    first_offset = o.first_offset;
    first_reason = o.first_reason;
  }
  count += o.count;
}

std::optional<std::uint32_t> FileInfo::pmu_type(std::string_view name) const {
  for (const PmuMapping& m : pmu_mappings)
    if (m.name == name) return m.type;
  return std::nullopt;
}

std::vector<std::string> FileInfo::event_names() const {
  std::vector<std::string> names;
  std::unordered_set<std::string> taken;
  std::unordered_map<std::string, unsigned> next;  // the suffix to try next, by name
  for (const EventAttr& a : attrs) {
    const std::string name =
        a.name.empty() ? fmt::format("type {} config {:#x}", a.attr.type, a.attr.config) : a.name;
    std::string unique = name;
    for (unsigned& n = next.try_emplace(name, 2).first->second; !taken.insert(unique).second; ++n)
      unique = fmt::format("{}#{}", name, n);
    names.push_back(std::move(unique));
  }
  return names;
}

bool FileInfo::timed() const {
  for (const EventAttr& a : attrs)
    if (!a.attr.sample_id_all || !(a.attr.sample_type & PERF_SAMPLE_TIME)) return false;
  return !attrs.empty();
}

struct PerfDataReader::Mapping {
  void* address = nullptr;
  std::size_t size = 0;
  std::uint64_t keep_behind = 0;  // keep_behind(): kept here, PerfDataReader's layout is the ABI's
  int fd = -1;  // kept open: its size now, should the file shrink
  std::optional<ShrinkGuard> guard;
  ~Mapping() {
    guard.reset();
    if (address) munmap(address, size);
    if (fd >= 0) ::close(fd);
  }
};

PerfDataReader::PerfDataReader(const std::string& path) : mapping_(std::make_unique<Mapping>()) {
  info_.path = path;
  // Without blocking: a FIFO's open would wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error(ErrorCode::io, fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  mapping_->fd = fd;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(ErrorCode::io, fmt::format("{}: not a regular file (a pipe? record to a file, or 'perf inject -i - -o FILE')", path));
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size > 0) {
    void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) throw Error(ErrorCode::io, fmt::format("{}: cannot map: {}", path, std::strerror(errno)));
    mapping_->address = p;
    mapping_->size = size;
    mapping_->guard.emplace(static_cast<const std::byte*>(p), size);
    madvise(p, size, MADV_SEQUENTIAL);
  }
  bytes_ = {static_cast<const std::byte*>(mapping_->address), size};
  parse_header();
}

PerfDataReader::PerfDataReader(std::span<const std::byte> bytes, std::string name) : bytes_(bytes) {
  info_.path = std::move(name);
  parse_header();
}

PerfDataReader::~PerfDataReader() = default;
PerfDataReader::PerfDataReader(PerfDataReader&&) noexcept = default;
PerfDataReader& PerfDataReader::operator=(PerfDataReader&&) noexcept = default;

void PerfDataReader::parse_header() {
  const std::string& path = info_.path;
  info_.file_size = bytes_.size();
  if (bytes_.size() < 16)
    throw Error(ErrorCode::damaged, fmt::format("{}: {} bytes is too short to be perf.data (its header alone is 104 bytes)", path,
                            bytes_.size()));
  const auto magic = load<std::uint64_t>(bytes_.data());
  const auto header_size = load<std::uint64_t>(bytes_.data() + 8);
  if (magic == file_magic_swapped)
    throw Error(ErrorCode::not_supported, fmt::format("{}: perf.data from a big-endian machine (magic 'PERFILE2' byte-swapped): tagop reads "
                            "only little-endian files; convert it on a machine of that byte order with "
                            "'perf inject -i IN -o OUT' there, or read it with 'perf script'",
                            path));
  if (std::memcmp(bytes_.data(), "PERFFILE", 8) == 0)
    throw Error(ErrorCode::not_supported, fmt::format("{}: perf.data version 1 ('PERFFILE', perf before 2010) is not supported", path));
  if (magic != file_magic) throw Error(ErrorCode::damaged, fmt::format("{}: not a perf.data file (it does not start with 'PERFILE2')", path));
  if (header_size == pipe_header_size)
    throw Error(ErrorCode::not_supported, fmt::format("{}: piped perf.data is not supported: record to a file, or 'perf inject -i - -o FILE'",
                            path));
  // Headers from before feature bits existed stop where the bits start.
  constexpr std::uint64_t old_header_size = offsetof(FileHeader, features);
  if (header_size != sizeof(FileHeader) && header_size != old_header_size)
    throw Error(ErrorCode::damaged, fmt::format("{}: header size {} is neither {} nor {}: not a perf.data file tagop knows", path,
                            header_size, sizeof(FileHeader), old_header_size));
  if (bytes_.size() < header_size)
    throw Error(ErrorCode::damaged, fmt::format("{}: the file ends at {} bytes, inside its {}-byte header", path, bytes_.size(),
                            header_size));
  std::memcpy(&info_.header, bytes_.data(), header_size);
  if (info_.has_feature(feature_compressed))
    throw Error(ErrorCode::not_supported, fmt::format("{}: compressed perf.data (perf record -z) is not supported: {}", path,
                            compressed_advice));
  parse_attrs();
  parse_features();
}

void PerfDataReader::parse_attrs() {
  const FileHeader& h = info_.header;
  const std::string& path = info_.path;
  constexpr std::uint64_t section = sizeof(FileSection);
  if (h.attr_size < PERF_ATTR_SIZE_VER0 + section || h.attr_size > 4096)
    throw Error(ErrorCode::damaged, fmt::format("{}: attribute entries of {} bytes cannot hold a perf_event_attr and its ids", path,
                            h.attr_size));
  if (!in_bounds(h.attrs.offset, h.attrs.size, bytes_.size()))
    throw Error(ErrorCode::damaged, fmt::format("{}: the attribute section (offset {}, {} bytes) runs past the end of the {}-byte file: "
                            "the file is truncated",
                            path, h.attrs.offset, h.attrs.size, bytes_.size()));
  const std::uint64_t count = h.attrs.size / h.attr_size;
  if (count == 0) throw Error(ErrorCode::damaged, fmt::format("{}: no event attributes: nothing was recorded", path));
  IdLists id_lists(info_);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::byte* entry = bytes_.data() + h.attrs.offset + i * h.attr_size;
    EventAttr a;
    std::uint32_t size = load<std::uint32_t>(entry + offsetof(perf_event_attr, size));
    if (size == 0) size = PERF_ATTR_SIZE_VER0;
    const std::uint64_t room = h.attr_size - section;
    std::memcpy(&a.attr, entry, std::min<std::uint64_t>({size, room, sizeof(perf_event_attr)}));
    const auto ids = load<FileSection>(entry + room);
    if (id_lists.take(i, ids))
      for (std::uint64_t at = 0; at < ids.size; at += 8)
        a.ids.push_back(load<std::uint64_t>(bytes_.data() + ids.offset + at));
    info_.attrs.push_back(std::move(a));
  }
  id_lists.warn(info_.warnings);
  for (std::uint32_t i = 0; i < info_.attrs.size(); ++i)
    for (std::uint64_t id : info_.attrs[i].ids) attr_by_id_.emplace(id, i);
  // The kernel numbers the ids of one capture close together: a table by
  // id - min, when the range is small, finds a sample's event without a
  // search (a scan, with fetch and op samples at random, mispredicts).
  if (!attr_by_id_.empty()) {
    const auto [lo, hi] = std::minmax_element(attr_by_id_.begin(), attr_by_id_.end());
    if (hi->first - lo->first < dense_id_limit) {
      dense_id_base_ = lo->first;
      attr_by_dense_id_.assign(hi->first - lo->first + 1, 0);
      for (const auto& [id, index] : attr_by_id_) attr_by_dense_id_[id - dense_id_base_] = index + 1;
      dense_ids_ = attr_by_dense_id_.size();
    }
  }

  // Where a sample names its event (perf's evlist__valid_sample_type).
  if (info_.attrs.size() == 1) return;
  bool identifier = true, id = true;
  const std::uint64_t before_id = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
  const std::uint64_t first = info_.attrs[0].attr.sample_type;
  for (const EventAttr& a : info_.attrs) {
    identifier = identifier && (a.attr.sample_type & PERF_SAMPLE_IDENTIFIER);
    id = id && (a.attr.sample_type & PERF_SAMPLE_ID) && (a.attr.sample_type & before_id) == (first & before_id);
  }
  if (identifier) {
    id_position_ = IdPosition::identifier;
  } else if (id) {
    id_position_ = IdPosition::fixed;
    id_offset_ = 8 * static_cast<std::size_t>(__builtin_popcountll(first & before_id));
  } else {
    info_.warnings.push_back(
        "the events' sample_types do not say where a sample names its event (no IDENTIFIER, no common ID "
        "position): every sample is read as the first event's");
  }
}

void PerfDataReader::parse_features() {
  const FileHeader& h = info_.header;
  // The index of sections follows the data, one per feature bit set, in
  // bit order; perf writes the sections after it.
  const std::uint64_t index = h.data.offset + h.data.size;
  std::vector<unsigned> bits;
  for (unsigned bit = 0; bit < feature_bits; ++bit)
    if (info_.has_feature(bit)) bits.push_back(bit);
  if (bits.empty()) return;
  const std::uint64_t index_size = bits.size() * sizeof(FileSection);
  auto all_damaged = [&] {
    for (unsigned bit : bits)
      if (bit) info_.damaged_features.push_back(bit);
  };
  if (index < h.data.offset || !in_bounds(index, index_size, bytes_.size())) {
    info_.warnings.push_back(fmt::format("the feature sections are missing (the index at offset {} is past the "
                                         "end of the {}-byte file): the file is truncated",
                                         index, bytes_.size()));
    all_damaged();
    return;
  }
  std::vector<FileSection> sections(bits.size());
  std::memcpy(sections.data(), bytes_.data() + index, index_size);
  // perf writes the sections one after another from the end of an index
  // sized for the features it meant to write; one whose writer failed
  // loses its bit and its entry but not its room (perf_header__adds_write),
  // so whole unused entries may lie between. A first section anywhere else
  // says that the index is not where the header puts it (a wrong data
  // size), and that no section of it can be trusted.
  std::uint64_t first = ~std::uint64_t{0};
  for (const FileSection& sec : sections)
    if (sec.size) first = std::min(first, sec.offset);
  const std::uint64_t room = first - (index + index_size);
  if (first != ~std::uint64_t{0} &&
      (first < index + index_size || room % sizeof(FileSection) || room / sizeof(FileSection) >= feature_bits)) {
    info_.warnings.push_back(fmt::format(
        "{}: the feature index at offset {} (the data section's offset {} plus its size {}) does not point at the "
        "features: its first section would start at offset {}, not right after it at {}; the header's data size is "
        "likely wrong, and every feature (CPU id, PMU names, build-ids ...) is ignored",
        info_.path, index, h.data.offset, h.data.size, first, index + index_size));
    all_damaged();
    return;
  }
  for (std::size_t n = 0; n < bits.size(); ++n) {
    const unsigned bit = bits[n];
    const FileSection& sec = sections[n];
    if (bit == 0) continue;  // HEADER_RESERVED: never written, but it takes its place in the index
    if (!in_bounds(sec.offset, sec.size, bytes_.size())) {
      info_.warnings.push_back(
          fmt::format("feature {} (offset {}, {} bytes) is outside the file: ignored", bit, sec.offset, sec.size));
      info_.damaged_features.push_back(bit);
      continue;
    }
    FeatureCursor c(bytes_.subspan(sec.offset, sec.size));
    bool ok = true;
    switch (bit) {
      case feature_cpuid: {
        std::string s;
        ok = c.string(s);
        if (ok) info_.cpuid = s;
        break;
      }
      case feature_hostname: ok = c.string(info_.hostname); break;
      case feature_osrelease: ok = c.string(info_.os_release); break;
      case feature_arch: ok = c.string(info_.arch); break;
      case feature_version: ok = c.string(info_.perf_version); break;
      case feature_sample_time: {
        std::uint64_t first = 0, last = 0;
        ok = c.u64(first) && c.u64(last);
        if (ok) info_.sample_time.emplace(first, last);
        break;
      }
      case feature_clock_data: {
        // struct { u32 version; u32 clockid; u64 wall_clock_ns; u64 clockid_time_ns; } (version 1)
        std::uint32_t version = 0;
        FileInfo::ClockData d;
        ok = c.u32(version) && c.u32(d.clockid) && c.u64(d.wall_ns) && c.u64(d.clock_ns);
        if (ok && version == 1) info_.clock_data = d;
        break;
      }
      case feature_cmdline: {
        std::uint32_t nr = 0;
        ok = c.u32(nr);
        for (std::uint32_t i = 0; ok && i < nr; ++i) {
          std::string arg;
          ok = c.string(arg);
          if (ok) info_.cmdline.push_back(std::move(arg));
        }
        break;
      }
      case feature_pmu_mappings: {
        std::uint32_t nr = 0;
        ok = c.u32(nr);
        for (std::uint32_t i = 0; ok && i < nr; ++i) {
          PmuMapping m;
          ok = c.u32(m.type) && c.string(m.name);
          if (ok) info_.pmu_mappings.push_back(std::move(m));
        }
        break;
      }
      case feature_event_desc: {
        std::uint32_t nr = 0, attr_size = 0;
        ok = c.u32(nr) && c.u32(attr_size) && attr_size >= PERF_ATTR_SIZE_VER0;
        for (std::uint32_t i = 0; ok && i < nr; ++i) {
          std::span<const std::byte> attr_bytes;
          std::uint32_t nr_ids = 0;
          std::string name;
          ok = c.bytes(attr_size, attr_bytes) && c.u32(nr_ids) && c.string(name);
          std::vector<std::uint64_t> ids;
          for (std::uint32_t k = 0; ok && k < nr_ids; ++k) {
            std::uint64_t v = 0;
            ok = c.u64(v);
            ids.push_back(v);
          }
          if (!ok) break;
          // Name the attr with the same ids, or the i-th when there are none.
          EventAttr* target = nullptr;
          if (!ids.empty()) {
            if (auto it = attr_by_id_.find(ids[0]); it != attr_by_id_.end()) target = &info_.attrs[it->second];
          } else if (i < info_.attrs.size()) {
            target = &info_.attrs[i];
          }
          if (target) target->name = name;
        }
        break;
      }
      case feature_build_id: {
        std::span<const std::byte> rest = bytes_.subspan(sec.offset, sec.size);
        while (rest.size() >= build_id_record_fixed) {
          const auto rh = load<RecordHeader>(rest.data());
          if (rh.size < build_id_record_fixed || rh.size > rest.size()) {
            ok = false;
            break;
          }
          BuildIdEntry b;
          b.pid = load<std::int32_t>(rest.data() + 8);
          b.cpumode = rh.misc & misc_cpumode_mask;
          std::size_t id_size = 20;
          if (rh.misc & misc_build_id_size) id_size = std::min<std::size_t>(20, static_cast<std::size_t>(rest[12 + 20]));
          b.build_id = hex_bytes(rest.subspan(12, id_size));
          b.filename = std::string(c_string(rest.subspan(build_id_record_fixed, rh.size - build_id_record_fixed)));
          info_.build_ids.push_back(std::move(b));
          rest = rest.subspan(rh.size);
        }
        break;
      }
      default: break;
    }
    if (!ok) {
      info_.warnings.push_back(fmt::format("feature {} (offset {}, {} bytes) is malformed: read what was whole", bit,
                                           sec.offset, sec.size));
      info_.damaged_features.push_back(bit);
    }
  }
}

const EventAttr* PerfDataReader::trailer_attr(std::span<const std::byte> body) const {
  // With IDENTIFIER the trailer ends with the id; otherwise every event's
  // trailer has the same layout (perf requires it), the first one's.
  if (id_position_ == IdPosition::identifier && info_.attrs[0].attr.sample_id_all && body.size() >= 8)
    if (const std::uint32_t event = event_of_id(load<std::uint64_t>(body.data() + body.size() - 8)); event != no_event)
      return &info_.attrs[event];
  return &info_.attrs[0];
}

ReadSummary PerfDataReader::read(RecordHandler& handler) { return walk(handler); }

bool PerfDataReader::start(Walk& w, RecordHandler& handler) {
  ReadSummary& sum = w.sum;
  const FileHeader& h = info_.header;
  std::uint64_t begin = h.data.offset, end = h.data.offset + h.data.size;
  if (begin > bytes_.size()) {
    sum.truncated = true;
    sum.warnings.push_back(fmt::format("the data section starts at {}, past the end of the {}-byte file: the file is "
                                       "truncated, no records",
                                       begin, bytes_.size()));
    return false;
  }
  if (h.data.size == 0 && !(h.features[0] | h.features[1] | h.features[2] | h.features[3])) {
    end = bytes_.size();
    if (end > begin)
      sum.warnings.push_back("the header gives the data section no size (perf record did not finish): reading to "
                             "the end of the file");
  }
  if (end > bytes_.size() || end < begin) {
    sum.truncated = true;
    sum.warnings.push_back(fmt::format("the data section should end at {} but the file ends at {}: the file is "
                                       "truncated; reading what is there",
                                       end, bytes_.size()));
    end = bytes_.size();
  }
  w.begin = begin;
  w.end = end;
  // The pages behind are given back; a long file's are mapped in ahead by
  // a helper thread (page_keeper.hpp).
  if (mapping_ && mapping_->address && end - begin > 2 * PageKeeper::behind)
    w.pages.emplace(bytes_.data(), bytes_.size(), begin, end - begin > 4 * PageKeeper::window);
  w.samples.resize(info_.attrs.size());
  for (std::uint32_t event = 0; event < w.samples.size(); ++event) {
    SampleRecord& s = w.samples[event];
    s.attr = s.id.attr = &info_.attrs[event];
    s.event = event;
  }
  for (const EventAttr& a : info_.attrs) w.layouts.push_back(FixedSampleLayout::of(a.attr, handler.sample_fields()));
  return true;
}

void PerfDataReader::keep_behind(std::uint64_t bytes) { mapping_->keep_behind = bytes; }

void PerfDataReader::reached(Walk& w, RecordHandler& handler, std::uint64_t at) {
  if (w.pages) {
    const std::uint64_t keep = mapping_->keep_behind, lag = keep > PageKeeper::behind ? keep - PageKeeper::behind : 0;
    w.pages->reached(at, at - std::min(at, lag));
  }
  handler.progress(at - w.begin, w.end - w.begin);
}

std::uint64_t PerfDataReader::bad_header(Walk& w, std::uint64_t at) {
  ReadSummary& sum = w.sum;
  const std::uint64_t left = w.end - at;
  // Where the file now ends, the mapping reads zeros: nothing to find.
  if (const auto size = shrunk_to(); size && at + sizeof(RecordHeader) > *size) {
    sum.unread_bytes += left;
    return w.end;
  }
  if (left < sizeof(RecordHeader)) {
    sum.truncated = true;
    sum.skipped.add(at, fmt::format("{} bytes at the end of the data are too few for a record header", left));
    sum.unread_bytes += left;
    return w.end;
  }
  const auto rh = load<RecordHeader>(bytes_.data() + at);
  const bool hides_next = rh.size < sizeof(RecordHeader);
  if (hides_next)
    sum.skipped.add(at, fmt::format("record of type {} has size {}, less than its own header: where the next one "
                                    "starts is lost",
                                    rh.type, rh.size));
  else
    sum.skipped.add(at, fmt::format("record of type {} and {} bytes runs past the end of the data ({} bytes left)",
                                    rh.type, rh.size, left));
  // Early perf stepped on 8 bytes at a time after a record it could not
  // use, "in the hope to catch on again"; perf today stops there with
  // "failed to process type". tagop steps on likewise, but goes on only
  // where two record headers in a row make sense, so as not to read
  // garbage as records.
  const std::uint64_t next = resync_point(w, at + sizeof(RecordHeader));
  sum.unread_bytes += next - at;
  if (next == w.end) {
    if (hides_next)
      sum.warnings.push_back(fmt::format("stopped at offset {}: a record of size {} hides where the next one starts, "
                                         "and no record header after it makes sense; {} bytes of data after it were "
                                         "not read",
                                         at, rh.size, left));
    else
      sum.truncated = true;
  } else if (sum.resyncs++ == 0) {
    w.first_resync = at;
  }
  return next;
}

std::uint64_t PerfDataReader::resync_point(const Walk& w, std::uint64_t from) const {
  for (std::uint64_t at = w.begin + (from - w.begin + 7) / 8 * 8; at < w.end; at += 8) {
    const std::uint64_t size = plausible_record(w, at);
    if (size && (at + size == w.end || plausible_record(w, at + size))) return at;
  }
  return w.end;
}

std::uint64_t PerfDataReader::plausible_record(const Walk& w, std::uint64_t at) const {
  if (w.end - at < sizeof(RecordHeader)) return 0;
  const auto rh = load<RecordHeader>(bytes_.data() + at);
  const bool known = (rh.type >= record_mmap && rh.type <= record_kernel_last) ||
                     (rh.type >= record_header_attr && rh.type <= record_user_last);
  // Every record perf writes is a whole number of u64s, but compressed
  // ones, which tagop cannot read anyway.
  if (!known || rh.size < sizeof(RecordHeader) || rh.size % 8 != 0 || rh.size > w.end - at) return 0;
  if (rh.type == record_sample &&
      sample_event(bytes_.subspan(at + sizeof(RecordHeader), rh.size - sizeof(RecordHeader))) == no_event)
    return 0;
  return rh.size;
}

std::optional<std::uint64_t> PerfDataReader::shrunk_to() const {
  if (!mapping_ || mapping_->fd < 0) return std::nullopt;
  std::uint64_t now = bytes_.size();
  // Past the file's end the mapping reads zeros up to the page that
  // faulted, and from there on once the guard has mapped them.
  struct stat st {};
  if (fstat(mapping_->fd, &st) == 0) now = std::min(now, static_cast<std::uint64_t>(st.st_size));
  if (mapping_->guard)
    if (const auto cut = mapping_->guard->cut()) now = std::min(now, *cut);
  if (now == bytes_.size()) return std::nullopt;
  return now;
}

ReadSummary PerfDataReader::finish(Walk& w, RecordHandler& handler, std::uint64_t at) {
  ReadSummary& sum = w.sum;
  sum.data_bytes = at - w.begin;
  if (const auto size = shrunk_to()) {
    sum.shrunk_to = size;
    sum.warnings.push_back(fmt::format("the file shrank from {} to {} bytes while it was read: the records before "
                                       "offset {} were read, those after it are lost",
                                       bytes_.size(), *size, *size));
  }
  if (sum.resyncs)
    sum.warnings.push_back(fmt::format("lost where records start {} time{} (the first at offset {}), and went on at "
                                       "the next offset where two record headers in a row make sense",
                                       sum.resyncs, sum.resyncs == 1 ? "" : "s", w.first_resync));
  if (sum.unread_bytes)
    sum.warnings.push_back(fmt::format("{} of the {} bytes of the data section were not read as records",
                                       sum.unread_bytes, w.end - w.begin));
  handler.progress(w.end - w.begin, w.end - w.begin);
  // The walk is over: the mapped file's pages are given back, as the page
  // keeper gives back those behind the reader, so that a report's later
  // tables (the kernel's symbols, its rows) do not sit on top of them in
  // RSS. They stay readable: a later read faults them in from the file.
  if (mapping_ && mapping_->address) madvise(mapping_->address, mapping_->size, MADV_DONTNEED);
  return std::move(sum);
}

void PerfDataReader::bad_sample(Walk& w, std::uint64_t at, const RecordHeader& rh, std::string_view short_field) {
  ReadSummary& sum = w.sum;
  ++sum.records;
  ++sum.by_type[record_sample];
  if (short_field.empty())
    sum.skipped.add(at, "sample names no event of the file (its id is unknown)");
  else
    sum.skipped.add(at, fmt::format("sample field {} runs past the end of its {}-byte record", short_field, rh.size));
}

std::uint64_t PerfDataReader::other_record(Walk& w, RecordHandler& handler, std::uint64_t at, const RecordHeader& rh) {
  ReadSummary& sum = w.sum;
  const std::uint64_t end = w.end;
  const std::span<const std::byte> body = bytes_.subspan(at + sizeof(RecordHeader), rh.size - sizeof(RecordHeader));
  ++sum.records;
  if (rh.type <= record_user_last) ++sum.by_type[rh.type];
  std::uint64_t next = at + rh.size;

  switch (rh.type) {
    case record_mmap:
    case record_mmap2: {
      const EventAttr* attr = trailer_attr(body);
      const std::size_t trailer = sample_id_size(attr->attr);
      const std::size_t fixed = rh.type == record_mmap2 ? 64 : 32;
      if (body.size() < fixed + trailer) {
        sum.skipped.add(at, fmt::format("MMAP record of {} bytes is too short", rh.size));
        break;
      }
      MmapRecord m;
      m.offset = at;
      m.misc = rh.misc;
      m.mmap2 = rh.type == record_mmap2;
      const std::byte* p = body.data();
      m.pid = load<std::uint32_t>(p);
      m.tid = load<std::uint32_t>(p + 4);
      m.start = load<std::uint64_t>(p + 8);
      m.len = load<std::uint64_t>(p + 16);
      m.pgoff = load<std::uint64_t>(p + 24);
      if (m.mmap2) {
        if (rh.misc & misc_mmap_build_id) {
          const auto n = std::min<std::size_t>(20, static_cast<std::size_t>(p[32]));
          m.build_id = hex_bytes(body.subspan(36, n));
        }
        m.prot = load<std::uint32_t>(p + 56);
        m.flags = load<std::uint32_t>(p + 60);
      }
      m.filename = c_string(body.subspan(fixed, body.size() - fixed - trailer));
      parse_sample_id(attr->attr, body, m.id);
      m.id.attr = attr;
      handler.mmap(m);
      break;
    }
    case record_comm: {
      const EventAttr* attr = trailer_attr(body);
      const std::size_t trailer = sample_id_size(attr->attr);
      if (body.size() < 8 + trailer) {
        sum.skipped.add(at, fmt::format("COMM record of {} bytes is too short", rh.size));
        break;
      }
      CommRecord c;
      c.offset = at;
      c.pid = load<std::uint32_t>(body.data());
      c.tid = load<std::uint32_t>(body.data() + 4);
      c.exec = rh.misc & misc_comm_exec;
      c.comm = c_string(body.subspan(8, body.size() - 8 - trailer));
      parse_sample_id(attr->attr, body, c.id);
      c.id.attr = attr;
      handler.comm(c);
      break;
    }
    case record_fork:
    case record_exit: {
      const EventAttr* attr = trailer_attr(body);
      if (body.size() < 24 + sample_id_size(attr->attr)) {
        sum.skipped.add(at, fmt::format("{} record of {} bytes is too short", rh.type == record_fork ? "FORK" : "EXIT",
                                        rh.size));
        break;
      }
      TaskRecord t;
      t.offset = at;
      t.fork = rh.type == record_fork;
      t.pid = load<std::uint32_t>(body.data());
      t.ppid = load<std::uint32_t>(body.data() + 4);
      t.tid = load<std::uint32_t>(body.data() + 8);
      t.ptid = load<std::uint32_t>(body.data() + 12);
      t.time = load<std::uint64_t>(body.data() + 16);
      parse_sample_id(attr->attr, body, t.id);
      t.id.attr = attr;
      handler.task(t);
      break;
    }
    case record_lost:
    case record_lost_samples: {
      const EventAttr* attr = trailer_attr(body);
      const std::size_t fixed = rh.type == record_lost ? 16 : 8;
      if (body.size() < fixed + sample_id_size(attr->attr)) {
        sum.skipped.add(at, fmt::format("LOST record of {} bytes is too short", rh.size));
        break;
      }
      LostRecord l;
      l.offset = at;
      l.lost_samples = rh.type == record_lost_samples;
      if (rh.type == record_lost) {
        l.event_id = load<std::uint64_t>(body.data());
        l.lost = load<std::uint64_t>(body.data() + 8);
      } else {
        l.lost = load<std::uint64_t>(body.data());
      }
      parse_sample_id(attr->attr, body, l.id);
      l.id.attr = attr;
      sum.lost += l.lost;
      handler.lost(l);
      break;
    }
    case record_auxtrace: {
      // The trace data follows the record; its size is the first field.
      if (body.size() < 8) {
        sum.skipped.add(at, "AUXTRACE record too short for its size field");
        break;
      }
      const auto extra = load<std::uint64_t>(body.data());
      if (extra > end - next) {
        sum.truncated = true;
        sum.skipped.add(at, fmt::format("AUXTRACE data of {} bytes runs past the end of the data", extra));
        next = end;
        break;
      }
      if (body.size() >= 40) {
        AuxtraceRecord a;
        a.offset = at;
        a.aux_offset = load<std::uint64_t>(body.data() + 8);
        a.reference = load<std::uint64_t>(body.data() + 16);
        a.idx = load<std::uint32_t>(body.data() + 24);
        a.tid = load<std::uint32_t>(body.data() + 28);
        a.cpu = load<std::uint32_t>(body.data() + 32);
        a.data = bytes_.subspan(next, extra);
        handler.auxtrace(a);
      } else {
        sum.skipped.add(at, fmt::format("AUXTRACE record of {} bytes is too short for its fields", rh.size));
      }
      next += extra;
      break;
    }
    case record_auxtrace_info: {
      if (body.size() < 8) {
        sum.skipped.add(at, "AUXTRACE_INFO record too short for its type");
        break;
      }
      AuxtraceInfoRecord info;
      info.offset = at;
      info.type = load<std::uint32_t>(body.data());
      info.priv = body.subspan(8);
      handler.auxtrace_info(info);
      break;
    }
    case record_finished_round:
      handler.finished_round();
      break;
    case record_compressed:
    case record_compressed2:
      sum.skipped.add(at, fmt::format("compressed records (perf record -z): {}", compressed_advice));
      if (!w.compressed_seen)
        sum.warnings.push_back(fmt::format("the data holds compressed records that tagop cannot read: {}",
                                           compressed_advice));
      w.compressed_seen = true;
      break;
    default:
      if ((rh.type == 0 || rh.type > record_kernel_last) && (rh.type < record_header_attr || rh.type > record_user_last))
        sum.skipped.add(at, fmt::format("unknown record type {} ({} bytes): skipped by its size", rh.type, rh.size));
      break;
  }
  return next;
}

}  // namespace tagop::perf_data
