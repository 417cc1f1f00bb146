#include "plt_stubs.hpp"

#include <gelf.h>  // gelf_getehdr, gelf_getshdr, gelf_getrela, gelf_getrel, gelf_getsym

#include <algorithm>      // std::sort, std::unique, std::lower_bound
#include <cstring>        // std::memcpy
#include <string_view>    // std::string_view
#include <vector>         // std::vector

namespace tagop {

namespace {

struct Relocation {
  std::uint64_t symbol = 0;  // index in `symbols`, 0: none
  std::uint64_t addend = 0;
  std::uint32_t type = 0;
  Elf_Scn* symbols = nullptr;
};

// The relocations of `slots` (sorted), found in the dynamic relocation
// sections: .rela.plt first, which has those of .plt and .plt.sec; the
// others (.rela.dyn: megabytes in a large C++ library) only for the slots
// of .plt.got's stubs (`beyond_plt`), while one is still missing.
std::vector<Relocation> relocations_of(Elf* elf, std::size_t names, const std::vector<std::uint64_t>& slots,
                                       const std::vector<bool>& beyond_plt) {
  std::vector<Relocation> found(slots.size());
  std::size_t missing = slots.size();
  for (const bool plt_pass : {true, false}) {
    if (!plt_pass) {
      missing = 0;
      for (std::size_t i = 0; i < slots.size(); ++i) missing += beyond_plt[i] && found[i].symbols == nullptr;
    }
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr && missing > 0; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr header{};
      if (gelf_getshdr(scn, &header) == nullptr || (header.sh_type != SHT_RELA && header.sh_type != SHT_REL) ||
          header.sh_entsize == 0)
        continue;
      const char* name = elf_strptr(elf, names, header.sh_name);
      const bool plt_section = name != nullptr && (std::string_view(name) == ".rela.plt" || std::string_view(name) == ".rel.plt");
      if (plt_section != plt_pass) continue;
      Elf_Scn* symbols = elf_getscn(elf, header.sh_link);
      GElf_Shdr symbols_header{};
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (symbols == nullptr || gelf_getshdr(symbols, &symbols_header) == nullptr ||
          symbols_header.sh_type != SHT_DYNSYM || data == nullptr)
        continue;
      const std::uint64_t count = header.sh_size / header.sh_entsize;
      for (std::uint64_t i = 0; i < count && missing > 0; ++i) {
        GElf_Rela r{};
        if (header.sh_type == SHT_RELA) {
          if (gelf_getrela(data, static_cast<int>(i), &r) == nullptr) break;
        } else {
          GElf_Rel rel{};
          if (gelf_getrel(data, static_cast<int>(i), &rel) == nullptr) break;
          r = {rel.r_offset, rel.r_info, 0};
        }
        const auto at = std::lower_bound(slots.begin(), slots.end(), r.r_offset);
        if (at == slots.end() || *at != r.r_offset) continue;
        Relocation& f = found[static_cast<std::size_t>(at - slots.begin())];
        if (f.symbols != nullptr) continue;
        // gelf_getrel(a) widens an ELF32 r_info to GElf's layout.
        f = {GELF_R_SYM(r.r_info), static_cast<std::uint64_t>(r.r_addend),
             static_cast<std::uint32_t>(GELF_R_TYPE(r.r_info)), symbols};
        --missing;
      }
    }
  }
  return found;
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

  // Every stub with an indirect jump, and the slot it jumps through.
  struct Jump {
    std::uint64_t address, size, slot;
    bool got;  // of .plt.got
  };
  std::vector<Jump> jumps;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header{};
    if (gelf_getshdr(scn, &header) == nullptr || header.sh_type != SHT_PROGBITS) continue;
    const char* section_name = elf_strptr(elf, names, header.sh_name);
    if (section_name == nullptr) continue;
    const std::string_view name = section_name;
    if (name != ".plt" && name != ".plt.sec" && name != ".plt.got") continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr) continue;
    const std::uint64_t size = name == ".plt.got" && header.sh_entsize == 8 ? 8 : 16;
    const auto* bytes = static_cast<const unsigned char*>(data->d_buf);
    for (std::uint64_t at = 0; at + size <= data->d_size; at += size)
      if (const std::uint64_t slot = jump_slot(bytes + at, size, header.sh_addr + at, x86_64))
        jumps.push_back({header.sh_addr + at, size, slot, name == ".plt.got"});
  }
  if (jumps.empty()) return stubs;
  std::vector<std::uint64_t> slots;
  for (const Jump& j : jumps) slots.push_back(j.slot);
  std::sort(slots.begin(), slots.end());
  slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
  auto index_of = [&](std::uint64_t slot) {
    return static_cast<std::size_t>(std::lower_bound(slots.begin(), slots.end(), slot) - slots.begin());
  };
  std::vector<bool> beyond_plt(slots.size());
  for (const Jump& j : jumps)
    if (j.got) beyond_plt[index_of(j.slot)] = true;
  const std::vector<Relocation> relocations = relocations_of(elf, names, slots, beyond_plt);

  for (const Jump& j : jumps) {
    const Relocation& r = relocations[index_of(j.slot)];
    if (r.symbols == nullptr) continue;  // the header's slot, or one without a relocation
    PltStub stub{j.address, j.size, nullptr, 0};
    if (r.symbol != 0) {
      GElf_Shdr symbols_header{};
      GElf_Sym sym{};
      Elf_Data* symbol_data = elf_getdata(r.symbols, nullptr);
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
  return stubs;
}

}  // namespace tagop
