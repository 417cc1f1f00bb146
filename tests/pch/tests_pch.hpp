// The tests' precompiled header: the headers that nearly every test file
// includes and that cost more to parse than most of them (Catch2's single
// header alone is two seconds of each). Parsed once for every test file
// (tests/meson.build: test_objects); each file still includes what it uses,
// so this list changes nothing but the time.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>
