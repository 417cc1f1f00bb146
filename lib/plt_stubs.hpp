#pragma once
// The stubs of a module's procedure linkage table, each named after the
// function it jumps to, as perf names them (dso__synthesize_plt_symbols in
// its util/symbol-elf.c): a sample in the stub of free() is "free@plt".
// No symbol table has them: the name comes from the relocation of the
// stub's GOT slot (.rela.plt), the stubs being in the relocations' order.
//
// x86 only (16-byte stubs): after .plt's 16-byte header, or, in a module
// linked for indirect branch tracking (-z ibtplt, which Debian's toolchain
// does not default to), in .plt.sec, which the calls enter and which has
// no header (as objdump and perf since Linux 6.2 read it). Stubs of
// .plt.got (functions whose address is also taken) have no relocation of
// their own there, and perf leaves them unnamed; so does this.

#include <libelf.h>  // Elf

#include <cstdint>  // std::uint64_t
#include <vector>   // std::vector

namespace tagop {

struct PltStub {
  std::uint64_t address = 0;   // in the ELF file's addresses (no load bias)
  const char* name = nullptr;  // the dynamic symbol's, in libelf's string table
};

/// Every stub is this long.
inline constexpr std::uint64_t plt_stub_size = 16;

/// The named stubs of `elf`, in address order: none for a module without
/// a PLT, of another machine, or whose sections disagree (a damaged file
/// gets fewer names, never a read outside its sections).
std::vector<PltStub> plt_stubs(Elf* elf);

}  // namespace tagop
