#include "plt_stubs.hpp"

#include <gelf.h>  // gelf_getehdr, gelf_getshdr, gelf_getrela, gelf_getrel, gelf_getsym

#include <cstring>        // std::memcpy
#include <string_view>    // std::string_view
#include <unordered_map>  // std::unordered_map

namespace tagop {

namespace {

struct Relocation {
  std::uint64_t symbol = 0;  // index in `symbols`, 0: none
  std::uint64_t addend = 0;
  std::uint32_t type = 0;
  Elf_Scn* symbols = nullptr;
};

// The dynamic relocations of `elf` by the slot they fill.
std::unordered_map<std::uint64_t, Relocation> relocations_by_slot(Elf* elf) {
  std::unordered_map<std::uint64_t, Relocation> by_slot;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header{};
    if (gelf_getshdr(scn, &header) == nullptr || (header.sh_type != SHT_RELA && header.sh_type != SHT_REL) ||
        header.sh_entsize == 0)
      continue;
    Elf_Scn* symbols = elf_getscn(elf, header.sh_link);
    GElf_Shdr symbols_header{};
    if (symbols == nullptr || gelf_getshdr(symbols, &symbols_header) == nullptr ||
        symbols_header.sh_type != SHT_DYNSYM)
      continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    const std::uint64_t count = header.sh_size / header.sh_entsize;
    for (std::uint64_t i = 0; i < count; ++i) {
      GElf_Rela r{};
      if (header.sh_type == SHT_RELA) {
        if (gelf_getrela(data, static_cast<int>(i), &r) == nullptr) break;
      } else {
        GElf_Rel rel{};
        if (gelf_getrel(data, static_cast<int>(i), &rel) == nullptr) break;
        r = {rel.r_offset, rel.r_info, 0};
      }
      // gelf_getrel(a) widens an ELF32 r_info to GElf's layout.
      by_slot.try_emplace(r.r_offset, Relocation{GELF_R_SYM(r.r_info), static_cast<std::uint64_t>(r.r_addend),
                                                 static_cast<std::uint32_t>(GELF_R_TYPE(r.r_info)), symbols});
    }
  }
  return by_slot;
}

// The slot that the first indirect jump of a stub goes through: ff 25
// disp32 (jmp *disp32(%rip) on x86-64, after an endbr64 and a bnd prefix
// where there are), or 0 when the stub has none.
std::uint64_t jump_slot(const unsigned char* stub, std::uint64_t size, std::uint64_t address, bool x86_64) {
  for (std::uint64_t at = 0; at + 6 <= size; ++at) {
    if (stub[at] != 0xff || stub[at + 1] != 0x25) continue;
    std::int32_t disp = 0;
    std::memcpy(&disp, stub + at + 2, 4);
    // On i386 the operand is the slot's address (or its offset from the
    // GOT, in position-independent code: not followed).
    return x86_64 ? address + at + 6 + static_cast<std::uint64_t>(static_cast<std::int64_t>(disp))
                  : static_cast<std::uint32_t>(disp);
  }
  return 0;
}

}  // namespace

std::vector<PltStub> plt_stubs(Elf* elf) {
  std::vector<PltStub> stubs;
  GElf_Ehdr ehdr{};
  std::size_t names = 0;
  if (elf == nullptr || gelf_getehdr(elf, &ehdr) == nullptr || elf_getshdrstrndx(elf, &names) != 0) return stubs;
  if (ehdr.e_machine != EM_X86_64 && ehdr.e_machine != EM_386) return stubs;
  const bool x86_64 = ehdr.e_machine == EM_X86_64;
  std::unordered_map<std::uint64_t, Relocation> relocations;
  bool read_relocations = false;

  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header{};
    if (gelf_getshdr(scn, &header) == nullptr || header.sh_type != SHT_PROGBITS) continue;
    const char* section_name = elf_strptr(elf, names, header.sh_name);
    if (section_name == nullptr) continue;
    const std::string_view name = section_name;
    if (name != ".plt" && name != ".plt.sec" && name != ".plt.got") continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr) continue;
    if (!read_relocations) {
      relocations = relocations_by_slot(elf);
      read_relocations = true;
    }
    const std::uint64_t size = name == ".plt.got" && header.sh_entsize == 8 ? 8 : 16;
    const auto* bytes = static_cast<const unsigned char*>(data->d_buf);
    for (std::uint64_t at = 0; at + size <= data->d_size; at += size) {
      const std::uint64_t address = header.sh_addr + at;
      const auto found = relocations.find(jump_slot(bytes + at, size, address, x86_64));
      if (found == relocations.end()) continue;
      const Relocation& r = found->second;
      PltStub stub{address, size, nullptr, 0};
      GElf_Shdr symbols_header{};
      GElf_Sym sym{};
      Elf_Data* symbol_data = elf_getdata(r.symbols, nullptr);
      if (r.symbol != 0) {
        if (symbol_data == nullptr || gelf_getsym(symbol_data, static_cast<int>(r.symbol), &sym) == nullptr ||
            gelf_getshdr(r.symbols, &symbols_header) == nullptr || sym.st_name == 0)
          continue;
        stub.name = elf_strptr(elf, symbols_header.sh_link, sym.st_name);
        if (stub.name == nullptr || *stub.name == '\0') continue;
      } else if (r.type == (x86_64 ? R_X86_64_IRELATIVE : R_386_IRELATIVE) && r.addend != 0) {
        stub.resolver = r.addend;
      } else {
        continue;
      }
      stubs.push_back(stub);
    }
  }
  return stubs;
}

}  // namespace tagop
