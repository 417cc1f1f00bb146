// ModuleSymbols against binaries whose answers are known independently: this
// test executable (PIE, built with -g), libdw itself (a shared library) and
// a non-PIE fixture. Offsets come from /proc/self/maps the way perf computes
// them (ip - start + pgoff); build-ids from binutils' readelf.
#include <tagop/error.hpp>
#include <tagop/module_symbols.hpp>

#include <cxxabi.h>            // abi::__cxa_demangle
#include <elfutils/libdwfl.h>  // dwfl_begin (lives in libdw.so); the live-process oracle
#include <fcntl.h>             // ::open
#include <sys/stat.h>          // ::mkfifo
#include <gelf.h>              // gelf_getphdr

#include <catch2/catch.hpp>

#include "run_command.hpp"
#include <fmt/format.h>  // fmt::format

#include <unistd.h>     // getpid, ::close

#include <algorithm>   // std::max
#include <cctype>      // std::toupper
#include <cstdint>     // std::uintptr_t, std::uint64_t
#include <cstdlib>     // std::getenv, ::unsetenv
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream, std::ofstream
#include <iterator>    // std::istreambuf_iterator
#include <memory>      // std::unique_ptr
#include <map>         // std::map
#include <optional>    // std::optional
#include <regex>       // std::regex
#include <sstream>     // std::istringstream
#include <string>      // std::string

namespace {

// Runs the current test case again in a process of its own, under a time
// limit of `seconds`: true in the parent, which has checked the child's
// result; false in the child, which goes on with the test. For tests whose
// failure is a hang or a signal. "in 1 test case": a name that matches no
// test (one with a comma) would pass having run nothing.
bool ran_in_fresh_process(int seconds) {
  if (std::getenv("TAGOP_TEST_FRESH_PROCESS") != nullptr) return false;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string name = Catch::getResultCapture().getCurrentTestName();
  RunResult r = run_shell("TAGOP_TEST_FRESH_PROCESS=1 timeout " + std::to_string(seconds) + " '" + self + "' '" +
                          name + "' 2>&1");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("All tests passed") && Catch::Contains("in 1 test case"));
  return true;
}

extern "C" [[gnu::noinline]] int tagop_symbols_probe() { return __LINE__; }

}  // namespace

namespace tagop_symbols_test {
[[gnu::noinline]] int probe_with_argument(int x) { return x * 0 + __LINE__; }
}  // namespace tagop_symbols_test

namespace {

namespace fs = std::filesystem;

struct Mapped {
  std::string path;
  std::uint64_t file_offset = 0;
};

// The mapping of this process that holds `address`, as perf's MMAP records
// describe it.
Mapped mapping_of(const void* address) {
  auto a = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::uintptr_t start = 0, end = 0, pgoff = 0;
    char dash = 0;
    std::string perms, device, inode, path;
    fields >> std::hex >> start >> dash >> end >> perms >> pgoff >> device >> inode >> path;
    if (a >= start && a < end) return {.path = path, .file_offset = a - start + pgoff};
  }
  FAIL("no mapping in /proc/self/maps holds the address");
  return {};
}

// The value readelf prints after `label` (up to the end of that line).
std::string readelf_field(const std::string& options, const std::string& path,
                          const std::string& label) {
  std::string out = run_shell("readelf " + options + " '" + path + "'").out;
  std::size_t at = out.find(label);
  if (at == std::string::npos) return {};
  std::istringstream rest(out.substr(at + label.size()));
  std::string value;
  rest >> value;
  return value;
}

std::unique_ptr<tagop::ModuleSymbols> open_or_fail(const std::string& path,
                                                   const std::optional<std::string>& id = {}) {
  auto symbols = tagop::ModuleSymbols::open(path, id);
  REQUIRE(symbols != nullptr);
  return symbols;
}

// The message of the Error that opening gives; its code is checked against `code`.
std::string refusal(const std::string& path, const std::optional<std::string>& id,
                    tagop::ErrorCode code = tagop::ErrorCode::damaged) {
  try {
    tagop::ModuleSymbols::open(path, id);
  } catch (const tagop::Error& e) {
    CHECK(tagop::to_string(e.code()) == tagop::to_string(code));
    return e.what();
  }
  FAIL("opened " << path);
  return {};
}

