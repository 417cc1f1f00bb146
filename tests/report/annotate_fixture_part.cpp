// A second file-static step() for annotate_fixture.cpp: two functions of
// one name in one module, which `tagop annotate step` must not choose between.

static __attribute__((noipa)) unsigned step(unsigned x) { return x * 5 + 2; }

extern "C" unsigned part_step(unsigned x) { return step(x); }
