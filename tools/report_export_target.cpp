// Where `tagop report` writes an export: stdout, or a file written beside
// its path and renamed onto it once whole.

#include <sys/stat.h>  // chmod, umask
#include <stdlib.h>  // mkstemp
#include <unistd.h>  // close

#include <cerrno>      // errno
#include <cstdio>      // std::rename
#include <cstring>     // std::strerror
#include <filesystem>  // status
#include <iostream>    // std::cout

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

#include "report_export.hpp"

namespace tagop::cli {

namespace fs = std::filesystem;

namespace {

bool to_stdout(const std::string& path) { return path.empty() || path == "-"; }

std::string kind_of(fs::file_type t) {
  switch (t) {
    case fs::file_type::directory: return "a directory";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::socket: return "a socket";
    case fs::file_type::block:
    case fs::file_type::character: return "a device";
    default: return "not a regular file";
  }
}

}  // namespace

ExportTarget::ExportTarget(std::string path) : path_(std::move(path)) {
  if (to_stdout(path_)) return;
  std::error_code ec;
  const fs::file_status st = fs::status(path_, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw Error(fmt::format("-o {}: it is {}; give the path of a file to write", path_, kind_of(st.type())));
  const fs::path parent = fs::path(path_).parent_path();
  const fs::path dir = parent.empty() ? fs::path(".") : parent;
  if (!fs::is_directory(dir, ec))
    throw Error(fmt::format("-o {}: the directory {} does not exist", path_, dir.string()));
  std::string temp = (dir / ("." + fs::path(path_).filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) throw Error(fmt::format("-o {}: cannot write in {}: {}", path_, dir.string(), std::strerror(errno)));
  ::close(fd);
  temp_ = temp;
  file_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!file_) throw Error(fmt::format("-o {}: cannot write {}", path_, temp_));
}

ExportTarget::~ExportTarget() {
  if (!temp_.empty() && !committed_) std::remove(temp_.c_str());
}

std::ostream& ExportTarget::stream() { return temp_.empty() ? std::cout : file_; }

void ExportTarget::commit() {
  if (temp_.empty()) {
    std::cout.flush();
    if (!std::cout) throw Error("cannot write to stdout");
    return;
  }
  file_.close();
  if (!file_) throw Error(fmt::format("-o {}: writing {} failed (is the disk full?)", path_, temp_));
  // mkstemp makes the file 0600; an export is as readable as any other file.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(temp_.c_str(), 0666 & ~mask);
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    throw Error(fmt::format("-o {}: cannot rename {} onto it: {}", path_, temp_, std::strerror(errno)));
  committed_ = true;
}

}  // namespace tagop::cli
