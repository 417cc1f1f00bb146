// A second file-static annotate_step() for annotate_fixture.cpp: two functions of
// one name in one module, which `tagop annotate annotate_step` must not choose between.

static __attribute__((noipa)) unsigned annotate_step(unsigned x) { return x * 5 + 2; }

extern "C" unsigned part_step(unsigned x) { return annotate_step(x); }