const std::string this_file = fs::path(__FILE__).filename().string();

// libdwfl's own answer for an address of this process, through a live
// report of /proc/self/maps rather than file offsets.
class LiveProcessSymbols {
 public:
  LiveProcessSymbols() : dwfl_(dwfl_begin(&callbacks), dwfl_end) {
    REQUIRE(dwfl_ != nullptr);
    dwfl_report_begin(dwfl_.get());
    REQUIRE(dwfl_linux_proc_report(dwfl_.get(), getpid()) == 0);
    REQUIRE(dwfl_report_end(dwfl_.get(), nullptr, nullptr) == 0);
  }

  std::string function_at(std::uintptr_t address) const {
    Dwfl_Module* module = dwfl_addrmodule(dwfl_.get(), address);
    if (module == nullptr) return {};
    GElf_Off offset = 0;
    GElf_Sym sym{};
    const char* name = dwfl_module_addrinfo(module, address, &offset, &sym, nullptr, nullptr, nullptr);
    if (name == nullptr) return {};
    int status = -1;
    std::unique_ptr<char, void (*)(void*)> demangled(
        abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
    return status == 0 ? demangled.get() : name;
  }

  /// The functions at the start of the one libdwfl finds for `address`
  /// (aliases: one function under several names, as identical code
  /// folding leaves them), demangled. Which of them names the function is
  /// perf's rule (choose_best_symbol), not libdwfl's.
  std::vector<std::string> aliases_at(std::uintptr_t address) const {
    std::vector<std::string> names;
    Dwfl_Module* module = dwfl_addrmodule(dwfl_.get(), address);
    GElf_Off offset = 0;
    GElf_Sym found{};
    if (module == nullptr || dwfl_module_addrinfo(module, address, &offset, &found, nullptr, nullptr, nullptr) == nullptr)
      return names;
    const int count = dwfl_module_getsymtab(module);
    for (int i = 1; i < count; ++i) {
      GElf_Sym sym{};
      GElf_Addr at = 0;
      const char* name = dwfl_module_getsym_info(module, i, &sym, &at, nullptr, nullptr, nullptr);
      const int type = GELF_ST_TYPE(sym.st_info);
      if (name == nullptr || at != address - offset || (type != STT_FUNC && type != STT_GNU_IFUNC)) continue;
      int status = -1;
      std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
      names.push_back(status == 0 ? demangled.get() : name);
    }
    return names;
  }

 private:
  static inline char* debuginfo_path = nullptr;
  static inline const Dwfl_Callbacks callbacks = {
      .find_elf = dwfl_linux_proc_find_elf,
      .find_debuginfo = dwfl_standard_find_debuginfo,
      .section_address = nullptr,
      .debuginfo_path = &debuginfo_path,
  };
  std::unique_ptr<Dwfl, void (*)(Dwfl*)> dwfl_;
};

struct ExecutableMapping {
  std::string path;
  std::uintptr_t start = 0, end = 0, pgoff = 0;
};

// The executable mapping of this process that holds `address`.
ExecutableMapping executable_mapping_of(const void* address) {
  auto a = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    ExecutableMapping m;
    char dash = 0;
    std::string perms, device, inode;
    fields >> std::hex >> m.start >> dash >> m.end >> perms >> m.pgoff >> device >> inode >> m.path;
    if (a >= m.start && a < m.end && perms.find('x') != std::string::npos) return m;
  }
  FAIL("no executable mapping holds the address");
  return {};
}

// Where the bytes in the file of the executable segment that a mapping
// at file offset `offset` holds end (from the program headers, read with
// libelf). The mapping starts at the segment's page: GNU ld starts each
// segment at a page of the file, lld packs them, so that the page of
// lld's code segment begins with the end of the read-only one.
std::uint64_t segment_file_end(const std::string& path, std::uint64_t offset) {
  const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  std::size_t count = 0;
  std::uint64_t end = 0;
  if (elf != nullptr && elf_getphdrnum(elf, &count) == 0)
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Phdr phdr{};
      if (gelf_getphdr(elf, static_cast<int>(i), &phdr) != nullptr && phdr.p_type == PT_LOAD &&
          (phdr.p_flags & PF_X) && offset >= (phdr.p_offset & ~(page - 1)) && offset < phdr.p_offset + phdr.p_filesz)
        end = phdr.p_offset + phdr.p_filesz;
    }
  if (elf != nullptr) elf_end(elf);
  ::close(fd);
  REQUIRE(end > 0);
  return end;
}

