// Folded stacks (flamegraph.pl's input): checked against hand-written
// text, and against the generator's own tallies on a realistic profile.
// Debian has no flamegraph.pl or inferno package, so no peer runs here.

#include <catch2/catch.hpp>

#include <sstream>

#include <tagop/error.hpp>
#include <tagop/profiles/folded.hpp>

#include "synthetic_profile.hpp"

using namespace tagop::profiles;

TEST_CASE("folded stacks by hand: root first, one line per stack, values x period, sorted", "[profiles][folded]") {
  Profile p({{"samples", "count"}, {"ibs_dc_miss", "count", 16}});
  const MappingId exe = p.add_mapping({0x400000, 0x500000, 0, "/usr/bin/prog", ""});
  const LocationId main_ = p.add_location({0x401000, exe, {{"main", "", "", 0}}});
  const LocationId parse = p.add_location({0x402000, exe, {{"parse", "", "", 0}}});
  // copy() inlined into parse at one address: two frames, innermost first.
  const LocationId copy = p.add_location({0x402010, exe, {{"copy", "", "", 0}, {"parse", "", "", 0}}});
  // No function: module+offset.
  const LocationId bare = p.add_location({0x401234, exe, {}});
  const LocationId s1[] = {copy, main_}, s2[] = {parse, main_}, s3[] = {bare, main_};
  const std::int64_t miss[] = {1, 1}, hit[] = {1, 0};
  p.add_sample(miss, s1);
  p.add_sample(miss, s1);
  p.add_sample(hit, s2);
  p.add_sample(miss, s3);
  p.add_sample(hit, s3);

  std::ostringstream samples, misses;
  write_folded(p, samples, {.sample_type = 0});
  write_folded(p, misses, {.sample_type = 1});
  CHECK(samples.str() ==
        "main;parse 1\n"
        "main;parse;copy 2\n"
        "main;prog+0x1234 2\n");
  // Misses x 16; the stack with none is left out.
  CHECK(misses.str() ==
        "main;parse;copy 32\n"
        "main;prog+0x1234 16\n");
}

TEST_CASE("frame names lose only what would break the format", "[profiles][folded]") {
  CHECK(folded_frame("std::map<int, int>::find(int const&) const") == "std::map<int, int>::find(int const&) const");
  CHECK(folded_frame("a;b") == "a:b");          // ';' separates frames
  CHECK(folded_frame("a\nb\rc\td") == "a b c d");  // a line end would end the record
  CHECK(folded_frame("") == "[unknown]");
  // A terminal's escape (ESC [ 2 J clears the screen) and a byte that is not
  // UTF-8 arrive as text, four characters each.
  CHECK(folded_frame("f\x1b[2J") == "f\\x1b[2J");
  CHECK(folded_frame("g\xff") == "g\\xff");
}

TEST_CASE("the process as the root frame, as stackcollapse-perf.pl writes it", "[profiles][folded]") {
  Profile p({{"samples", "count"}});
  const LocationId f = p.add_location({0x10, std::nullopt, {{"f", "", "", 0}}});
  const std::int64_t one[] = {1};
  p.add_sample(one, {&f, 1}, {.comm = "db;server"});
  p.add_sample(one, {&f, 1}, {.comm = "db;server"});
  p.add_sample(one, {&f, 1}, {});
  p.add_sample(one, {}, {});  // no stack at all
  std::ostringstream out;
  write_folded(p, out, {.sample_type = 0, .process_root = true});
  CHECK(out.str() == "[unknown] 1\n[unknown];f 1\ndb:server;f 2\n");
}

TEST_CASE("folded stacks of a realistic profile equal the generator's tallies", "[profiles][folded]") {
  const synthetic::Machine m = synthetic::make_machine(7, 3000);
  for (std::size_t t = 0; t < synthetic::type_count; ++t) {
    std::ostringstream out;
    write_folded(m.profile, out, {.sample_type = t});
    std::map<std::string, std::int64_t> parsed;
    std::istringstream in(out.str());
    for (std::string line; std::getline(in, line);) {
      const auto space = line.rfind(' ');
      REQUIRE(space != std::string::npos);
      parsed[line.substr(0, space)] += std::stoll(line.substr(space + 1));
    }
    CHECK(parsed == m.expected.folded[t]);
  }
  std::ostringstream out;
  CHECK_THROWS_AS(write_folded(m.profile, out, {.sample_type = 9}), tagop::Error);
}
