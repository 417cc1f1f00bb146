#include <tagop/emulate/process_code.hpp>

#include <fcntl.h>     // open
#include <sys/mman.h>  // mmap
#include <sys/stat.h>  // fstat
#include <unistd.h>    // pread, close

#include <algorithm>  // std::sort, std::upper_bound, std::any_of
#include <cstdio>     // std::FILE, std::fopen, getline
#include <cstring>    // std::memcpy

#include <fmt/format.h>  // fmt::format

namespace tagop::emulate {

// A file mapped whole, read-only, for the bytes of its code.
struct ProcessCode::MappedFile {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data = static_cast<const std::uint8_t*>(p);
        size = static_cast<std::size_t>(st.st_size);
      }
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data) ::munmap(const_cast<std::uint8_t*>(data), size);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
};

ProcessCode::ProcessCode(pid_t pid)
    : ProcessCode(fmt::format("/proc/{}/maps", pid), fmt::format("/proc/{}/mem", pid)) {}

ProcessCode::ProcessCode(std::string maps_path, std::string mem_path)
    : maps_path_(std::move(maps_path)), mem_path_(std::move(mem_path)), recent_(recent_size) {}

ProcessCode::~ProcessCode() {
  if (mem_fd_ >= 0) ::close(mem_fd_);
}

std::vector<CodeMapping> ProcessCode::take_new_mappings() {
  std::vector<CodeMapping> out;
  out.swap(new_mappings_);
  return out;
}

const CodeMapping* ProcessCode::mapping_of(std::uint64_t ip) const {
  auto it = std::upper_bound(mappings_.begin(), mappings_.end(), ip,
                             [](std::uint64_t a, const CodeMapping& m) { return a < m.start; });
  if (it == mappings_.begin()) return nullptr;
  --it;
  return ip < it->end ? &*it : nullptr;
}

void ProcessCode::add_mapping(const CodeMapping& m) {
  told_ = true;
  const auto overlaps = [&](const CodeMapping& k) { return k.start < m.end && m.start < k.end; };
  if (std::erase_if(mappings_, overlaps) != 0) {
    // Other code at known addresses: what was decoded there may be stale.
    decoded_.clear();
    for (Slot& s : recent_) s.ip = 0;
  }
  mappings_.insert(std::upper_bound(mappings_.begin(), mappings_.end(), m.start,
                                    [](std::uint64_t a, const CodeMapping& k) { return a < k.start; }),
                   m);
  if (!m.path.empty()) new_mappings_.push_back(m);
}

// Lines of /proc/PID/maps: "start-end perms offset dev inode   path".
void ProcessCode::read_maps() {
  std::FILE* f = std::fopen(maps_path_.c_str(), "re");
  if (!f) return;  // the process is gone: what is known stays
  std::vector<CodeMapping> found;
  char* line = nullptr;
  std::size_t capacity = 0;
  while (::getline(&line, &capacity, f) > 0) {
    unsigned long long start = 0, end = 0, offset = 0;
    char perms[8] = {};
    int path_at = 0;
    if (std::sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &offset, &path_at) < 4) continue;
    if (perms[2] != 'x') continue;
    std::string path = path_at > 0 ? line + path_at : "";
    while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
    if (!path.empty() && path[0] != '/') path.clear();  // [vdso], [stack]: no file
    found.push_back({start, end, offset, std::move(path)});
  }
  std::free(line);
  std::fclose(f);
  std::sort(found.begin(), found.end(), [](const CodeMapping& a, const CodeMapping& b) { return a.start < b.start; });
  if (told_) {
    // The trace's mappings stand; /proc adds only what they leave out
    // (the vDSO, anonymous code).
    for (const CodeMapping& m : found) {
      const bool overlaps = std::any_of(mappings_.begin(), mappings_.end(),
                                        [&](const CodeMapping& k) { return k.start < m.end && m.start < k.end; });
      if (overlaps) continue;
      mappings_.insert(std::upper_bound(mappings_.begin(), mappings_.end(), m.start,
                                        [](std::uint64_t a, const CodeMapping& k) { return a < k.start; }),
                       m);
      if (!m.path.empty()) new_mappings_.push_back(m);
    }
    return;
  }
  for (const CodeMapping& m : found) {
    const CodeMapping* known = mapping_of(m.start);
    const bool same = known && known->start == m.start && known->end == m.end && known->path == m.path;
    if (!same && !m.path.empty()) new_mappings_.push_back(m);
  }
  mappings_ = std::move(found);
}

bool ProcessCode::read_bytes(const CodeMapping& m, std::uint64_t ip, std::uint8_t (&out)[16], std::size_t& got) {
  got = 0;
  if (!m.path.empty()) {
    auto& file = files_[m.path];
    if (!file) file = std::make_unique<MappedFile>(m.path);
    const std::uint64_t at = ip - m.start + m.pgoff;
    if (file->data && at < file->size) {
      got = std::min<std::size_t>(16, file->size - at);
      std::memcpy(out, file->data + at, got);
      return true;
    }
  }
  if (mem_fd_ < 0) mem_fd_ = ::open(mem_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (mem_fd_ < 0) return false;
  const ssize_t n = ::pread(mem_fd_, out, sizeof out, static_cast<off_t>(ip));
  if (n <= 0) return false;
  got = static_cast<std::size_t>(n);
  return true;
}

InstructionInfo ProcessCode::lookup(std::uint64_t ip) {
  if (auto it = decoded_.find(ip); it != decoded_.end()) return it->second;
  const CodeMapping* m = mapping_of(ip);
  if (!m) {
    read_maps();
    m = mapping_of(ip);
  }
  InstructionInfo info;
  std::uint8_t bytes[16] = {};
  std::size_t got = 0;
  if (m && read_bytes(*m, ip, bytes, got)) info = classifier_.classify({bytes, got}, ip);
  if (!info.known) ++unresolved_;
  decoded_.emplace(ip, info);
  return info;
}

}  // namespace tagop::emulate
