#include <tagop/perf_data_reader.hpp>

#include <fcntl.h>     // open
#include <sys/mman.h>  // mmap, madvise
#include <sys/stat.h>  // fstat
#include <unistd.h>    // close

#include <algorithm>  // std::min, std::minmax_element
#include <cerrno>     // errno
#include <cstring>    // std::memcpy, std::strerror

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>        // Error
#include <tagop/page_keeper.hpp>  // PageKeeper

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

struct PerfDataReader::Mapping {
  void* address = nullptr;
  std::size_t size = 0;
  ~Mapping() {
    if (address) munmap(address, size);
  }
};

PerfDataReader::PerfDataReader(const std::string& path) : mapping_(std::make_unique<Mapping>()) {
  info_.path = path;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(fmt::format("{}: not a regular file (a pipe? record to a file, or 'perf inject -i - -o FILE')", path));
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size > 0) {
    void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      throw Error(fmt::format("{}: cannot map: {}", path, std::strerror(e)));
    }
    mapping_->address = p;
    mapping_->size = size;
    madvise(p, size, MADV_SEQUENTIAL);
  }
  ::close(fd);
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
    throw Error(fmt::format("{}: {} bytes is too short to be perf.data (its header alone is 104 bytes)", path,
                            bytes_.size()));
  const auto magic = load<std::uint64_t>(bytes_.data());
  const auto header_size = load<std::uint64_t>(bytes_.data() + 8);
  if (magic == file_magic_swapped)
    throw Error(fmt::format("{}: perf.data from a big-endian machine (magic 'PERFILE2' byte-swapped): tagop reads "
                            "only little-endian files; convert it on a machine of that byte order with "
                            "'perf inject -i IN -o OUT' there, or read it with 'perf script'",
                            path));
  if (std::memcmp(bytes_.data(), "PERFFILE", 8) == 0)
    throw Error(fmt::format("{}: perf.data version 1 ('PERFFILE', perf before 2010) is not supported", path));
  if (magic != file_magic) throw Error(fmt::format("{}: not a perf.data file (it does not start with 'PERFILE2')", path));
  if (header_size == pipe_header_size)
    throw Error(fmt::format("{}: piped perf.data is not supported: record to a file, or 'perf inject -i - -o FILE'",
                            path));
  // Headers from before feature bits existed stop where the bits start.
  constexpr std::uint64_t old_header_size = offsetof(FileHeader, features);
  if (header_size != sizeof(FileHeader) && header_size != old_header_size)
    throw Error(fmt::format("{}: header size {} is neither {} nor {}: not a perf.data file tagop knows", path,
                            header_size, sizeof(FileHeader), old_header_size));
  if (bytes_.size() < header_size)
    throw Error(fmt::format("{}: the file ends at {} bytes, inside its {}-byte header", path, bytes_.size(),
                            header_size));
  std::memcpy(&info_.header, bytes_.data(), header_size);
  if (info_.has_feature(feature_compressed))
    throw Error(fmt::format("{}: compressed perf.data (perf record -z) is not supported: {}", path,
                            compressed_advice));
  parse_attrs();
  parse_features();
}

