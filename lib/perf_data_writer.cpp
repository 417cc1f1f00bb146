#include <tagop/perf_data_writer.hpp>

#include <sys/mman.h>  // PROT_READ, PROT_EXEC, MAP_PRIVATE

#include <cerrno>   // errno
#include <cstring>  // std::strerror

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::perf_data {

namespace {

constexpr std::uint64_t sample_fields_supported = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                                  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                                                  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                                                  PERF_SAMPLE_RAW;

constexpr std::size_t align_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

// A record or feature body being assembled.
class Bytes {
 public:
  template <typename T>
  void put(const T& v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    out_.insert(out_.end(), p, p + sizeof v);
  }
  void put(const void* data, std::size_t n) {
    const auto* p = static_cast<const char*>(data);
    out_.insert(out_.end(), p, p + n);
  }
  void zeros(std::size_t n) { out_.insert(out_.end(), n, 0); }
  void pad_to(std::size_t a) { zeros(align_up(out_.size(), a) - out_.size()); }
  /// A NUL-terminated string padded to `a` bytes.
  void c_string(std::string_view s, std::size_t a) {
    put(s.data(), s.size());
    zeros(align_up(s.size() + 1, a) - s.size());
  }
  /// A perf_header_string: u32 length, then the padded string.
  void header_string(std::string_view s) {
    put(static_cast<std::uint32_t>(align_up(s.size() + 1, name_align)));
    c_string(s, name_align);
  }
  std::size_t size() const { return out_.size(); }
  const char* data() const { return out_.data(); }

 private:
  std::vector<char> out_;
};

std::vector<std::uint8_t> parse_hex(std::string_view hex) {
  std::vector<std::uint8_t> out;
  auto digit = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw Error(fmt::format("build-id '{}' is not hexadecimal", hex));
  };
  if (hex.size() % 2 != 0 || hex.size() > 40) throw Error(fmt::format("build-id '{}' is not 1 to 20 hex bytes", hex));
  for (std::size_t i = 0; i < hex.size(); i += 2) out.push_back(static_cast<std::uint8_t>(digit(hex[i]) << 4 | digit(hex[i + 1])));
  return out;
}

}  // namespace