// The stubs of a module's PLT, by the file offset where each starts, with
// the names objdump gives them (demangled, "<name>@plt"), from the
// relocations their jumps go through; libdwfl names none of them.
struct StubLabel {
  std::string name;
  std::uint64_t size = 16;
};
std::map<std::uint64_t, StubLabel> plt_stub_labels(const std::string& path) {
  std::map<std::uint64_t, StubLabel> labels;
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  std::size_t names = 0;
  REQUIRE((elf != nullptr && elf_getshdrstrndx(elf, &names) == 0));
  const std::regex label(R"(^([0-9a-f]+) <(.+)@plt>:$)");
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header{};
    if (gelf_getshdr(scn, &header) == nullptr) continue;
    const std::string name = elf_strptr(elf, names, header.sh_name);
    if (name != ".plt" && name != ".plt.sec" && name != ".plt.got") continue;
    const RunResult dump = run_shell("objdump -d -C -j " + name + " " + path);
    REQUIRE(dump.exit_code == 0);
    std::istringstream lines(dump.out);
    std::smatch m;
    for (std::string l; std::getline(lines, l);)
      // An ifunc's stub ("*ABS*+0x9f550@plt") is named by its resolver's
      // symbol: not compared here.
      if (std::regex_match(l, m, label) && !m[2].str().starts_with("*ABS*"))
        labels[std::stoull(m[1], nullptr, 16) - header.sh_addr + header.sh_offset] = {
            m[2].str() + "@plt", name == ".plt.got" && header.sh_entsize == 8 ? 8u : 16u};
  }
  elf_end(elf);
  ::close(fd);
  return labels;
}

// Steps through a whole executable mapping and compares ModuleSymbols'
// function with libdwfl's for the same instruction address.
void check_every_function_name_agrees_with_libdwfl(const void* inside) {
  ExecutableMapping m = executable_mapping_of(inside);
  INFO(m.path);
  auto symbols = open_or_fail(m.path);
  LiveProcessSymbols live;
  int compared = 0, named = 0, differing = 0;
  std::string first_difference;
  // The mapping's last page runs past the segment's bytes in the file:
  // ModuleSymbols has no location there (as perf: no map holds it), where
  // libdwfl stretches a last sizeless symbol (_fini) over it, so the
  // addresses compared end with the segment's bytes.
  const std::uint64_t file_end = segment_file_end(m.path, m.pgoff);
  const auto plt_labels = plt_stub_labels(m.path);
  int in_plt = 0, aliased = 0;
  // libdwfl's lookup scans every symbol: about 3000 odd-strided points keep
  // the oracle quick and still land at every alignment.
  std::uintptr_t stride = std::max<std::uintptr_t>(61, (m.end - m.start) / 3000 | 1);
  for (std::uintptr_t a = m.start; a < m.end && a - m.start + m.pgoff < file_end; a += stride, ++compared) {
    std::string expected = live.function_at(a);
    const std::uint64_t offset = a - m.start + m.pgoff;
    // A 16-byte stub that objdump labels.
    if (auto stub = plt_labels.upper_bound(offset); stub != plt_labels.begin() && offset - (--stub)->first < stub->second.size) {
      CHECK(expected.empty());
      expected = stub->second.name;
      ++in_plt;
    }
    auto location = symbols->lookup(offset);
    std::string actual = location ? location->function : "";
    named += !expected.empty();
    if (actual != expected && !expected.empty()) {
      const auto aliases = live.aliases_at(a);
      if (std::find(aliases.begin(), aliases.end(), actual) != aliases.end()) {
        ++aliased;
        continue;
      }
    }
    if (actual != expected && differing++ == 0)
      first_difference = fmt::format("at {:#x}: ModuleSymbols '{}', libdwfl '{}'", a, actual, expected);
  }
  INFO(fmt::format("{} of {} addresses differ; first {} ({} named by another alias at the same address)", differing,
                   compared, first_difference, aliased));
  CHECK(differing == 0);
  CHECK(named > compared / 10);  // it compared real functions (libdw's own are mostly hidden)
  INFO(in_plt << " addresses in PLT stubs, of " << plt_labels.size() << " stubs");
  CHECK((plt_labels.size() < 20 || in_plt > 0));  // a PLT of some size was stepped into
}

}  // namespace