void PerfDataReader::parse_attrs() {
  const FileHeader& h = info_.header;
  const std::string& path = info_.path;
  constexpr std::uint64_t section = sizeof(FileSection);
  if (h.attr_size < PERF_ATTR_SIZE_VER0 + section || h.attr_size > 4096)
    throw Error(fmt::format("{}: attribute entries of {} bytes cannot hold a perf_event_attr and its ids", path,
                            h.attr_size));
  if (!in_bounds(h.attrs.offset, h.attrs.size, bytes_.size()))
    throw Error(fmt::format("{}: the attribute section (offset {}, {} bytes) runs past the end of the {}-byte file: "
                            "the file is truncated",
                            path, h.attrs.offset, h.attrs.size, bytes_.size()));
  const std::uint64_t count = h.attrs.size / h.attr_size;
  if (count == 0) throw Error(fmt::format("{}: no event attributes: nothing was recorded", path));
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::byte* entry = bytes_.data() + h.attrs.offset + i * h.attr_size;
    EventAttr a;
    std::uint32_t size = load<std::uint32_t>(entry + offsetof(perf_event_attr, size));
    if (size == 0) size = PERF_ATTR_SIZE_VER0;
    const std::uint64_t room = h.attr_size - section;
    std::memcpy(&a.attr, entry, std::min<std::uint64_t>({size, room, sizeof(perf_event_attr)}));
    const auto ids = load<FileSection>(entry + room);
    if (ids.size % 8 != 0 || !in_bounds(ids.offset, ids.size, bytes_.size())) {
      info_.warnings.push_back(fmt::format("event {}: its id list (offset {}, {} bytes) is outside the file; "
                                           "samples cannot name it",
                                           i, ids.offset, ids.size));
    } else {
      for (std::uint64_t at = 0; at < ids.size; at += 8)
        a.ids.push_back(load<std::uint64_t>(bytes_.data() + ids.offset + at));
    }
    info_.attrs.push_back(std::move(a));
  }
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
  std::uint64_t index = h.data.offset + h.data.size;
  for (unsigned bit = 1; bit < feature_bits; ++bit) {
    if (!info_.has_feature(bit)) continue;
    if (!in_bounds(index, sizeof(FileSection), bytes_.size())) {
      info_.warnings.push_back(fmt::format("the feature sections are missing (the index at offset {} is past the "
                                           "end of the {}-byte file): the file is truncated",
                                           index, bytes_.size()));
      return;
    }
    const auto sec = load<FileSection>(bytes_.data() + index);
    index += sizeof(FileSection);
    if (!in_bounds(sec.offset, sec.size, bytes_.size())) {
      info_.warnings.push_back(
          fmt::format("feature {} (offset {}, {} bytes) is outside the file: ignored", bit, sec.offset, sec.size));
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
      case feature_version: ok = c.string(info_.perf_version); break;
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
    if (!ok) info_.warnings.push_back(fmt::format("feature {} is malformed: read what was whole", bit));
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
  // A helper thread keeps the pages of a long mapped file (page_keeper.hpp).
  if (mapping_ && mapping_->address && end - begin > 4 * PageKeeper::window)
    w.pages.emplace(bytes_.data(), bytes_.size(), begin);
  w.samples.resize(info_.attrs.size());
  for (std::uint32_t event = 0; event < w.samples.size(); ++event) {
    SampleRecord& s = w.samples[event];
    s.attr = s.id.attr = &info_.attrs[event];
    s.event = event;
  }
  for (const EventAttr& a : info_.attrs) w.layouts.push_back(FixedSampleLayout::of(a.attr, handler.sample_fields()));
  return true;
}

void PerfDataReader::reached(Walk& w, RecordHandler& handler, std::uint64_t at) {
  if (w.pages) w.pages->reached(at);
  handler.progress(at - w.begin, w.end - w.begin);
}

void PerfDataReader::bad_header(Walk& w, std::uint64_t at) {
  ReadSummary& sum = w.sum;
  const std::uint64_t left = w.end - at;
  if (left < sizeof(RecordHeader)) {
    sum.truncated = true;
    sum.skipped.add(at, fmt::format("{} bytes at the end of the data are too few for a record header", left));
    return;
  }
  const auto rh = load<RecordHeader>(bytes_.data() + at);
  if (rh.size < sizeof(RecordHeader)) {
    sum.skipped.add(at, fmt::format("record of type {} has size {}, less than its own header: the records after "
                                    "it cannot be found",
                                    rh.type, rh.size));
    sum.warnings.push_back(fmt::format("stopped at offset {}: a record of size {} hides where the next one starts; "
                                       "{} bytes of data after it were not read",
                                       at, rh.size, left));
    return;
  }
  sum.truncated = true;
  sum.skipped.add(at, fmt::format("record of type {} and {} bytes runs past the end of the data ({} bytes left)",
                                  rh.type, rh.size, left));
}

ReadSummary PerfDataReader::finish(Walk& w, RecordHandler& handler, std::uint64_t at) {
  w.sum.data_bytes = at - w.begin;
  handler.progress(w.end - w.begin, w.end - w.begin);
  return std::move(w.sum);
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
      } else {
        next += extra;
      }
      break;
    }
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
