// A second file-static annotate_step() for annotate_fixture.cpp: two functions of
// one name in one module, which `tagop annotate annotate_step` must not choose between.

#include <stdexcept>  // std::runtime_error
#include <string>     // std::to_string

static __attribute__((noipa)) unsigned annotate_step(unsigned x) { return x * 5 + 2; }

extern "C" unsigned part_step(unsigned x) { return annotate_step(x); }

// A function GCC splits in two at -O2: its throw goes to
// _ZN7fixture12checked_stepEj.cold, whose short demangled name is the
// function's own; `tagop annotate fixture::checked_step` must take the
// function, not call the name ambiguous.
namespace fixture {
__attribute__((noipa, optimize("O2"))) unsigned checked_step(unsigned x) {
  if (x == 0xdeadbeef) throw std::runtime_error("odd step " + std::to_string(x));
  return x * 3 + 1;
}
}  // namespace fixture
