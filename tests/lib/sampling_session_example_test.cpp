// The usage example of <tagop/sampling_session.hpp>, as the header has it
// (tests/header_example.py makes it a function): it compiles, and it runs,
// sampling ./a.out (here the busy fixture).

#include <catch2/catch.hpp>

#include <unistd.h>  // chdir, getcwd, getpid

#include <cstdlib>     // std::getenv, setenv
#include <filesystem>  // std::filesystem

#include <fmt/format.h>

void sampling_session_header_example();

namespace fs = std::filesystem;

TEST_CASE("the usage example in sampling_session.hpp builds and runs", "[record]") {
  // LeakSanitizer's own checker would be sampled too; it is not the subject.
  ::setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
  const char* busy = std::getenv("TAGOP_BUSY");
  REQUIRE(busy);
  const fs::path dir = fs::temp_directory_path() / fmt::format("tagop-example-{}", ::getpid());
  fs::create_directories(dir);
  fs::copy_file(busy, dir / "a.out", fs::copy_options::overwrite_existing);
  const fs::path back = fs::current_path();
  fs::current_path(dir);
  CHECK_NOTHROW(sampling_session_header_example());
  fs::current_path(back);
  fs::remove_all(dir);
}
