#pragma once
// Capstone, loaded when an instruction is first decoded (`tagop emulate`
// classifying one, `tagop annotate` disassembling a function), not when
// tagop starts: its 77 k relocations cost every command 1.2 ms of
// start-up (page faults on this VM; 4.8 ms in all for `tagop --version`),
// and every other command works without it. The library is the one tagop
// was built against (its soname, TAGOP_CAPSTONE_SONAME, read at configure
// time), so that the structures in capstone.h are the loaded library's.

#include <capstone/capstone.h>  // the functions' types, cs_insn

namespace tagop {

struct CapstoneLibrary {
  decltype(&cs_open) open;
  decltype(&cs_option) option;
  decltype(&cs_malloc) malloc;
  decltype(&cs_free) free;
  decltype(&cs_close) close;
  decltype(&cs_disasm_iter) disasm_iter;
};

/// The loaded library (once, thread-safe). Throws tagop::Error, saying
/// which library and why, when it cannot be loaded.
const CapstoneLibrary& capstone();

}  // namespace tagop
