#include "capstone_library.hpp"

#include <dlfcn.h>  // dlopen, dlsym

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop {

namespace {

CapstoneLibrary load() {
  void* library = dlopen(TAGOP_CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!library)
    throw Error(ErrorCode::not_supported, fmt::format("decoding instructions (tagop emulate, tagop annotate) needs Capstone ({}, Debian's libcapstone4): {}",
                                                  TAGOP_CAPSTONE_SONAME, dlerror()));
  auto symbol = [&]<typename F>(F& to, const char* name) {
    to = reinterpret_cast<F>(dlsym(library, name));
    if (!to) throw Error(ErrorCode::not_supported, fmt::format("{} has no {}: {}", TAGOP_CAPSTONE_SONAME, name, dlerror()));
  };
  CapstoneLibrary c{};
  symbol(c.open, "cs_open");
  symbol(c.option, "cs_option");
  symbol(c.malloc, "cs_malloc");
  symbol(c.free, "cs_free");
  symbol(c.close, "cs_close");
  symbol(c.disasm_iter, "cs_disasm_iter");
  return c;  // the library stays loaded: its functions are used until exit
}

}  // namespace

const CapstoneLibrary& capstone() {
  static const CapstoneLibrary library = load();
  return library;
}

}  // namespace tagop
