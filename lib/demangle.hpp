#pragma once
// C++ symbol names as C++ writes them, within bounds: a crafted name of
// 300 bytes whose templates repeat each other demangles to hundreds of
// megabytes (and seconds), which a symbol table of a capture's module must
// not be able to ask for. Internal to the library.

#include <string>  // std::string

namespace tagop {

/// The demangled name of an Itanium C++ symbol ("_Z..."); the name as given
/// where it is not one, does not demangle, or would demangle to more than
/// 64 KiB (or is longer than 16 KiB itself): perf shows those mangled too.
std::string demangle(const char* name);

}  // namespace tagop