TEST_CASE("functions of this PIE test executable resolve to name, file and line", "[symbols]") {
  Mapped exe = mapping_of(reinterpret_cast<const void*>(&tagop_symbols_probe));
  REQUIRE(fs::equivalent(exe.path, "/proc/self/exe"));
  REQUIRE(readelf_field("-h", exe.path, "Type:") == "DYN");
  auto symbols = open_or_fail(exe.path);

  SECTION("an extern \"C\" function") {
    int (*volatile probe)() = &tagop_symbols_probe;
    auto location = symbols->lookup(exe.file_offset);
    REQUIRE(location);
    CHECK(location->function == "tagop_symbols_probe");
    CHECK(fs::path(location->file).filename() == this_file);
    CHECK(location->line == static_cast<unsigned>(probe()));
  }
  SECTION("a C++ function, demangled") {
    int (*volatile probe)(int) = &tagop_symbols_test::probe_with_argument;
    auto location = symbols->lookup(mapping_of(reinterpret_cast<const void*>(probe)).file_offset);
    REQUIRE(location);
    CHECK(location->function == "tagop_symbols_test::probe_with_argument(int)");
    CHECK(fs::path(location->file).filename() == this_file);
    CHECK(location->line == static_cast<unsigned>(probe(7)));
  }
  SECTION("an offset past every loadable segment has no location") {
    std::uint64_t past_the_file = fs::file_size(exe.path) + (std::uint64_t{1} << 40);
    CHECK_FALSE(symbols->lookup(past_the_file));
  }
}

TEST_CASE("a function of a shared library resolves through its file offset", "[symbols]") {
  Dwfl* (*volatile function)(const Dwfl_Callbacks*) = &dwfl_begin;
  Mapped lib = mapping_of(reinterpret_cast<const void*>(function));
  INFO(lib.path);
  REQUIRE(fs::path(lib.path).filename().string().rfind("libdw", 0) == 0);
  auto location = open_or_fail(lib.path)->lookup(lib.file_offset);
  REQUIRE(location);
  CHECK(location->function == "dwfl_begin");
}

TEST_CASE("every function name agrees with libdwfl's own symbol lookup", "[symbols]") {
  SECTION("this executable") {
    check_every_function_name_agrees_with_libdwfl(reinterpret_cast<const void*>(&tagop_symbols_probe));
  }
  SECTION("libdw.so") {
    Dwfl* (*volatile function)(const Dwfl_Callbacks*) = &dwfl_begin;
    check_every_function_name_agrees_with_libdwfl(reinterpret_cast<const void*>(function));
  }
}

TEST_CASE("a function of a non-PIE executable resolves through its file offset", "[symbols]") {
  const char* fixture = std::getenv("TAGOP_SYMBOLS_NOPIE_FIXTURE");
  REQUIRE(fixture != nullptr);
  REQUIRE(readelf_field("-h", fixture, "Type:") == "EXEC");
  // The fixture prints where its probe lies, measured in its own process.
  std::istringstream printed(run_shell(std::string("'") + fixture + "'").out);
  std::uint64_t offset = 0;
  unsigned line = 0;
  printed >> std::hex >> offset >> std::dec >> line;
  REQUIRE(line > 0);

  auto location = open_or_fail(fixture)->lookup(offset);
  REQUIRE(location);
  CHECK(location->function == "tagop_nopie_probe");
  CHECK(fs::path(location->file).filename() == "module_symbols_nopie_fixture.cpp");
  CHECK(location->line == line);

  SECTION("it has no build-id, so a recorded one refuses it") {
    REQUIRE(run_shell(std::string("readelf -n '") + fixture + "'").out.find("Build ID") ==
            std::string::npos);
    CHECK(open_or_fail(fixture)->build_id().empty());
    std::string problem;
    problem = refusal(fixture, "0123456789abcdef", tagop::ErrorCode::not_found);
    CHECK(problem == std::string(fixture) +
                         ": has no build-id but the recorded one is 0123456789abcdef (not used)");
  }
}

