#include <tagop/perf_data_writer.hpp>

#include <fcntl.h>     // ::open
#include <sys/mman.h>  // PROT_READ, PROT_EXEC, MAP_PRIVATE
#include <sys/stat.h>  // ::fstat, S_ISREG
#include <unistd.h>    // ::write, ::pwrite, ::ftruncate, ::close

#include <algorithm>  // std::min, std::stable_sort
#include <array>      // std::array
#include <cerrno>     // errno, ENOSPC, EDQUOT
#include <cstring>    // std::memcpy, std::strerror

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::perf_data {

namespace {

constexpr std::uint64_t sample_fields_supported = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                                  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                                                  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                                                  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT |
                                                  PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
                                                  PERF_SAMPLE_PHYS_ADDR;

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
  // Without waiting: a FIFO would block the open until a reader came. A
  // perf.data file is written out of order (its header last), so only a
  // file that can seek holds one: a FIFO or a socket is refused.
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0666);
  if (fd_ < 0 && errno == ENXIO)
    throw Error(ErrorCode::io, fmt::format("{}: a FIFO: a perf.data file is written out of order, so it must be a "
                                           "file (perf's pipe mode is not written)",
                                           path));
  if (fd_ < 0) throw Error(ErrorCode::io, fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
    ::close(fd_);
    fd_ = -1;
    throw Error(ErrorCode::io, fmt::format("{}: a {}: a perf.data file is written out of order, so it must be a file "
                                           "(perf's pipe mode is not written)",
                                           path, S_ISFIFO(st.st_mode) ? "FIFO" : "socket"));
  }
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);

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
  if (fd_ < 0) return;
  try {
    finish();
  } catch (const Error&) {
    // A destructor cannot report it; finish() explicitly to see errors.
  }
}

namespace {

std::string describe_write_failure(const std::string& path, int error, std::string_view what) {
  if (error == ENOSPC) return fmt::format("{}: the disk is full: {} (writing the {})", path, std::strerror(error), what);
  if (error == EDQUOT)
    return fmt::format("{}: over the disk quota: {} (writing the {})", path, std::strerror(error), what);
  if (error == EFBIG)
    return fmt::format("{}: over the size limit of a file (ulimit -f): {} (writing the {})", path,
                       std::strerror(error), what);
  return fmt::format("{}: cannot write the {}: {}", path, what, std::strerror(error));
}

// Errors that cutting the file back makes room for.
bool out_of_room(int error) { return error == ENOSPC || error == EDQUOT || error == EFBIG; }

}  // namespace

void PerfDataWriter::fail(int error, std::string_view what) {
  std::string message = describe_write_failure(path_, error, what);
  if (!write_error_) write_error_ = error, first_failure_ = message;
  throw Error(ErrorCode::io, message);
}

void PerfDataWriter::put(const void* data, std::size_t size) {
  if (fd_ < 0) throw Error(ErrorCode::internal, fmt::format("{}: written after finish()", path_));
  if (write_error_) fail(write_error_, "data (an earlier write failed)");
  const char* p = static_cast<const char*>(data);
  while (size) {
    const std::size_t n = std::min(size, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, p, n);
    buffered_ += n, p += n, size -= n;
    if (buffered_ == buffer_.size()) flush();
  }
}

void PerfDataWriter::flush() {
  std::size_t done = 0;
  while (done < buffered_) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffered_ - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : ENOSPC, "data");
    done += static_cast<std::size_t>(n);
    on_disk_ += static_cast<std::uint64_t>(n);
  }
  buffered_ = 0;
  // Two buffers' worth of places to cut back to is all a full disk needs.
  constexpr std::size_t kept = 2 * buffer_size / checkpoint_step;
  if (checkpoints_.size() > 2 * kept) checkpoints_.erase(checkpoints_.begin(), checkpoints_.end() - kept);
}