PerfDataWriter::PerfDataWriter(const std::string& path, std::vector<WriterEvent> events, WriterFeatures features)
    : path_(path), events_(std::move(events)), features_(std::move(features)), buffer_(buffer_size) {
  if (events_.empty()) throw Error("perf.data writer: give at least one event");
  for (WriterEvent& e : events_)
    if (e.attr.size == 0) e.attr.size = sizeof(perf_event_attr);
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw Error(fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
  std::setvbuf(file_, buffer_.data(), _IOFBF, buffer_.size());

  // header | ids of every event | attrs | data | feature index | features
  std::uint64_t at = sizeof(FileHeader);
  std::vector<FileSection> id_sections;
  for (const WriterEvent& e : events_) {
    id_sections.push_back({at, e.ids.size() * 8});
    at += e.ids.size() * 8;
  }
  header_.size = sizeof(FileHeader);
  header_.attr_size = sizeof(perf_event_attr) + sizeof(FileSection);
  header_.attrs = {at, header_.attr_size * events_.size()};
  header_.data = {header_.attrs.offset + header_.attrs.size, 0};
  put(&header_, sizeof header_);  // rewritten by finish()
  for (const WriterEvent& e : events_) put(e.ids.data(), e.ids.size() * 8);
  for (std::size_t i = 0; i < events_.size(); ++i) {
    put(&events_[i].attr, sizeof(perf_event_attr));
    put(&id_sections[i], sizeof(FileSection));
  }
  data_size_ = 0;
}

PerfDataWriter::~PerfDataWriter() {
  if (!file_) return;
  try {
    finish();
  } catch (const Error&) {
    // A destructor cannot report it; finish() explicitly to see errors.
  }
}

void PerfDataWriter::put(const void* data, std::size_t size) {
  if (!file_) throw Error(fmt::format("{}: written after finish()", path_));
  if (size && std::fwrite(data, 1, size, file_) != size)
    throw Error(fmt::format("{}: write failed: {}", path_, std::strerror(errno)));
}

void PerfDataWriter::record(std::uint32_t type, std::uint16_t misc, std::span<const std::byte> body) {
  if (body.size() + sizeof(RecordHeader) > 0xFFFF)
    throw Error(fmt::format("perf.data writer: a record of {} bytes does not fit its 16-bit size", body.size() + 8));
  const RecordHeader h{type, misc, static_cast<std::uint16_t>(body.size() + sizeof(RecordHeader))};
  put(&h, sizeof h);
  put(body.data(), body.size());
  data_size_ += h.size;
}

namespace {

// The sample_id_all trailer of the first event, as the kernel appends it.
void trailer(Bytes& b, const WriterEvent& e, const RecordWhere& where) {
  if (!e.attr.sample_id_all) return;
  const std::uint64_t t = e.attr.sample_type;
  const std::uint64_t id = e.ids.empty() ? 0 : e.ids[0];
  if (t & PERF_SAMPLE_TID) {
    b.put(where.pid);
    b.put(where.tid);
  }
  if (t & PERF_SAMPLE_TIME) b.put(where.time);
  if (t & PERF_SAMPLE_ID) b.put(id);
  if (t & PERF_SAMPLE_STREAM_ID) b.put(id);
  if (t & PERF_SAMPLE_CPU) {
    b.put(where.cpu);
    b.put(std::uint32_t{0});
  }
  if (t & PERF_SAMPLE_IDENTIFIER) b.put(id);
}

std::span<const std::byte> as_bytes(const Bytes& b) { return {reinterpret_cast<const std::byte*>(b.data()), b.size()}; }

}  // namespace

void PerfDataWriter::comm(std::uint32_t pid, std::uint32_t tid, std::string_view name, bool exec, RecordWhere where) {
  Bytes b;
  b.put(pid);
  b.put(tid);
  b.c_string(name, 8);
  if (where.pid == 0 && where.tid == 0) where.pid = pid, where.tid = tid;
  trailer(b, events_[0], where);
  record(record_comm, exec ? misc_comm_exec : 0, as_bytes(b));
}

void PerfDataWriter::mmap2(std::uint32_t pid, std::uint32_t tid, std::uint64_t start, std::uint64_t len,
                           std::uint64_t pgoff, std::string_view filename, std::string_view build_id,
                           RecordWhere where, std::uint16_t cpumode) {
  Bytes b;
  b.put(pid);
  b.put(tid);
  b.put(start);
  b.put(len);
  b.put(pgoff);
  std::uint16_t misc = cpumode;
  if (!build_id.empty()) {
    const auto id = parse_hex(build_id);
    misc |= misc_mmap_build_id;
    b.put(static_cast<std::uint8_t>(id.size()));
    b.zeros(3);
    b.put(id.data(), id.size());
    b.zeros(20 - id.size());
  } else {
    b.zeros(24);  // maj, min, ino, ino_generation unknown
  }
  b.put(std::uint32_t{PROT_READ | PROT_EXEC});
  b.put(std::uint32_t{MAP_PRIVATE});
  b.c_string(filename, 8);
  if (where.pid == 0 && where.tid == 0) where.pid = pid, where.tid = tid;
  trailer(b, events_[0], where);
  record(record_mmap2, misc, as_bytes(b));
}

void PerfDataWriter::task(std::uint32_t type, std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid,
                          std::uint32_t ptid, std::uint64_t time) {
  Bytes b;
  b.put(pid);
  b.put(ppid);
  b.put(tid);
  b.put(ptid);
  b.put(time);
  trailer(b, events_[0], RecordWhere{.pid = pid, .tid = tid, .cpu = 0, .time = time});
  record(type, 0, as_bytes(b));
}

void PerfDataWriter::fork(std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid,
                          std::uint64_t time) {
  task(record_fork, pid, ppid, tid, ptid, time);
}

void PerfDataWriter::exit(std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid,
                          std::uint64_t time) {
  task(record_exit, pid, ppid, tid, ptid, time);
}

void PerfDataWriter::sample(std::size_t event, const SampleFields& f) {
  if (event >= events_.size()) throw Error(fmt::format("perf.data writer: no event {}", event));
  const WriterEvent& e = events_[event];
  const std::uint64_t t = e.attr.sample_type;
  if (t & ~sample_fields_supported)
    throw Error(fmt::format("perf.data writer: sample_type {:#x} has fields sample() cannot write (only IDENTIFIER, "
                            "IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, RAW); use record()",
                            t));
  const std::uint64_t id = e.ids.empty() ? 0 : e.ids[0];
  Bytes b;
  if (t & PERF_SAMPLE_IDENTIFIER) b.put(id);
  if (t & PERF_SAMPLE_IP) b.put(f.ip);
  if (t & PERF_SAMPLE_TID) {
    b.put(f.pid);
    b.put(f.tid);
  }
  if (t & PERF_SAMPLE_TIME) b.put(f.time);
  if (t & PERF_SAMPLE_ADDR) b.put(f.addr);
  if (t & PERF_SAMPLE_ID) b.put(id);
  if (t & PERF_SAMPLE_STREAM_ID) b.put(f.stream_id);
  if (t & PERF_SAMPLE_CPU) {
    b.put(f.cpu);
    b.put(std::uint32_t{0});
  }
  if (t & PERF_SAMPLE_PERIOD) b.put(f.period);
  if (t & PERF_SAMPLE_RAW) {
    // The kernel pads the raw data so that the u32 size and it end on 8 bytes.
    const std::size_t padded = align_up(4 + f.raw.size(), 8) - 4;
    b.put(static_cast<std::uint32_t>(padded));
    b.put(f.raw.data(), f.raw.size());
    b.zeros(padded - f.raw.size());
  }
  record(record_sample, f.misc, as_bytes(b));
}

void PerfDataWriter::finish() {
  if (!file_) return;
  header_.data.size = data_size_;
  std::uint64_t at = header_.data.offset + data_size_;

  // Feature bodies, in bit order; the index of sections comes first.
  std::vector<std::pair<unsigned, Bytes>> bodies;
  if (!features_.build_ids.empty()) {
    Bytes b;
    for (const BuildIdEntry& e : features_.build_ids) {
      const auto id = parse_hex(e.build_id);
      const std::size_t name = align_up(e.filename.size() + 1, name_align);
      const RecordHeader h{record_header_build_id, static_cast<std::uint16_t>(e.cpumode | misc_build_id_size),
                           static_cast<std::uint16_t>(build_id_record_fixed + name)};
      b.put(h);
      b.put(e.pid);
      b.put(id.data(), id.size());
      b.zeros(20 - id.size());
      b.put(static_cast<std::uint8_t>(id.size()));
      b.zeros(3);
      b.c_string(e.filename, name_align);
    }
    bodies.emplace_back(feature_build_id, std::move(b));
  }
  if (!features_.hostname.empty()) {
    Bytes b;
    b.header_string(features_.hostname);
    bodies.emplace_back(feature_hostname, std::move(b));
  }
  if (!features_.os_release.empty()) {
    Bytes b;
    b.header_string(features_.os_release);
    bodies.emplace_back(feature_osrelease, std::move(b));
  }
  if (features_.cpuid) {
    Bytes b;
    b.header_string(*features_.cpuid);
    bodies.emplace_back(feature_cpuid, std::move(b));
  }
  {
    Bytes b;
    b.put(static_cast<std::uint32_t>(events_.size()));
    b.put(static_cast<std::uint32_t>(sizeof(perf_event_attr)));
    for (const WriterEvent& e : events_) {
      b.put(e.attr);
      b.put(static_cast<std::uint32_t>(e.ids.size()));
      b.header_string(e.name);
      b.put(e.ids.data(), e.ids.size() * 8);
    }
    bodies.emplace_back(feature_event_desc, std::move(b));
  }
  if (!features_.pmu_mappings.empty()) {
    Bytes b;
    b.put(static_cast<std::uint32_t>(features_.pmu_mappings.size()));
    for (const PmuMapping& m : features_.pmu_mappings) {
      b.put(m.type);
      b.header_string(m.name);
    }
    bodies.emplace_back(feature_pmu_mappings, std::move(b));
  }
  if (!features_.pmu_caps.empty()) {
    // perf's write_pmu_caps() (6.1): the PMUs, each its capabilities as
    // name and value strings, then its name.
    Bytes b;
    b.put(static_cast<std::uint32_t>(features_.pmu_caps.size()));
    for (const PmuCaps& p : features_.pmu_caps) {
      b.put(static_cast<std::uint32_t>(p.caps.size()));
      for (const auto& [name, value] : p.caps) {
        b.header_string(name);
        b.header_string(value);
      }
      b.header_string(p.pmu);
    }
    bodies.emplace_back(feature_pmu_caps, std::move(b));
  }
  std::uint64_t body_at = at + bodies.size() * sizeof(FileSection);
  for (auto& [bit, body] : bodies) {
    header_.features[bit / 64] |= std::uint64_t{1} << (bit % 64);
    const FileSection s{body_at, body.size()};
    put(&s, sizeof s);
    body_at += body.size();
  }
  for (auto& [bit, body] : bodies) put(body.data(), body.size());

  std::FILE* f = file_;
  if (std::fseek(f, 0, SEEK_SET) != 0) throw Error(fmt::format("{}: cannot seek: {}", path_, std::strerror(errno)));
  put(&header_, sizeof header_);
  file_ = nullptr;
  if (std::fclose(f) != 0) throw Error(fmt::format("{}: close failed: {}", path_, std::strerror(errno)));
}

}  // namespace tagop::perf_data
