#pragma once
// The busy child of the sampling tests (TAGOP_BUSY, tests/lib/tagop_busy.cpp:
// it spins for the CPU milliseconds it is given).

#include <cstdlib>  // std::getenv, setenv
#include <string>   // std::string

#include <catch2/catch.hpp>

// Under AddressSanitizer, LeakSanitizer checks at exit from a helper process
// of its own (a new pid) that inherits the sampling, adding samples of a pid
// that is not the child's. The sampled programs are not what these tests
// check for leaks, so their leak check is off (this process's own stays on:
// the sanitizer read its options before this runs).
inline const int no_leak_check_in_children = ::setenv("ASAN_OPTIONS", "detect_leaks=0", 1);

inline std::string busy() {
  const char* v = std::getenv("TAGOP_BUSY");
  REQUIRE(v != nullptr);
  return v;
}
