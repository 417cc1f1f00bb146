#pragma once
// An ELF file opened for libelf's reading, closed (libelf's handle, then
// the descriptor) when it goes: what the symbol readers of vmlinux files
// and of data objects open alike; and its loaded segments.

#include <gelf.h>    // Elf, elf_begin, elf_end
#include <unistd.h>  // close

#include <string>   // std::string
#include <utility>  // std::exchange
#include <vector>   // std::vector

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>         // Error
#include <tagop/symbol_files.hpp>  // open_regular_file

namespace tagop {

class ElfFile {
 public:
  /// Opens `path` (a regular file only: a FIFO would block). Throws
  /// tagop::Error: ErrorCode::io "PATH: cannot read: ...", or "PATH: not
  /// an ELF file".
  explicit ElfFile(const std::string& path) {
    std::string problem;
    fd_ = open_regular_file(path, problem);
    if (fd_ < 0) throw Error(ErrorCode::io, fmt::format("{}: cannot read: {}", path, problem));
    elf_version(EV_CURRENT);
    elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) {
      close();
      throw Error(fmt::format("{}: not an ELF file", path));
    }
  }
  ~ElfFile() { close(); }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  Elf* elf() const { return elf_; }

 private:
  void close() {
    if (Elf* e = std::exchange(elf_, nullptr)) elf_end(e);
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  }
  int fd_ = -1;
  Elf* elf_ = nullptr;
};

/// The file's loaded segments (PT_LOAD program headers), in their order;
/// none where it has no program headers.
inline std::vector<GElf_Phdr> load_headers(Elf* elf) {
  std::vector<GElf_Phdr> loads;
  std::size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return loads;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr ph{};
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) && ph.p_type == PT_LOAD) loads.push_back(ph);
  }
  return loads;
}

}  // namespace tagop
