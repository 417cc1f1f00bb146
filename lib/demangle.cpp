#include "demangle.hpp"

#include <csetjmp>   // std::jmp_buf, std::longjmp
#include <cstdlib>   // std::free
#include <cstring>   // std::strlen
#include <cxxabi.h>  // abi::__cxa_demangle
#include <memory>    // std::unique_ptr

// libiberty.h, which demangle.h includes, declares basename() unless told
// that string.h did.
#define HAVE_DECL_BASENAME 1
#include <libiberty/demangle.h>  // cplus_demangle_v3_callback

namespace tagop {

namespace {

// The demangler's work space is on the stack and grows with the mangled
// name; its output, with what the name asks to repeat.
constexpr std::size_t max_mangled = 16 * 1024;
constexpr std::size_t max_demangled = 64 * 1024;

// libiberty's demangler prints through a callback, from stack memory only:
// past the bound the callback jumps out, and nothing is left to free.
struct BoundedText {
  std::size_t size = 0;
  std::jmp_buf too_long;
};

extern "C" void count_demangled(const char*, std::size_t n, void* opaque) {
  auto* text = static_cast<BoundedText*>(opaque);
  text->size += n;
  if (text->size > max_demangled) std::longjmp(text->too_long, 1);
}

// The short name's text, kept up to the bound.
struct BoundedString {
  std::string text;
  std::jmp_buf too_long;
};

extern "C" void append_demangled(const char* part, std::size_t n, void* opaque) {
  auto* out = static_cast<BoundedString*>(opaque);
  if (out->text.size() + n > max_demangled) std::longjmp(out->too_long, 1);
  out->text.append(part, n);
}

// The short name into `out`, which lives in the caller's frame (not in
// the one that setjmp returns to twice). The callback jumps out before it
// appends, never inside an allocation; the frames it jumps over
// (libiberty's, in C) own nothing to free.
bool short_within_bounds(const char* name, BoundedString& out) {
  if (setjmp(out.too_long) != 0) return false;
  return cplus_demangle_v3_callback(name, DMGL_NO_OPTS, append_demangled, &out) != 0;
}

bool demangles_within_bounds(const char* name) {
  if (std::strlen(name) > max_mangled) return false;
  BoundedText text;
  if (setjmp(text.too_long) != 0) return false;
  return cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_ANSI | DMGL_TYPES, count_demangled, &text) != 0;
}

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};

}  // namespace

std::string demangle(const char* name) {
  // Only a C++ symbol: __cxa_demangle reads "f" as the type float.
  if (name[0] != '_' || name[1] != 'Z' || !demangles_within_bounds(name)) return name;
  // The same text as the C++ runtime gives (the bound was libiberty's).
  int status = -1;
  const std::unique_ptr<char, FreeDeleter> demangled(abi::__cxa_demangle(name, nullptr, nullptr, &status));
  return status == 0 && demangled ? std::string(demangled.get()) : std::string(name);
}

std::string demangle_short(const char* name) {
  if (name[0] != '_' || name[1] != 'Z' || std::strlen(name) > max_mangled) return name;
  BoundedString out;
  return short_within_bounds(name, out) ? std::move(out.text) : std::string(name);
}

}  // namespace tagop
