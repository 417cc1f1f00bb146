#include <tagop/replacing_file.hpp>

#include <sys/stat.h>  // stat
#include <unistd.h>    // close, unlink

#include <cerrno>   // errno
#include <cstdio>   // std::rename
#include <cstdlib>  // mkstemp
#include <cstring>  // std::strerror

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop {

ReplacingFile::ReplacingFile(std::string path) : path_(std::move(path)) {
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    writing_ = path_;
    return;
  }
  std::string name = path_ + ".tagop-XXXXXX";
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw Error(ErrorCode::io, fmt::format("{}: cannot create: {}", name, std::strerror(errno)));
  ::close(fd);
  writing_ = temporary_ = name;
}

ReplacingFile::~ReplacingFile() {
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

std::string ReplacingFile::commit(bool keep_old) {
  if (temporary_.empty()) return "";
  std::string kept;
  struct stat st {};
  if (keep_old && ::stat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    kept = path_ + ".old";
    if (std::rename(path_.c_str(), kept.c_str()) != 0)
      throw Error(ErrorCode::io, fmt::format("cannot keep the old {} as {}: {}", path_, kept, std::strerror(errno)));
  }
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0)
    throw Error(ErrorCode::io, fmt::format("cannot rename {} to {}: {}", temporary_, path_, std::strerror(errno)));
  temporary_.clear();
  return kept;
}

}  // namespace tagop