void PerfDataWriter::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size) {
    const ssize_t n = ::pwrite(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : ENOSPC, "features and header");
    p += n, size -= static_cast<std::size_t>(n), offset += static_cast<std::uint64_t>(n);
  }
}

void PerfDataWriter::record(std::uint32_t type, std::uint16_t misc, std::span<const std::byte> body) {
  if (body.size() + sizeof(RecordHeader) > 0xFFFF)
    throw Error(fmt::format("perf.data writer: a record of {} bytes does not fit its 16-bit size", body.size() + 8));
  const RecordHeader h{type, misc, static_cast<std::uint16_t>(body.size() + sizeof(RecordHeader))};
  put(&h, sizeof h);
  put(body.data(), body.size());
  data_size_ += h.size;
  if (type == record_sample) ++samples_;
  if (data_size_ >= next_checkpoint_) {
    checkpoints_.push_back({data_size_, samples_});
    next_checkpoint_ = data_size_ + checkpoint_step;
  }
}

void PerfDataWriter::finished_round() { record(record_finished_round, 0, {}); }

void PerfDataWriter::auxtrace_info(std::uint32_t type, std::span<const std::uint64_t> priv) {
  // struct perf_record_auxtrace_info: u32 type, u32 reserved, u64 priv[].
  std::vector<std::byte> body(8 + 8 * priv.size());
  std::memcpy(body.data(), &type, 4);
  if (!priv.empty()) std::memcpy(body.data() + 8, priv.data(), 8 * priv.size());
  record(record_auxtrace_info, 0, body);
}

