// A module's data objects from its ELF symbol table, through libelf.

#include "data_objects.hpp"

#include <gelf.h>    // elf_begin, gelf_getsym, gelf_getphdr
#include <unistd.h>  // ::close

#include <algorithm>  // std::sort

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>         // Error
#include <tagop/symbol_files.hpp>  // open_regular_file

#include "../elf_file.hpp"  // ElfFile

namespace tagop::report {

std::unique_ptr<DataObjects> DataObjects::open(const std::string& path) {
  const ElfFile file(path);
  Elf* elf = file.elf();

  // Symbols hold virtual addresses; samples give file offsets. The loaded
  // segments translate (a .bss object lies past its segment's file bytes,
  // where the mapping of the segment's start still puts it: the offset
  // runs on).
  struct Load {
    std::uint64_t vaddr, memsz, offset;
  };
  std::vector<Load> loads;
  for (const GElf_Phdr& ph : load_headers(elf)) loads.push_back({ph.p_vaddr, ph.p_memsz, ph.p_offset});
  auto file_offset = [&](std::uint64_t vaddr, std::uint64_t& out) {
    for (const Load& l : loads)
      if (vaddr >= l.vaddr && vaddr - l.vaddr < l.memsz) {
        out = vaddr - l.vaddr + l.offset;
        return true;
      }
    return false;
  };

  auto objects = std::make_unique<DataObjects>();
  // .symtab when the file has one (statics too), else .dynsym.
  for (const Elf64_Word wanted : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (Elf_Scn* s = elf_nextscn(elf, nullptr); s; s = elf_nextscn(elf, s)) {
      GElf_Shdr h;
      if (!gelf_getshdr(s, &h) || h.sh_type != wanted || h.sh_entsize == 0) continue;
      Elf_Data* data = elf_getdata(s, nullptr);
      if (!data) continue;
      const std::size_t count = std::min<std::size_t>(h.sh_size / h.sh_entsize, data->d_size / h.sh_entsize);
      for (std::size_t i = 0; i < count; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
        const unsigned type = GELF_ST_TYPE(sym.st_info);
        // TLS symbols' values are offsets in the TLS block, not addresses.
        if (type != STT_OBJECT || sym.st_shndx == SHN_UNDEF || sym.st_size == 0) continue;
        const char* name = elf_strptr(elf, h.sh_link, sym.st_name);
        std::uint64_t start;
        if (!name || !*name || !file_offset(sym.st_value, start)) continue;
        objects->objects_.push_back({start, start + sym.st_size, name});
      }
    }
    if (!objects->objects_.empty()) break;
  }
  // By start (aliases at one start: find() takes the last in the table).
  std::stable_sort(objects->objects_.begin(), objects->objects_.end(),
                   [](const Object& a, const Object& b) { return a.start < b.start; });
  return objects;
}

void DataObjects::find(std::span<const std::uint64_t> offsets, std::span<std::uint32_t> out) const {
  // One pass: the offsets ascend, and so do the objects' starts. An
  // object nested in a larger one (rare) is found when it starts last.
  std::size_t next = 0;  // the first object that starts past the offset
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const std::uint64_t at = offsets[i];
    while (next < objects_.size() && objects_[next].start <= at) ++next;
    out[i] = none;
    for (std::size_t k = next; k-- > 0;) {
      if (at < objects_[k].end) {
        out[i] = static_cast<std::uint32_t>(k);
        break;
      }
      // Objects do not nest but by exception: look back a few at most.
      if (next - k > 8) break;
    }
  }
}

}  // namespace tagop::report
