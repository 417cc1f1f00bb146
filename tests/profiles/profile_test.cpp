// The neutral profile model: interning, flat storage, labels, and the
// errors that name what is wrong.

#include <catch2/catch.hpp>

#include <functional>

#include <tagop/error.hpp>
#include <tagop/profiles/profile.hpp>

using namespace tagop::profiles;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tagop::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("mappings and locations are interned: the same one twice has one id", "[profiles]") {
  Profile p({{"samples", "count"}});
  const MappingId exe = p.add_mapping({0x400000, 0x500000, 0, "/usr/bin/prog", "ab"});
  const MappingId libc = p.add_mapping({0x7f0000000000, 0x7f0000200000, 0x1000, "/lib/libc.so.6", ""});
  CHECK(exe == 0);
  CHECK(libc == 1);
  CHECK(p.add_mapping({0x400000, 0x500000, 0, "/usr/bin/prog", "ab"}) == exe);
  CHECK(p.mappings().size() == 2);

  const Location work{0x401234, exe, {{"work", "_Z4workv", "prog.cpp", 42}}};
  const LocationId a = p.add_location(work);
  CHECK(p.add_location(work) == a);
  Location other_line = work;
  other_line.frames[0].line = 43;
  CHECK(p.add_location(other_line) != a);
  Location inlined = work;
  inlined.frames.insert(inlined.frames.begin(), {"helper", "", "prog.hpp", 7});
  CHECK(p.add_location(inlined) != a);
  CHECK(p.add_location({0x401234, std::nullopt, {}}) != a);  // same address, no mapping
  CHECK(p.locations().size() == 4);
}

TEST_CASE("samples are stored flat and read back with their labels", "[profiles]") {
  Profile p({{"samples", "count"}, {"ibs_dc_miss", "count", 65536}});
  const LocationId leaf = p.add_location({0x10, std::nullopt, {{"leaf", "", "", 0}}});
  const LocationId root = p.add_location({0x20, std::nullopt, {{"root", "", "", 0}}});
  const std::int64_t v1[] = {1, 1}, v2[] = {4, 0};
  const LocationId s1[] = {leaf, root};
  p.add_sample(v1, s1, {.pid = 7, .tid = 8, .cpu = 0, .comm = "prog"});
  p.add_sample(v2, {}, {});
  REQUIRE(p.sample_count() == 2);
  const SampleView a = p.sample(0);
  CHECK(a.values[1] == 1);
  REQUIRE(a.stack.size() == 2);
  CHECK(a.stack[0] == leaf);
  CHECK(a.labels.pid == 7u);
  CHECK(a.labels.tid == 8u);
  CHECK(a.labels.cpu == 0u);  // cpu 0 is a value, not "absent"
  CHECK(a.labels.comm == "prog");
  const SampleView b = p.sample(1);
  CHECK(b.stack.empty());
  CHECK_FALSE(b.labels.pid);
  CHECK_FALSE(b.labels.cpu);
  CHECK(b.labels.comm.empty());
  // Exported values are value x period: 1 x 65536, and 4 x 1.
  CHECK(p.exported_value(0, 1) == 65536);
  CHECK(p.exported_value(1, 0) == 4);
  CHECK(p.exported_total(0) == 5);
  CHECK(p.exported_total(1) == 65536);
}

TEST_CASE("a period that is not whole rounds to the nearest unit", "[profiles]") {
  // IBS periods averaged over samples with different MaxCnt need not be whole.
  Profile p({{"ibs_op", "count", 16.5}});
  const std::int64_t three[] = {3};
  p.add_sample(three, {});
  CHECK(p.exported_value(0, 0) == 50);  // 49.5 rounds away from zero
}

TEST_CASE("the model refuses what pprof could not represent, saying what and where", "[profiles]") {
  CHECK(error_of([] { Profile p({}); }).find("no sample types") != std::string::npos);
  CHECK(error_of([] { Profile p({{"x", "count", 0}}); }).find("x/count has period 0") != std::string::npos);
  CHECK(error_of([] { Profile p({{"", "count"}}); }).find("needs a name and a unit") != std::string::npos);
  Profile p({{"samples", "count"}, {"ibs_op", "count", 16}});
  const std::int64_t one[] = {1};
  CHECK(error_of([&] { p.add_sample(one, {}); }) ==
        "profile: sample 0 has 1 values, but the profile has 2 sample types");
  const std::int64_t two[] = {1, 1};
  const LocationId missing[] = {3};
  CHECK(error_of([&] { p.add_sample(two, missing); }) ==
        "profile: sample 0 names location 3, but the profile has 0 locations");
  CHECK(error_of([&] { p.add_location({0x1234, MappingId{2}, {}}); }) ==
        "profile: location 0x1234 names mapping 2, but the profile has 0 mappings");
  CHECK(error_of([&] { p.add_mapping({0x2000, 0x1000, 0, "a.so", ""}); }) ==
        "profile: mapping a.so ends (0x1000) before it starts (0x2000)");
  CHECK(p.sample_count() == 0);  // nothing half-added
}
