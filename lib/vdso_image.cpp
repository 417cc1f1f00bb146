#include <tagop/vdso_image.hpp>

#include <tagop/build_id_cache.hpp>  // keep_in_build_id_cache

#include <elfutils/libdwelf.h>  // dwelf_elf_gnu_build_id
#include <libelf.h>             // elf_memory

#include <cstring>  // std::memcpy
#include <fstream>  // std::ifstream
#include <sstream>  // std::istringstream

#include <fmt/format.h>  // fmt::format

namespace tagop {

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
  return keep_in_build_id_cache(dir, "[vdso]", image.build_id, "vdso", image.bytes);
}

}  // namespace tagop
