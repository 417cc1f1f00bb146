#include "plt_stubs.hpp"

#include <gelf.h>  // gelf_getehdr, gelf_getshdr, gelf_getrela, gelf_getrel, gelf_getsym

#include <string_view>  // std::string_view

namespace tagop {

namespace {

struct Section {
  Elf_Scn* scn = nullptr;
  GElf_Shdr header{};
};

Section section_named(Elf* elf, std::size_t names, std::string_view wanted) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    Section s{scn, {}};
    if (gelf_getshdr(scn, &s.header) == nullptr) continue;
    const char* name = elf_strptr(elf, names, s.header.sh_name);
    if (name != nullptr && wanted == name) return s;
  }
  return {};
}

}  // namespace

std::vector<PltStub> plt_stubs(Elf* elf) {
  std::vector<PltStub> stubs;
  GElf_Ehdr ehdr{};
  std::size_t names = 0;
  if (elf == nullptr || gelf_getehdr(elf, &ehdr) == nullptr || elf_getshdrstrndx(elf, &names) != 0) return stubs;
  if (ehdr.e_machine != EM_X86_64 && ehdr.e_machine != EM_386) return stubs;

  // Where the stubs are: .plt.sec when the module has one, else .plt
  // after its header.
  const Section plt = section_named(elf, names, ".plt");
  const Section plt_sec = section_named(elf, names, ".plt.sec");
  const Section& code = plt_sec.scn != nullptr ? plt_sec : plt;
  if (code.scn == nullptr || code.header.sh_type != SHT_PROGBITS) return stubs;
  const std::uint64_t first = code.header.sh_addr + (plt_sec.scn != nullptr ? 0 : plt_stub_size);
  const std::uint64_t end = code.header.sh_addr + code.header.sh_size;

  Section relocations = section_named(elf, names, ".rela.plt");
  if (relocations.scn == nullptr) relocations = section_named(elf, names, ".rel.plt");
  const bool rela = relocations.header.sh_type == SHT_RELA;
  if (relocations.scn == nullptr || (!rela && relocations.header.sh_type != SHT_REL)) return stubs;
  // The relocations' symbols: the dynamic symbol table, and its names.
  Elf_Scn* symbols_scn = elf_getscn(elf, relocations.header.sh_link);
  GElf_Shdr symbols_header{};
  if (symbols_scn == nullptr || gelf_getshdr(symbols_scn, &symbols_header) == nullptr ||
      symbols_header.sh_type != SHT_DYNSYM)
    return stubs;
  Elf_Data* relocation_data = elf_getdata(relocations.scn, nullptr);
  Elf_Data* symbol_data = elf_getdata(symbols_scn, nullptr);
  if (relocation_data == nullptr || symbol_data == nullptr || relocations.header.sh_entsize == 0) return stubs;

  const std::uint64_t count = relocations.header.sh_size / relocations.header.sh_entsize;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t address = first + i * plt_stub_size;
    if (address + plt_stub_size > end) break;
    std::uint64_t info = 0;
    if (rela) {
      GElf_Rela r{};
      if (gelf_getrela(relocation_data, static_cast<int>(i), &r) == nullptr) break;
      info = r.r_info;
    } else {
      GElf_Rel r{};
      if (gelf_getrel(relocation_data, static_cast<int>(i), &r) == nullptr) break;
      info = r.r_info;
    }
    const std::uint64_t symbol = GELF_R_SYM(info);  // gelf_getrel(a) widens an ELF32 r_info
    // Index 0 (an IRELATIVE relocation, an ifunc's resolver by address)
    // names nothing.
    GElf_Sym sym{};
    if (symbol == 0 || gelf_getsym(symbol_data, static_cast<int>(symbol), &sym) == nullptr || sym.st_name == 0)
      continue;
    const char* name = elf_strptr(elf, symbols_header.sh_link, sym.st_name);
    if (name == nullptr || *name == '\0') continue;
    stubs.push_back({address, name});
  }
  return stubs;
}

}  // namespace tagop
