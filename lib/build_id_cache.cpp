#include <tagop/build_id_cache.hpp>

#include <unistd.h>  // ::getpid

#include <cerrno>      // errno
#include <cstring>     // std::strerror, std::memcmp
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream, std::ofstream
#include <iterator>    // std::istreambuf_iterator

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop {

namespace fs = std::filesystem;

std::string build_id_cache_file(std::string_view dir, std::string_view name, std::string_view build_id,
                                std::string_view file) {
  return (fs::path(dir) / name / build_id / file).string();
}

std::string keep_in_build_id_cache(std::string_view dir, std::string_view name, std::string_view build_id,
                                   std::string_view file, std::span<const std::byte> bytes) {
  if (build_id.size() < 3) throw Error(fmt::format("cannot keep {} in the build-id cache: no build-id", name));
  const fs::path path = build_id_cache_file(dir, name, build_id, file);
  const fs::path home = path.parent_path();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    fs::create_directories(home, ec);
    if (ec) throw Error(fmt::format("cannot create {}: {}", home.string(), ec.message()));
    // Written aside and renamed: a reader never sees half a file.
    const fs::path part = home / fmt::format(".{}.{}", file, ::getpid());
    {
      std::ofstream out(part, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      if (!out.flush()) {
        fs::remove(part, ec);
        throw Error(fmt::format("cannot write {}: {}", part.string(), std::strerror(errno)));
      }
    }
    fs::rename(part, path, ec);
    if (ec) {
      std::error_code ignored;
      fs::remove(part, ignored);
      throw Error(fmt::format("cannot write {}: {}", path.string(), ec.message()));
    }
  }
  // perf's link: .build-id/xx/rest -> ../../NAME/ID (a directory).
  const fs::path links = fs::path(dir) / ".build-id" / build_id.substr(0, 2);
  const fs::path link = links / build_id.substr(2);
  if (!fs::is_symlink(fs::symlink_status(link, ec))) {
    fs::create_directories(links, ec);
    if (!ec) fs::create_directory_symlink(fs::path("../..") / name / build_id, link, ec);
    if (ec && !fs::exists(link)) throw Error(fmt::format("cannot create {}: {}", link.string(), ec.message()));
  }
  return path.string();
}

std::string keep_kallsyms_in_build_id_cache(std::string_view dir, std::string_view build_id,
                                            const std::string& kallsyms) {
  constexpr std::string_view name = "[kernel.kallsyms]";
  if (const std::string kept = build_id_cache_file(dir, name, build_id, "kallsyms"); fs::exists(kept)) return kept;
  std::ifstream in(kallsyms, std::ios::binary);
  std::string text(std::istreambuf_iterator<char>(in), {});
  if (in.bad() || (!in.eof() && in.fail()) || text.empty())
    throw Error(fmt::format("cannot read {}: {}", kallsyms, text.empty() ? "empty or unreadable" : std::strerror(errno)));
  // Hidden addresses: every line's address is sixteen zeros.
  bool any_address = false;
  for (std::size_t at = 0; at < text.size() && !any_address; at = text.find('\n', at) + 1) {
    any_address = text.compare(at, 16, "0000000000000000") != 0;
    if (text.find('\n', at) == std::string::npos) break;
  }
  if (!any_address) return "";
  return keep_in_build_id_cache(dir, name, build_id, "kallsyms", std::as_bytes(std::span(text.data(), text.size())));
}

}  // namespace tagop
