#pragma once
// An ELF file opened for libelf's reading, closed (libelf's handle, then
// the descriptor) when it goes: what the symbol readers of vmlinux files
// and of data objects open alike.

#include <gelf.h>    // Elf, elf_begin, elf_end
#include <unistd.h>  // close

#include <string>   // std::string
#include <utility>  // std::exchange

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

}  // namespace tagop
