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

/// The same name as perf prints it by default (its demangler without
/// DMGL_PARAMS): no parameter lists, no return types (`bitmap_set_bit`
/// for `bitmap_set_bit(bitmap_head*, int)`, `ns::f<int>` for a template);
/// within the same bounds, the name as given where it does not demangle.
std::string demangle_short(const char* name);

}  // namespace tagop
