#pragma once
// The stubs of a module's procedure linkage table, each named after the
// function it jumps to, as objdump labels them and perf names them
// ("free@plt"). No symbol table has them: a stub's name is that of the
// relocation of the GOT slot its indirect jump goes through. The slot is
// read from the jump itself (jmp *disp32(%rip)), not assumed from the
// relocations' order: in libc the ifuncs' stubs come first and their
// relocations last, and perf 6.1, which assumes the order, names libc's
// stubs wrongly.
//
// x86 only: the stubs of .plt (the header's jump goes through a slot that
// has no relocation, so it stays unnamed), of .plt.sec (-z ibtplt, which
// Debian's toolchain does not default to; .plt's entries then jump to the
// header, not through a slot) and of .plt.got (functions whose address is
// also taken; their slots' relocations are in .rela.dyn).

#include <libelf.h>  // Elf

#include <cstdint>  // std::uint64_t
#include <vector>   // std::vector

namespace tagop {

struct PltStub {
  std::uint64_t address = 0;   // in the ELF file's addresses (no load bias)
  std::uint64_t size = 0;      // 16, or 8 in a .plt.got of 8-byte entries
  const char* name = nullptr;  // the dynamic symbol's, in libelf's string table
  // An ifunc's stub (an IRELATIVE relocation, no symbol): its resolver's
  // address, to be named by the symbol there; `name` is null.
  std::uint64_t resolver = 0;
};

/// The named stubs of `elf`, section by section: none for a module without
/// a PLT or of another machine. A damaged file gets fewer names, never a
/// read outside its sections.
std::vector<PltStub> plt_stubs(Elf* elf);

}  // namespace tagop
