// find_symbol_files against perf's own layout: a build-id cache that
// `perf buildid-cache -a` filled, a symfs and a debug directory laid out as
// perf's dso.c names them; build-ids against binutils' readelf; files that
// are not regular (a FIFO, a directory) refused without blocking.

#include <tagop/symbol_files.hpp>

#include <catch2/catch.hpp>

#include <sys/stat.h>  // mkfifo
#include <unistd.h>    // getpid

#include <cstdlib>     // std::getenv
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <string>      // std::string

#include <fmt/format.h>

#include "run_command.hpp"

namespace fs = std::filesystem;

namespace {

std::string temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("tagop-symfiles-{}-{}", ::getpid(), name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  REQUIRE(v != nullptr);
  return v;
}

// The GNU build-id as readelf prints it.
std::string readelf_build_id(const std::string& path) {
  const RunResult r = run_shell(fmt::format("readelf -n {} | sed -n 's/.*Build ID: //p'", path));
  REQUIRE(r.exit_code == 0);
  return r.out.substr(0, r.out.find('\n'));
}

void copy_to(const std::string& from, const std::string& to) {
  fs::create_directories(fs::path(to).parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

}  // namespace

TEST_CASE("build-ids of ELF files, as readelf reads them", "[symbols]") {
  const std::string busy = env("TAGOP_BUSY");
  std::string problem;
  const auto id = tagop::file_build_id(busy, problem);
  REQUIRE(id);
  CHECK(id->size() == 40);
  CHECK(*id == readelf_build_id(busy));
  // The non-PIE fixture is linked without one.
  CHECK(tagop::file_build_id(env("TAGOP_SYMBOLS_NOPIE_FIXTURE"), problem) == "");

  CHECK(!tagop::file_build_id("/nonexistent/file", problem));
  CHECK_THAT(problem, Catch::Contains("No such file"));
  const std::string dir = temp_dir("kinds");
  std::ofstream(dir + "/text") << "not ELF\n";
  CHECK(!tagop::file_build_id(dir + "/text", problem));
  CHECK(problem == "not an ELF file");
  CHECK(!tagop::file_build_id(dir, problem));
  CHECK(problem == "a directory");
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  CHECK(!tagop::file_build_id(dir + "/fifo", problem));  // returns at once: no writer is waited for
  CHECK(problem == "a FIFO");
  CHECK(tagop::open_regular_file("/dev/null", problem) == -1);
  CHECK(problem == "a character device");
  fs::remove_all(dir);

  // perf pads a 16-byte id to 20 bytes.
  CHECK(tagop::same_build_id("0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef00000000"));
  CHECK(!tagop::same_build_id("0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef00000001"));
  CHECK(!tagop::same_build_id("", ""));
}

TEST_CASE("perf's build-id cache, filled by perf buildid-cache, is where perf looks", "[symbols]") {
  if (run_shell("command -v perf").exit_code != 0) {
    WARN("perf is not installed: its build-id cache is not checked");
    return;
  }
  const std::string busy = env("TAGOP_BUSY");
  const std::string id = readelf_build_id(busy);
  const std::string dir = temp_dir("cache");
  const RunResult add = run_shell(fmt::format("HOME={} perf buildid-cache -a {}", dir, busy));
  INFO(add.err);
  REQUIRE(add.exit_code == 0);
  // The capture's path need not exist here: the cache is found by build-id.
  tagop::SymbolFileSearch search;
  search.build_id_dir = dir + "/.debug";
  const auto found = tagop::find_symbol_files("/machine/that/recorded/tagop_busy", id, search);
  REQUIRE(!found.files.empty());
  CHECK(found.files.front().origin == tagop::SymbolFileOrigin::build_id_cache);
  CHECK(found.files.front().build_id_checked);
  CHECK(found.files.front().path == fmt::format("{}/.debug/.build-id/{}/{}/elf", dir, id.substr(0, 2), id.substr(2)));
  std::string problem;
  CHECK(tagop::file_build_id(found.files.front().path, problem) == id);
  fs::remove_all(dir);
}

TEST_CASE("symfs, debug files and the path itself, in perf's order; wrong build-ids refused", "[symbols]") {
  const std::string busy = env("TAGOP_BUSY");
  const std::string id = readelf_build_id(busy);
  const std::string dir = temp_dir("symfs");
  const std::string module = "/opt/app/bin/tool";
  tagop::SymbolFileSearch search;
  search.symfs = dir + "/symfs";
  search.build_id_dir = dir + "/.debug";  // empty

  // The places, by perf's dso.c: /usr/lib/debug/PATH.debug, /usr/lib/debug/PATH,
  // /usr/lib/debug/.build-id/xx/rest.debug and PATH, each under symfs.
  const auto candidates = tagop::symbol_file_candidates(module, id, search);
  std::vector<std::string> paths;
  for (const auto& c : candidates) paths.push_back(c.path);
  const std::string cache = fmt::format("{}/.debug/.build-id/{}/{}", dir, id.substr(0, 2), id.substr(2));
  CHECK(paths == std::vector<std::string>{cache + "/elf", cache + "/debug",
                                          search.symfs + "/usr/lib/debug" + module + ".debug",
                                          search.symfs + "/usr/lib/debug" + module,
                                          fmt::format("{}/usr/lib/debug/.build-id/{}/{}.debug", search.symfs,
                                                      id.substr(0, 2), id.substr(2)),
                                          search.symfs + module});

  // Nothing there yet.
  auto none = tagop::find_symbol_files(module, id, search);
  CHECK(none.files.empty());
  CHECK(none.rejected.empty());

  // The file under symfs, and a debug file by build-id before it.
  copy_to(busy, search.symfs + module);
  copy_to(busy, paths[4]);
  auto both = tagop::find_symbol_files(module, id, search);
  REQUIRE(both.files.size() == 2);
  CHECK(both.files[0].origin == tagop::SymbolFileOrigin::debug_build_id);
  CHECK(both.files[1].origin == tagop::SymbolFileOrigin::module_path);
  CHECK(both.files[1].path == search.symfs + module);

  // Another binary at the debug path: its build-id is not the recorded one.
  const std::string other = env("TAGOP_KERNEL_SYMBOLS_FIXTURE");
  copy_to(other, paths[3]);
  auto mixed = tagop::find_symbol_files(module, id, search);
  REQUIRE(mixed.rejected.size() == 1);
  CHECK_THAT(mixed.rejected[0], Catch::StartsWith(paths[3] + ": build-id ") &&
                                    Catch::EndsWith(", not the recorded " + id));
  CHECK(mixed.files.size() == 2);

  // A FIFO where the file should be: refused, never opened to block.
  fs::remove(search.symfs + module);
  REQUIRE(::mkfifo((search.symfs + module).c_str(), 0600) == 0);
  auto fifo = tagop::find_symbol_files(module, id, search);
  CHECK(fifo.files.size() == 1);
  CHECK(fifo.rejected.back() == search.symfs + module + ": a FIFO");

  // A capture without build-ids: the path is used as it is, unchecked.
  fs::remove(search.symfs + module);
  copy_to(other, search.symfs + module);
  auto unchecked = tagop::find_symbol_files(module, "", search);
  // The debug mirror and the path; the build-id places need an id.
  REQUIRE(unchecked.files.size() == 2);
  CHECK(unchecked.files[0].path == paths[3]);
  CHECK(unchecked.files[1].path == search.symfs + module);
  CHECK(!unchecked.files[1].build_id_checked);
  fs::remove_all(dir);
}