TEST_CASE("the build-id is the file's and a different recorded one refuses the file",
          "[symbols]") {
  std::string exe = fs::read_symlink("/proc/self/exe").string();
  std::string readelf_id = readelf_field("-n", exe, "Build ID:");
  REQUIRE(readelf_id.size() >= 16);  // the GNU linker's default ids are 20 bytes
  std::string problem;

  CHECK(open_or_fail(exe)->build_id() == readelf_id);
  SECTION("the same id, as perf records it, is accepted") {
    std::string upper = readelf_id;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    CHECK(open_or_fail(exe, upper)->build_id() == readelf_id);
    CHECK(open_or_fail(exe, readelf_id + "00000000") != nullptr);  // perf's zero padding
  }
  SECTION("a different id is reported with both ids and the file is not used") {
    std::string wrong = readelf_id;
    wrong[0] = wrong[0] == '0' ? '1' : '0';
    problem = refusal(exe, wrong, tagop::ErrorCode::not_found);
    CHECK(problem == exe + ": build-id " + readelf_id + " does not match the recorded " + wrong +
                         " (not used)");
  }
  SECTION("a truncated id is a different id") {
    std::string truncated = readelf_id.substr(0, 8);
    problem = refusal(exe, truncated, tagop::ErrorCode::not_found);
    CHECK_THAT(problem, Catch::Contains("does not match the recorded " + truncated));
  }
}

