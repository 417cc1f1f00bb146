#include <tagop/symbol_files.hpp>

#include <elfutils/libdwelf.h>  // dwelf_elf_gnu_build_id
#include <fcntl.h>              // ::open, O_NONBLOCK
#include <gelf.h>               // elf_begin, elf_kind
#include <sys/stat.h>           // ::fstat, ::stat, S_ISREG
#include <unistd.h>             // ::close

#include <algorithm>  // std::all_of
#include <cerrno>     // errno
#include <cstdlib>    // std::getenv
#include <cstring>    // std::strerror
#include <memory>     // std::unique_ptr

#include <fmt/format.h>  // fmt::format

#include "perf_data_reader_guard.hpp"  // ZeroFillScope

namespace tagop {

namespace {

std::string_view file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

struct ElfCloser {
  void operator()(Elf* elf) const { elf_end(elf); }
};

std::string hex(const unsigned char* bytes, std::size_t n) {
  std::string out;
  out.reserve(n * 2);
  for (std::size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", bytes[i]);
  return out;
}

// "DIR/.build-id/xx/rest": perf's build_id_cache__linkname().
std::string build_id_link(std::string_view dir, std::string_view build_id) {
  return fmt::format("{}/.build-id/{}/{}", dir, build_id.substr(0, 2), build_id.substr(2));
}

bool is_regular(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

int open_regular_file(const std::string& path, std::string& problem) {
  // O_NONBLOCK: opening a FIFO with no writer would wait for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    problem = std::strerror(errno);
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    problem = S_ISREG(st.st_mode) ? std::strerror(errno) : std::string(file_kind(st.st_mode));
    ::close(fd);
    return -1;
  }
  // Reads of a regular file never block; the flag would only confuse
  // whoever reads it later.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::optional<std::string> file_build_id(const std::string& path, std::string& problem) {
  const int fd = open_regular_file(path, problem);
  if (fd < 0) return std::nullopt;
  elf_version(EV_CURRENT);
  const perf_data::ZeroFillScope zero_fill;  // a file cut short while read: zeros, not SIGBUS
  std::unique_ptr<Elf, ElfCloser> elf(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
  std::optional<std::string> id;
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) {
    problem = "not an ELF file";
  } else {
    const void* bytes = nullptr;
    const ssize_t n = dwelf_elf_gnu_build_id(elf.get(), &bytes);
    std::size_t size = 0;
    const char* image = elf_rawfile(elf.get(), &size);
    if (image && perf_data::ZeroFillScope::faulted_within(image, size)) problem = "the file shrank while it was read";
    else if (n < 0) problem = fmt::format("unreadable ELF notes: {}", elf_errmsg(-1));
    else id = n == 0 ? "" : hex(static_cast<const unsigned char*>(bytes), static_cast<std::size_t>(n));
  }
  elf.reset();
  ::close(fd);
  return id;
}

bool same_build_id(std::string_view file_id, std::string_view recorded) {
  if (file_id.empty() || recorded.size() < file_id.size() || recorded.substr(0, file_id.size()) != file_id)
    return false;
  return std::all_of(recorded.begin() + static_cast<std::ptrdiff_t>(file_id.size()), recorded.end(),
                     [](char c) { return c == '0'; });
}

std::string SymbolFileSearch::default_build_id_dir() {
  if (const char* dir = std::getenv("PERF_BUILDID_DIR"); dir && *dir) return dir;
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.debug";
  return "";
}

std::string_view describe(SymbolFileOrigin origin) {
  switch (origin) {
    case SymbolFileOrigin::build_id_cache: return "perf's build-id cache";
    case SymbolFileOrigin::build_id_cache_debug: return "perf's build-id cache (debug file)";
    case SymbolFileOrigin::debug_path: return "debug file by path (.debug)";
    case SymbolFileOrigin::debug_mirror: return "debug file by path";
    case SymbolFileOrigin::debug_build_id: return "debug file by build-id";
    case SymbolFileOrigin::module_path: return "the module's path";
  }
  return "?";
}

std::vector<SymbolFileCandidate> symbol_file_candidates(std::string_view module_path, std::string_view build_id,
                                                        const SymbolFileSearch& search) {
  // perf joins every system path to symfs by plain concatenation.
  const std::string symfs = search.symfs;
  const std::string debug = symfs + search.debug_dir;
  // perf stores a 16-byte id padded to 20 bytes: the files are named by
  // the id without its padding.
  std::string id(build_id);
  while (id.size() > 32 && id.size() % 2 == 0 && id.ends_with("00000000")) id.resize(id.size() - 8);
  std::vector<SymbolFileCandidate> out;
  const bool has_id = id.size() >= 2;
  if (has_id && !search.build_id_dir.empty()) {
    const std::string link = build_id_link(search.build_id_dir, id);
    // An old cache holds the file at the link itself; a new one, a directory.
    if (is_regular(link)) {
      out.push_back({link, SymbolFileOrigin::build_id_cache});
    } else {
      // perf keeps the vdso's image as "vdso" (build_id_cache__basename).
      out.push_back({link + (module_path == "[vdso]" ? "/vdso" : "/elf"), SymbolFileOrigin::build_id_cache});
      out.push_back({link + "/debug", SymbolFileOrigin::build_id_cache_debug});
    }
  }
  if (!module_path.empty() && module_path.front() == '/') {
    out.push_back({fmt::format("{}{}.debug", debug, module_path), SymbolFileOrigin::debug_path});
    out.push_back({fmt::format("{}{}", debug, module_path), SymbolFileOrigin::debug_mirror});
  }
  if (has_id) out.push_back({build_id_link(debug, id) + ".debug", SymbolFileOrigin::debug_build_id});
  if (!module_path.empty()) out.push_back({symfs + std::string(module_path), SymbolFileOrigin::module_path});
  return out;
}

SymbolFileSearchResult find_symbol_files(std::string_view module_path, std::string_view build_id,
                                         const SymbolFileSearch& search) {
  SymbolFileSearchResult result;
  for (const SymbolFileCandidate& c : symbol_file_candidates(module_path, build_id, search)) {
    struct stat st {};
    if (::stat(c.path.c_str(), &st) != 0) continue;  // not there: not worth a line
    std::string problem;
    const std::optional<std::string> id = file_build_id(c.path, problem);
    if (!id) {
      result.rejected.push_back(fmt::format("{}: {}", c.path, problem));
    } else if (build_id.empty()) {
      result.files.push_back({c.path, c.origin, false});
    } else if (!same_build_id(*id, build_id)) {
      result.rejected.push_back(fmt::format("{}: build-id {}, not the recorded {}", c.path,
                                            id->empty() ? "none" : *id, build_id));
    } else {
      result.files.push_back({c.path, c.origin, true});
    }
  }
  return result;
}

}  // namespace tagop
