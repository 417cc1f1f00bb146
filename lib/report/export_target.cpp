// Where an export is written: stdout, or a file written beside its path
// and renamed onto it once whole (tagop::ReplacingFile). Unlike a capture,
// which `tagop record` may write in place onto /dev/null, an export to
// something other than a regular file is refused: a profile written into a
// FIFO or a device is almost always a mistyped path.

#include <tagop/report/export.hpp>

#include <sys/stat.h>  // chmod, umask

#include <filesystem>  // status
#include <iostream>    // std::cout

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::report {

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
  // Checked here: ReplacingFile would write such a path in place.
  std::error_code ec;
  const fs::file_status st = fs::status(path_, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw Error(fmt::format("{}: it is {}; give the path of a file to write", path_, kind_of(st.type())));
  const fs::path parent = fs::path(path_).parent_path();
  const fs::path dir = parent.empty() ? fs::path(".") : parent;
  if (!fs::is_directory(dir, ec))
    throw Error(fmt::format("{}: the directory {} does not exist", path_, dir.string()));
  file_.emplace(path_);
  // "r+": the temporary file is new and empty. Truncating it (what "w"
  // does) marks it, on ext4, as a file replaced by rewriting, whose blocks
  // are then allocated and written out at close (auto_da_alloc): 0.6-1.6
  // ms of a 14 MB export's close, for nothing.
  out_.open(file_->writing(), std::ios::binary | std::ios::in | std::ios::out);
  if (!out_) throw Error(fmt::format("{}: cannot write {}", path_, file_->writing()));
}

ExportTarget::~ExportTarget() = default;  // ReplacingFile removes the temporary file

std::ostream& ExportTarget::stream() { return file_ ? static_cast<std::ostream&>(out_) : std::cout; }

void ExportTarget::commit() {
  if (!file_) {
    std::cout.flush();
    if (!std::cout) throw Error("cannot write to stdout");
    return;
  }
  out_.close();
  if (!out_) throw Error(fmt::format("{}: writing {} failed (is the disk full?)", path_, file_->writing()));
  // mkstemp makes the file 0600; an export is as readable as any other file.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(file_->writing().c_str(), 0666 & ~mask);
  file_->commit();
}

}  // namespace tagop::report
