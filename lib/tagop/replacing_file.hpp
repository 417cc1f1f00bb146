#pragma once
// An output file written whole or not at all. A capture is written under a
// temporary name beside its own (FILE.tagop-XXXXXX) and renamed to it only
// when it is done, so that a run that fails, or is stopped, leaves the
// file of that name as it was. A path that names something other than a
// regular file (/dev/null) is written in place.
// Not thread-safe: one object per output, used by one thread.

#include <string>  // std::string

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

class ReplacingFile {
 public:
  /// Creates the temporary file; throws tagop::Error when it cannot.
  explicit ReplacingFile(std::string path);
  /// Removes the temporary file unless commit() gave it its name.
  ~ReplacingFile();
  ReplacingFile(const ReplacingFile&) = delete;
  ReplacingFile& operator=(const ReplacingFile&) = delete;

  /// The path to write: the temporary file, or the path itself when it is
  /// not a regular file.
  const std::string& writing() const { return writing_; }
  /// The path the file will have.
  const std::string& path() const { return path_; }

  /// Gives the file its name. With `keep_old`, a non-empty file of that
  /// name is kept as FILE.old first, as perf record does. Returns where
  /// the old file went ("" when none was kept); throws tagop::Error when a
  /// rename fails.
  std::string commit(bool keep_old = false);

 private:
  std::string path_, writing_, temporary_;
};

}  // namespace tagop
