// The command's precompiled header: the header-only libraries that nearly
// every file of tools/ includes, and that cost more to parse than the file
// itself (CLI11 and nlohmann/json alone took about 7 s of each file's
// compile). Parsed once per target instead of once per file; every file
// still includes what it uses, so this list changes nothing but the time.
#include <CLI/CLI.hpp>
#include <boost/hana/accessors.hpp>
#include <boost/hana/define_struct.hpp>
#include <boost/hana/for_each.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