TEST_CASE("a missing or non-ELF file is refused with the reason", "[symbols]") {
  fs::path dir = fs::temp_directory_path() / ("tagop-symbols-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string problem = "stale";

  SECTION("missing") {
    std::string missing = (dir / "no-such-module.so").string();
    problem = refusal(missing, std::nullopt, tagop::ErrorCode::io);
    CHECK(problem == missing + ": not found on this machine");
  }
  SECTION("not ELF") {
    std::string text = (dir / "not-elf.so").string();
    std::ofstream(text) << "#!/bin/sh\necho this is a script, not an ELF object\n";
    problem = refusal(text, std::nullopt);
    CHECK(problem == text + ": not an ELF file");
  }
  SECTION("empty") {
    std::string empty = (dir / "empty.so").string();
    std::ofstream{empty};
    problem = refusal(empty, std::nullopt);
    CHECK(problem == empty + ": not an ELF file");
  }
  SECTION("a directory") {
    problem = refusal(dir.string(), std::nullopt, tagop::ErrorCode::io);
    CHECK_THAT(problem, Catch::StartsWith(dir.string() + ": "));
  }
  fs::remove_all(dir);
}

// `path` split in `dir` as distributions ship it (objcopy, as dh_strip
// does): the code stripped ("probe"), its symbols in a separate debug file
// beside it ("probe.debug") that .gnu_debuglink names.
std::pair<std::string, std::string> split_as_dh_strip(const std::string& path, const fs::path& dir) {
  fs::create_directories(dir);
  const std::string stripped = (dir / "probe").string(), debug = (dir / "probe.debug").string();
  REQUIRE(run_shell("objcopy --only-keep-debug '" + path + "' '" + debug + "'").exit_code == 0);
  REQUIRE(run_shell("objcopy --strip-all --add-gnu-debuglink='" + debug + "' '" + path + "' '" + stripped + "'")
              .exit_code == 0);
  return {stripped, debug};
}

TEST_CASE("a stripped module's names come from the debug file its .gnu_debuglink names", "[symbols]") {
  // The test executable split as distributions ship it (objcopy, as
  // dh_strip does): the code stripped, its symbols in a file beside it.
  Mapped exe = mapping_of(reinterpret_cast<const void*>(&tagop_symbols_probe));
  const fs::path dir = fs::temp_directory_path() / ("tagop-debuglink-test-" + std::to_string(::getpid()));
  const auto [stripped, debug] = split_as_dh_strip(exe.path, dir);
  REQUIRE(readelf_field("-S", stripped, ".symtab") == "");  // no symbol table of its own

  auto location = open_or_fail(stripped)->lookup(exe.file_offset);
  REQUIRE(location);
  CHECK(location->function == "tagop_symbols_probe");
  SECTION("without the debug file, no name") {
    fs::remove(debug);
    auto bare = open_or_fail(stripped)->lookup(exe.file_offset);
    CHECK((!bare || bare->function != "tagop_symbols_probe"));
  }
  fs::remove_all(dir);
}

TEST_CASE("a separate debug file is refused as a module, and names it through the module's own file", "[symbols]") {
  // A -dbgsym package's file (objcopy --only-keep-debug) has the symbols
  // but not the code: its executable segment has no bytes in the file, so
  // no sample's file offset falls in it. perf's build-id cache and
  // /usr/lib/debug offer it before the module itself; it must give way.
  Mapped exe = mapping_of(reinterpret_cast<const void*>(&tagop_symbols_probe));
  const fs::path dir = fs::temp_directory_path() / ("tagop-debugonly-test-" + std::to_string(::getpid()));
  const auto [stripped, debug] = split_as_dh_strip(exe.path, dir);
  CHECK_THAT(refusal(debug, std::nullopt, tagop::ErrorCode::not_found), Catch::Contains("separate debug file"));
  auto location = open_or_fail(stripped)->lookup(exe.file_offset);
  REQUIRE(location);
  CHECK(location->function == "tagop_symbols_probe");
  fs::remove_all(dir);
}

TEST_CASE("no debuginfod client is loaded when DEBUGINFOD_URLS names no server", "[symbols]") {
  // In a process of its own: libdwfl's standard search, which the oracle
  // of the tests above uses, loads it.
  if (ran_in_fresh_process(60)) return;
  // libdwfl's standard search loads libdebuginfod (and libcurl, GnuTLS...)
  // for a module with no local debug file, server or not: libdw itself is
  // one on Debian (stripped, with a .gnu_debuglink to a file not installed).
  auto loaded = [] {
    std::ifstream maps("/proc/self/maps");
    std::string text((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
    return text.find("libdebuginfod") != std::string::npos;
  };
  REQUIRE_FALSE(loaded());
  Dwfl* (*volatile function)(const Dwfl_Callbacks*) = &dwfl_begin;
  Mapped lib = mapping_of(reinterpret_cast<const void*>(function));
  ::unsetenv("DEBUGINFOD_URLS");
  // The lookup asks for the symbol table, and so for the debug file.
  auto location = open_or_fail(lib.path)->lookup(lib.file_offset);
  REQUIRE(location);
  CHECK(location->function == "dwfl_begin");
  CHECK_FALSE(loaded());
}

TEST_CASE("a debug link that names a FIFO or a device is refused and not opened", "[symbols][hostile]") {
  // In a process of its own, under a time limit: a FIFO would block the
  // search's open() for ever, and /dev/zero spin its CRC.
  if (ran_in_fresh_process(60)) return;
  Mapped exe = mapping_of(reinterpret_cast<const void*>(&tagop_symbols_probe));
  const fs::path dir = fs::temp_directory_path() / ("tagop-debuglink-fifo-" + std::to_string(::getpid()));
  const auto [stripped, debug] = split_as_dh_strip(exe.path, dir);
  for (const char* kind : {"fifo", "/dev/zero"}) {
    INFO(kind);
    fs::remove(debug);
    if (std::string(kind) == "fifo") REQUIRE(::mkfifo(debug.c_str(), 0600) == 0);
    else fs::create_symlink(kind, debug);
    const auto symbols = open_or_fail(stripped);
    const auto location = symbols->lookup(exe.file_offset);
    CHECK((!location || location->function != "tagop_symbols_probe"));  // the names were in the refused file
    const std::vector<std::string> notes = symbols->notes();
    REQUIRE(notes.size() == 1);
    CHECK_THAT(notes[0], Catch::Contains("separate debug file is not read") && Catch::Contains(debug) &&
                             Catch::Contains("not a regular file"));
  }
  fs::remove_all(dir);
}

namespace {

// A name whose templates each repeat the one before twice: its demangled
// form doubles with every level (26 levels: 1.7 GB and 16 s for
// __cxa_demangle, in 306 bytes). Written out from the Itanium ABI's
// substitutions: S_ is f, S0_ A, S1_ P, S2_ P<A, A>, and each P<Sn_, Sn_>
// is the next.
std::string demangler_bomb(int levels) {
  auto substitution = [](int i) {
    std::string digits;
    for (int n = i - 1;; n /= 36) {
      digits.insert(digits.begin(), "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[n % 36]);
      if (n < 36) break;
    }
    return "S" + digits + "_";
  };
  std::string name = "_Z1fI1A1PIS0_S0_E";
  for (int level = 0; level < levels; ++level)
    name += "S1_I" + substitution(level + 3) + substitution(level + 3) + "E";
  return name + "EvT_";
}

}  // namespace

TEST_CASE("a crafted symbol name is left mangled in bounded time", "[symbols][hostile]") {
  if (ran_in_fresh_process(10)) return;
  // A library with the crafted name, an ordinary C++ name and a C name
  // that __cxa_demangle would read as a type ("f": float).
  const fs::path dir = fs::temp_directory_path() / ("tagop-demangle-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string bomb = demangler_bomb(26);
  REQUIRE(bomb.size() < 320);
  {
    std::ofstream c(dir / "names.c");
    c << "void bomb(void) __asm__(\"" << bomb << "\");\nvoid bomb(void) {}\n"
      << "void plain(void) __asm__(\"_ZN5tagop6detail3fooIiEEvT_\");\nvoid plain(void) {}\n"
      << "void f(void) {}\n";
  }
  const std::string so = (dir / "libnames.so").string();
  REQUIRE(run_shell("cc -shared -fPIC -O0 -o '" + so + "' '" + (dir / "names.c").string() + "'").exit_code == 0);
  const auto symbols = open_or_fail(so);
  // Each name at its symbol's file offset (the text segment's offset and
  // address are the same in a shared library ld links this way).
  auto name_at = [&](const std::string& symbol) {
    const std::string address = run_shell("nm '" + so + "' | awk '$3 == \"" + symbol + "\" { print $1 }'").out;
    REQUIRE_FALSE(address.empty());
    const std::uint64_t offset = std::stoull(address, nullptr, 16);
    const auto location = symbols->lookup(offset);
    REQUIRE(location);
    return location->function;
  };
  CHECK(name_at(bomb) == bomb);
  CHECK(name_at("_ZN5tagop6detail3fooIiEEvT_") == "void tagop::detail::foo<int>(int)");
  CHECK(name_at("f") == "f");
  fs::remove_all(dir);
}

TEST_CASE("a symbol file that shrinks while it is read gives zeros and a note and no SIGBUS", "[symbols][hostile]") {
  // In a process of its own: without the guard, the read past the file's
  // new end kills the process (SIGBUS).
  if (ran_in_fresh_process(60)) return;
  Mapped exe = mapping_of(reinterpret_cast<const void*>(&tagop_symbols_probe));
  const fs::path dir = fs::temp_directory_path() / ("tagop-shrink-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path copy = dir / "copy";
  fs::copy_file(exe.path, copy);
  const auto symbols = open_or_fail(copy.string());
  CHECK(symbols->notes().empty());
  // The symbol table is indexed; its names, and all the debug information,
  // are read when asked for: after the cut.
  fs::resize_file(copy, 4096);
  const auto location = symbols->lookup(exe.file_offset);
  CHECK((!location || location->function != "tagop_symbols_probe"));
  std::vector<std::uint64_t> offsets{exe.file_offset};
  std::vector<tagop::ModuleSymbols::LineRef> lines(1);
  symbols->find_lines(offsets, lines);
  const std::vector<std::string> notes = symbols->notes();
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::Contains("shrank while it was read"));
  fs::remove_all(dir);
}