void PerfDataWriter::auxtrace(std::span<const std::byte> data, std::uint64_t offset, std::uint32_t idx,
                              std::uint32_t tid, std::uint32_t cpu, std::uint64_t reference) {
  // struct perf_record_auxtrace: u64 size, offset, reference; u32 idx, tid,
  // cpu, reserved. The data follows, outside the record's size.
  const std::size_t padding = (8 - data.size() % 8) % 8;
  const std::uint64_t size = data.size() + padding;
  std::array<std::byte, 40> body{};
  const std::uint32_t fields[] = {idx, tid, cpu, 0};
  std::memcpy(body.data(), &size, 8);
  std::memcpy(body.data() + 8, &offset, 8);
  std::memcpy(body.data() + 16, &reference, 8);
  std::memcpy(body.data() + 24, fields, 16);
  const RecordHeader h{record_auxtrace, 0, static_cast<std::uint16_t>(sizeof(RecordHeader) + body.size())};
  put(&h, sizeof h);
  put(body.data(), body.size());
  put(data.data(), data.size());
  static constexpr std::array<std::byte, 8> zeros{};
  put(zeros.data(), padding);
  data_size_ += h.size + size;
  if (data_size_ >= next_checkpoint_) {
    checkpoints_.push_back({data_size_, samples_});
    next_checkpoint_ = data_size_ + checkpoint_step;
  }
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

namespace {

// What MMAP and MMAP2 start with.
void mapping(Bytes& b, std::uint32_t pid, std::uint32_t tid, std::uint64_t start, std::uint64_t len,
             std::uint64_t pgoff) {
  b.put(pid);
  b.put(tid);
  b.put(start);
  b.put(len);
  b.put(pgoff);
}

}  // namespace

void PerfDataWriter::mmap2(std::uint32_t pid, std::uint32_t tid, std::uint64_t start, std::uint64_t len,
                           std::uint64_t pgoff, std::string_view filename, std::string_view build_id,
                           RecordWhere where, std::uint16_t cpumode) {
  Bytes b;
  mapping(b, pid, tid, start, len, pgoff);
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

void PerfDataWriter::mmap(std::uint32_t pid, std::uint32_t tid, std::uint64_t start, std::uint64_t len,
                          std::uint64_t pgoff, std::string_view filename, RecordWhere where, std::uint16_t cpumode) {
  Bytes b;
  mapping(b, pid, tid, start, len, pgoff);
  b.c_string(filename, 8);
  trailer(b, events_[0], where);
  record(record_mmap, cpumode, as_bytes(b));
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
                            "IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, CALLCHAIN, RAW, WEIGHT, "
                            "WEIGHT_STRUCT, DATA_SRC, PHYS_ADDR); use record()",
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
  if (t & PERF_SAMPLE_CALLCHAIN) {
    b.put(static_cast<std::uint64_t>(f.callchain.size()));
    b.put(f.callchain.data(), f.callchain.size() * 8);
  }
  if (t & PERF_SAMPLE_RAW) {
    // The kernel pads the raw data so that the u32 size and it end on 8 bytes.
    const std::size_t padded = align_up(4 + f.raw.size(), 8) - 4;
    b.put(static_cast<std::uint32_t>(padded));
    b.put(f.raw.data(), f.raw.size());
    b.zeros(padded - f.raw.size());
  }
  // The kernel's order (perf_output_sample): WEIGHT or WEIGHT_STRUCT, then
  // DATA_SRC, then PHYS_ADDR (after the register and stack fields, which
  // sample() does not write).
  if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) b.put(f.weight);
  if (t & PERF_SAMPLE_DATA_SRC) b.put(f.data_src);
  if (t & PERF_SAMPLE_PHYS_ADDR) b.put(f.phys_addr);
  record(record_sample, f.misc, as_bytes(b));
}

namespace {

Bytes string_body(std::string_view s) {
  Bytes b;
  b.header_string(s);
  return b;
}

Bytes build_id_body(const std::vector<BuildIdEntry>& entries) {
  Bytes b;
  for (const BuildIdEntry& e : entries) {
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
  return b;
}

Bytes event_desc_body(const std::vector<WriterEvent>& events) {
  Bytes b;
  b.put(static_cast<std::uint32_t>(events.size()));
  b.put(static_cast<std::uint32_t>(sizeof(perf_event_attr)));
  for (const WriterEvent& e : events) {
    b.put(e.attr);
    b.put(static_cast<std::uint32_t>(e.ids.size()));
    b.header_string(e.name);
    b.put(e.ids.data(), e.ids.size() * 8);
  }
  return b;
}

// The feature sections to write (tools/perf/util/header.c's write_*), by bit.
std::vector<std::pair<unsigned, Bytes>> feature_bodies(const WriterFeatures& f, const std::vector<WriterEvent>& events) {
  std::vector<std::pair<unsigned, Bytes>> out;
  auto string_feature = [&](unsigned bit, std::string_view s) {
    if (!s.empty()) out.emplace_back(bit, string_body(s));
  };
  if (!f.build_ids.empty()) out.emplace_back(feature_build_id, build_id_body(f.build_ids));
  string_feature(feature_hostname, f.hostname);
  string_feature(feature_osrelease, f.os_release);
  string_feature(feature_arch, f.arch);
  if (f.cpus) {
    Bytes b;
    b.put(f.cpus->available);
    b.put(f.cpus->online);
    out.emplace_back(feature_nrcpus, std::move(b));
  }
  string_feature(feature_cpudesc, f.cpu_description);
  if (f.cpuid) out.emplace_back(feature_cpuid, string_body(*f.cpuid));
  if (f.total_memory_kb) {
    Bytes b;
    b.put(f.total_memory_kb);
    out.emplace_back(feature_total_mem, std::move(b));
  }
  if (!f.cmdline.empty()) {
    Bytes b;
    b.put(static_cast<std::uint32_t>(f.cmdline.size()));
    for (const std::string& word : f.cmdline) b.header_string(word);
    out.emplace_back(feature_cmdline, std::move(b));
  }
  out.emplace_back(feature_event_desc, event_desc_body(events));
  if (!f.numa_nodes.empty()) {
    // perf's write_numa_topology(): the count, then each node's number,
    // total and free memory (kB) and CPU list.
    Bytes b;
    b.put(static_cast<std::uint32_t>(f.numa_nodes.size()));
    for (const NumaNode& n : f.numa_nodes) {
      b.put(n.node);
      b.put(n.mem_total_kb);
      b.put(n.mem_free_kb);
      b.header_string(n.cpus);
    }
    out.emplace_back(feature_numa_topology, std::move(b));
  }
  if (!f.pmu_mappings.empty()) {
    Bytes b;
    b.put(static_cast<std::uint32_t>(f.pmu_mappings.size()));
    for (const PmuMapping& m : f.pmu_mappings) {
      b.put(m.type);
      b.header_string(m.name);
    }
    out.emplace_back(feature_pmu_mappings, std::move(b));
  }
  if (!f.pmu_caps.empty()) {
    // perf's write_pmu_caps() (6.1): the PMUs, each its capabilities as
    // name and value strings, then its name.
    Bytes b;
    b.put(static_cast<std::uint32_t>(f.pmu_caps.size()));
    for (const PmuCaps& p : f.pmu_caps) {
      b.put(static_cast<std::uint32_t>(p.caps.size()));
      for (const auto& [name, value] : p.caps) {
        b.header_string(name);
        b.header_string(value);
      }
      b.header_string(p.pmu);
    }
    out.emplace_back(feature_pmu_caps, std::move(b));
  }
  // perf reads the index of sections in the order of their bits.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace

void PerfDataWriter::write_features_and_header() {
  header_.data.size = data_size_;
  header_.features = {};
  const auto bodies = feature_bodies(features_, events_);
  std::uint64_t at = header_.data.offset + data_size_;
  std::uint64_t body_at = at + bodies.size() * sizeof(FileSection);
  Bytes index;
  for (const auto& [bit, body] : bodies) {
    header_.features[bit / 64] |= std::uint64_t{1} << (bit % 64);
    index.put(FileSection{body_at, body.size()});
    body_at += body.size();
  }
  write_at(at, index.data(), index.size());
  at += index.size();
  for (const auto& [bit, body] : bodies) {
    write_at(at, body.data(), body.size());
    at += body.size();
  }
  write_at(0, &header_, sizeof header_);
}

void PerfDataWriter::finish() {
  if (fd_ < 0) return;
  if (!write_error_) {
    try {
      flush();
    } catch (const Error&) {
      // write_error_ says what; the file is cut back below.
    }
  }
  // Where the data section may end, best first: all of it, else each
  // record end that is on disk, else none. Cutting it back gives the
  // features room on a full disk.
  std::vector<DataEnd> ends;
  if (!write_error_) ends.push_back({data_size_, samples_});
  for (auto it = checkpoints_.rbegin(); it != checkpoints_.rend(); ++it)
    if (header_.data.offset + it->size <= on_disk_) ends.push_back(*it);
  ends.push_back({0, 0});
  std::string problem;
  for (const DataEnd& end : ends) {
    if (write_error_ && ::ftruncate(fd_, static_cast<off_t>(header_.data.offset + end.size)) != 0) {
      struct stat st {};
      const bool regular = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
      problem = fmt::format("{}; nothing written can be kept: {}", describe_write_failure(path_, write_error_, "data"),
                            regular ? fmt::format("cannot cut the file back to a whole record: {}", std::strerror(errno))
                                    : std::string("it is not a regular file"));
      break;
    }
    data_size_ = end.size;
    samples_ = end.samples;
    try {
      write_features_and_header();
      problem.clear();
      break;
    } catch (const Error& e) {
      problem = e.what();
      if (!out_of_room(write_error_)) break;
    }
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && problem.empty()) problem = fmt::format("{}: close failed: {}", path_, std::strerror(errno));
  if (!problem.empty()) throw Error(ErrorCode::io, problem);
}

}  // namespace tagop::perf_data
