// A rep movsb or rep stosb of N bytes (at most 16384) between two
// 64-byte-aligned buffers that nothing else touches, then exit_group at
// once: the string instructions whose fast-string modelling the tests
// count by hand. stos-fixed stores 4096 bytes with the count an immediate
// moved into rcx just before the rep, in the rep's superblock: the count
// that VEX's optimiser folds into the first run's exit (family_test).
//   string_ops movs N | stos N | stos-fixed

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
constexpr unsigned long most = 16384;
alignas(64) char source[most];
alignas(64) char destination[most];
}  // namespace

int main(int argc, char** argv) {
  void* to = destination;
  if (argc == 2 && std::strcmp(argv[1], "stos-fixed") == 0) {
    asm volatile("cld\n\tmov $4096, %%ecx\n\trep stosb" : "+D"(to) : "a"(0x5A) : "rcx", "memory");
    asm volatile("syscall" : : "a"(231), "D"(0) : "rcx", "r11", "memory");  // exit_group(0)
  }
  const unsigned long n = argc == 3 ? std::strtoul(argv[2], nullptr, 10) : most + 1;
  if (n > most || (std::strcmp(argv[1], "movs") != 0 && std::strcmp(argv[1], "stos") != 0)) {
    std::fprintf(stderr, "usage: string_ops movs|stos N (N at most %lu) | stos-fixed\n", most);
    return 2;
  }
  unsigned long count = n;
  if (argv[1][0] == 'm') {
    const void* from = source;
    asm volatile("cld\n\trep movsb" : "+D"(to), "+S"(from), "+c"(count) : : "memory");
  } else {
    asm volatile("cld\n\trep stosb" : "+D"(to), "+c"(count) : "a"(0x5A) : "memory");
  }
  // Straight out, without libc's exit path: what runs after the string is
  // then nothing, so that a longer string changes no other access (the
  // exit path's lines, pushed out of the L1D by a longer string, would
  // miss again).
  asm volatile("syscall" : : "a"(231), "D"(0) : "rcx", "r11", "memory");  // exit_group(0)
  return 0;
}
