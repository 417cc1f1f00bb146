// libFuzzer target: any bytes as the files a report reads for symbols. As
// an ELF module (ModuleSymbols: its symbol table, program headers, build-id
// note, debug link and line tables, through libdw), as a vmlinux and as a
// kallsyms text. Each must read the file or refuse it with tagop::Error,
// in bounded time and memory, and answer lookups at any offset.

#include <unistd.h>  // ::getpid

#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint8_t, std::uint64_t
#include <filesystem>  // the file the bytes are written to
#include <fstream>     // std::ofstream
#include <string>      // std::string
#include <vector>      // std::vector

#include <tagop/error.hpp>           // Error
#include <tagop/kernel_symbols.hpp>  // KernelSymbols
#include <tagop/module_symbols.hpp>  // ModuleSymbols

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("tagop-symbol-fuzz-" + std::to_string(::getpid()))).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                static_cast<std::streamsize>(size));
  // Offsets from the start, the middle and past the end of the file.
  const std::vector<std::uint64_t> offsets{0, 64, size / 2, size, size + 4096};
  try {
    const auto symbols = tagop::ModuleSymbols::open(path);
    for (std::uint64_t offset : offsets) (void)symbols->lookup(offset);
    std::vector<std::uint32_t> functions(offsets.size());
    symbols->find_functions(offsets, functions);
    for (std::uint32_t f : functions)
      if (f != tagop::ModuleSymbols::none) (void)symbols->function_name(f);
    std::vector<tagop::ModuleSymbols::LineRef> lines(offsets.size());
    symbols->find_lines(offsets, lines);
    (void)symbols->notes();
  } catch (const tagop::Error&) {
    // refused with a message: what bad input gets
  }
  try {
    (void)tagop::KernelSymbols::from_vmlinux(path);
  } catch (const tagop::Error&) {
  }
  try {
    const auto kallsyms =
        tagop::KernelSymbols::parse_kallsyms(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    for (std::uint64_t address : {std::uint64_t{0}, std::uint64_t{0xffffffff81000000}, ~std::uint64_t{0}})
      (void)kallsyms.find(address);
  } catch (const tagop::Error&) {
  }
  return 0;
}
