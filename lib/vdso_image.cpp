#include <tagop/vdso_image.hpp>

#include <elfutils/libdwelf.h>  // dwelf_elf_gnu_build_id
#include <libelf.h>             // elf_memory

#include <cstring>     // std::memcpy, std::strerror
#include <filesystem>  // create_directories, create_directory_symlink, rename
#include <fstream>     // std::ifstream, std::ofstream
#include <sstream>     // std::istringstream
#include <unistd.h>    // getpid

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop {

namespace fs = std::filesystem;

std::optional<VdsoImage> this_process_vdso(std::string& problem) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::uint64_t start = 0, end = 0;
  while (std::getline(maps, line)) {
    // start-end perms offset dev inode path
    if (!line.ends_with(" [vdso]")) continue;
    std::istringstream in(line);
    char dash = 0;
    in >> std::hex >> start >> dash >> end;
    break;
  }
  if (end <= start) {
    problem = "this process has no [vdso] mapping";
    return std::nullopt;
  }
  VdsoImage image;
  image.bytes.resize(end - start);
  std::memcpy(image.bytes.data(), reinterpret_cast<const void*>(start), image.bytes.size());

  elf_version(EV_CURRENT);
  Elf* elf = elf_memory(reinterpret_cast<char*>(image.bytes.data()), image.bytes.size());
  const void* id = nullptr;
  const ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
  if (n > 0)
    for (ssize_t i = 0; i < n; ++i) image.build_id += fmt::format("{:02x}", static_cast<const unsigned char*>(id)[i]);
  if (elf) elf_end(elf);
  if (image.build_id.empty()) {
    problem = "this process's [vdso] has no build-id";
    return std::nullopt;
  }
  return image;
}

std::string save_in_build_id_cache(const VdsoImage& image, const std::string& dir) {
  const fs::path home = fs::path(dir) / "[vdso]" / image.build_id;
  const fs::path file = home / "vdso";
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    fs::create_directories(home, ec);
    if (ec) throw Error(fmt::format("cannot create {}: {}", home.string(), ec.message()));
    // Written aside and renamed: a reader never sees half an image.
    const fs::path part = home / fmt::format(".vdso.{}", ::getpid());
    {
      std::ofstream out(part, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(image.bytes.data()), static_cast<std::streamsize>(image.bytes.size()));
      if (!out.flush()) {
        fs::remove(part, ec);
        throw Error(fmt::format("cannot write {}: {}", part.string(), std::strerror(errno)));
      }
    }
    fs::rename(part, file, ec);
    if (ec) {
      std::error_code ignored;
      fs::remove(part, ignored);
      throw Error(fmt::format("cannot write {}: {}", file.string(), ec.message()));
    }
  }
  // perf's link: .build-id/xx/rest -> ../../[vdso]/ID (a directory).
  const fs::path links = fs::path(dir) / ".build-id" / image.build_id.substr(0, 2);
  const fs::path link = links / image.build_id.substr(2);
  if (!fs::is_symlink(fs::symlink_status(link, ec))) {
    fs::create_directories(links, ec);
    if (!ec) fs::create_directory_symlink(fs::path("../..") / "[vdso]" / image.build_id, link, ec);
    if (ec && !fs::exists(link)) throw Error(fmt::format("cannot create {}: {}", link.string(), ec.message()));
  }
  return file.string();
}

}  // namespace tagop
