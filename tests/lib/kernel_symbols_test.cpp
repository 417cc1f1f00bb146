// KernelSymbols against answers known independently: a hand-written
// kallsyms whose ends and aliases follow perf's rules by hand; this
// machine's /proc/kallsyms against the names `perf script` gives the kernel
// addresses of a real perf capture; the running kernel's build-id against
// `perf buildid-list -k`; a vmlinux-like ELF file against binutils' readelf.

#include <tagop/build_id_cache.hpp>
#include <tagop/kernel_symbols.hpp>

#include <catch2/catch.hpp>

#include <sys/stat.h>  // mkfifo
#include <unistd.h>    // getpid

#include <algorithm>   // std::count_if
#include <cstdlib>     // std::getenv
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <iterator>    // std::istreambuf_iterator
#include <map>         // std::map
#include <optional>    // std::optional
#include <regex>       // std::regex
#include <set>         // std::set
#include <sstream>     // std::istringstream
#include <string>      // std::string
#include <vector>      // std::vector

#include <fmt/format.h>

#include <tagop/error.hpp>

#include "run_command.hpp"

namespace fs = std::filesystem;
using tagop::KernelSymbols;

namespace {

std::string name_at(const KernelSymbols& t, std::uint64_t address) {
  const auto hit = t.find(address);
  if (!hit) return "";
  return fmt::format("{}+{:#x}", hit->symbol->name, hit->offset);
}

bool have_perf() { return run_shell("command -v perf").exit_code == 0; }

std::string temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("tagop-ksyms-{}-{}", ::getpid(), name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// find_sorted() of `addresses`, checked against find() one at a time.
std::vector<std::optional<tagop::KernelSymbolHit>> batch_as_find(const tagop::KernelSymbols& t,
                                                                 const std::vector<std::uint64_t>& addresses) {
  const auto batch = t.find_sorted(addresses);
  REQUIRE(batch.size() == addresses.size());
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    const auto one = t.find(addresses[i]);
    INFO(fmt::format("{:#x}", addresses[i]));
    REQUIRE(one.has_value() == batch[i].has_value());
    if (one) {
      CHECK(one->symbol == batch[i]->symbol);
      CHECK(one->offset == batch[i]->offset);
    }
  }
  return batch;
}

std::size_t hits(const std::vector<std::optional<tagop::KernelSymbolHit>>& batch) {
  return static_cast<std::size_t>(std::count_if(batch.begin(), batch.end(), [](const auto& h) { return h.has_value(); }));
}

}  // namespace

TEST_CASE("kallsyms: ends, aliases and modules as perf decides them", "[kernel]") {
  // Ends by hand (symbols__fixup_end): a symbol ends where the next one
  // starts; the last of the kernel before a module and the last of a
  // module end at the page boundary past start + 4096, the last of all a
  // page past its start rounded up to a page. perf sets
  // the ends before it chooses among symbols at one address
  // (symbols__fixup_duplicate), so there only the last listed has a length,
  // and that decides (choose_best_symbol's first rule): _text over _stext,
  // and even a local 't' over a global 'T' listed before it.
  const std::string text =
      "ffffffff81000000 T _stext\n"
      "ffffffff81000000 T _text\n"
      "ffffffff81000010 t local_helper\n"
      "ffffffff81001100 T global_one\n"
      "ffffffff81001100 t static_one\n"
      "ffffffff81001600 r some_rodata\n"  // not kept: perf keeps T, W, D and B
      "ffffffff81001700 T _etext\n"
      "ffffffffc0001000 t mod_init\t[mymod]\n"
      "ffffffffc0001040 T mod_work\t[mymod]\n"
      "ffffffffc0003000 t other_fn\t[othermod]\n";
  const KernelSymbols t = KernelSymbols::parse_kallsyms(text, "fixture");
  std::vector<std::string> names;
  for (const auto& s : t.symbols()) names.emplace_back(s.name);
  CHECK(names == std::vector<std::string>{"_text", "local_helper", "static_one", "_etext", "mod_init", "mod_work",
                                          "other_fn"});
  const std::pair<std::uint64_t, const char*> expected[] = {
      {0xffffffff81000000, "_text+0x0"},
      {0xffffffff8100000f, "_text+0xf"},
      {0xffffffff810010ff, "local_helper+0x10ef"},
      // static_one runs to _etext: some_rodata was not kept.
      {0xffffffff810016ff, "static_one+0x5ff"},
      // _etext is the kernel's last: it ends past its next page, not at mymod.
      {0xffffffff81002fff, "_etext+0x18ff"},
      {0xffffffff81003000, ""},
      {0xffffffffc000103f, "mod_init+0x3f"},
      // The last of a module ends past its next page, not at the next module.
      {0xffffffffc0002fff, "mod_work+0x1fbf"},
      {0xffffffffc0003000, "other_fn+0x0"},
      {0xffffffffc0003fff, "other_fn+0xfff"},
      {0xffffffffc0004000, ""},
      {0xffffffff80ffffff, ""},
  };
  for (const auto& [address, name] : expected) {
    INFO(fmt::format("{:#x}", address));
    CHECK(name_at(t, address) == name);
  }
  CHECK(t.find(0xffffffffc0001040)->symbol->module() == "mymod");
  CHECK(t.find(0xffffffffc0001040)->symbol->type == 'T');
  CHECK(t.find(0xffffffff81000000)->symbol->module().empty());
  CHECK(t.find(0xffffffffc0003000)->symbol->module() == "othermod");
  // Aliases are still found by name.
  CHECK(t.address_of("_stext") == 0xffffffff81000000);
  CHECK(t.address_of("global_one") == 0xffffffff81001100);
  CHECK(t.address_of("mod_work") == 0xffffffffc0001040);
  CHECK(!t.address_of("some_rodata"));
}

TEST_CASE("ELF aliases: the one perf keeps, by its rules", "[kernel]") {
  // Aliases of one function have its address and size: the other rules of
  // choose_best_symbol decide (tests/lib/kernel_symbols_fixture.cpp): not
  // the local, not the weak, fewer leading underscores, the longer name,
  // not the SyS_ syscall alias.
  const char* fixture = std::getenv("TAGOP_KERNEL_SYMBOLS_FIXTURE");
  REQUIRE(fixture);
  const KernelSymbols t = KernelSymbols::from_vmlinux(fixture);
  const std::map<std::string, std::string> kept_over = {{"global_one", "local_alias"},
                                                        {"strong_one", "weak_one"},
                                                        {"single_under", "__double_under"},
                                                        {"longer_name", "brief"},
                                                        {"sys_read", "SyS_read"}};
  for (const auto& [kept, dropped] : kept_over) {
    INFO(kept << " over " << dropped);
    const auto address = t.address_of(dropped);
    REQUIRE(address);
    CHECK(t.address_of(kept) == address);
    REQUIRE(t.find(*address));
    CHECK(t.find(*address)->symbol->name == kept);
  }
}

TEST_CASE("kallsyms: the batch lookup agrees with one at a time, and refuses unsorted input", "[kernel]") {
  const KernelSymbols t = KernelSymbols::parse_kallsyms(
      "0000000000001000 T a\n0000000000001010 T b\n0000000000002000 T c\n0000000000005000 t d\t[m]\n", "fixture");
  std::vector<std::uint64_t> addresses;
  for (std::uint64_t a = 0xff0; a < 0x7000; a += 0x7) addresses.push_back(a);
  addresses.push_back(0x7000);
  addresses.push_back(0x7000);  // repeats are fine
  CHECK(hits(batch_as_find(t, addresses)) > 100);
  const std::vector<std::uint64_t> unsorted{0x2000, 0x1000};
  CHECK_THROWS_WITH(t.find_sorted(unsorted), Catch::Contains("ascending"));
}

TEST_CASE("find_sorted over a large table: few far-apart addresses and many close ones, as find()", "[kernel]") {
  // 100 k symbols 0x40 apart from 0x100000 (the size of a kernel's kallsyms).
  std::string text;
  for (std::uint64_t i = 0; i < 100000; ++i) text += fmt::format("{:016x} T f{}\n", 0x100000 + i * 0x40, i);
  const KernelSymbols t = KernelSymbols::parse_kallsyms(text, "large");
  REQUIRE(t.symbols().size() == 100000);
  for (const std::uint64_t gap : {std::uint64_t{0x3}, std::uint64_t{0x41}, std::uint64_t{0x9c41}, std::uint64_t{0x3fffff}}) {
    INFO(fmt::format("gap {:#x}", gap));
    std::vector<std::uint64_t> addresses{0x0, 0xfffff, 0x100000};
    for (std::uint64_t a = 0x100001; a < 0x100000 + 100000 * 0x40 + 0x2000; a += gap) addresses.push_back(a);
    const auto batch = batch_as_find(t, addresses);
    for (std::size_t i = 0; i < addresses.size(); ++i)
      if (batch[i]) {
        // By hand: the symbol 0x40-aligned at or below, 0x40 bytes long.
        const std::uint64_t index = (addresses[i] - 0x100000) / 0x40;
        INFO(fmt::format("{:#x}", addresses[i]));
        CHECK(batch[i]->symbol->name == fmt::format("f{}", std::min<std::uint64_t>(index, 99999)));
      }
    CHECK(hits(batch) >= 3);
  }
}

TEST_CASE("kallsyms: hidden addresses, malformed lines and unreadable files are named", "[kernel]") {
  CHECK_THROWS_WITH(KernelSymbols::parse_kallsyms("0000000000000000 T _text\n0000000000000000 T x\n", "hidden"),
                    Catch::Contains("hidden: every address is 0") && Catch::Contains("kptr_restrict"));
  CHECK_THROWS_WITH(KernelSymbols::parse_kallsyms("ffffffff81000000 T _text\nnot a line\n", "bad"),
                    Catch::Contains("bad:2: expected 'ADDRESS TYPE NAME'"));
  // A module's name is at most 255 bytes (the kernel's are at most 56).
  CHECK_THROWS_WITH(KernelSymbols::parse_kallsyms("ffffffff81000000 T _text\nffffffffc0000000 t f\t[" +
                                                      std::string(256, 'm') + "]\n",
                                                  "long"),
                    Catch::Contains("long:2: a module's name of 256 bytes (at most 255)"));
  CHECK(KernelSymbols::parse_kallsyms("ffffffff81000000 T _text\nffffffffc0000000 t f\t[" + std::string(255, 'm') +
                                          "]\n",
                                      "longest")
            .find(0xffffffffc0000000)
            ->symbol->module() == std::string(255, 'm'));
  CHECK_THROWS_WITH(KernelSymbols::from_kallsyms("/nonexistent/kallsyms"),
                    Catch::Contains("/nonexistent/kallsyms: cannot read") && Catch::Contains("No such file"));
  const std::string dir = temp_dir("fifo");
  const std::string fifo = dir + "/kallsyms";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A FIFO without a writer would block a plain open: it is refused instead.
  CHECK_THROWS_WITH(KernelSymbols::from_kallsyms(fifo), Catch::Contains("a FIFO"));
  CHECK_THROWS_WITH(KernelSymbols::from_kallsyms(dir), Catch::Contains("a directory"));
  // Past 64 MiB (a real one is 10-20 MB): refused, not read into gigabytes.
  const std::string huge = dir + "/huge-kallsyms";
  {
    std::ofstream out(huge);
    const std::string line = "ffffffff81000000 T a_symbol_of_no_kernel_0123456789\n";
    for (std::size_t written = 0; written <= (std::size_t{64} << 20); written += line.size()) out << line;
  }
  CHECK_THROWS_WITH(KernelSymbols::from_kallsyms(huge), Catch::Contains("larger than 64 MiB"));
  fs::remove_all(dir);
}

TEST_CASE("the running kernel: build-id as perf reads it, and kallsyms names as perf gives them", "[kernel]") {
  const std::string id = tagop::running_kernel_build_id();
  if (!have_perf()) {
    WARN("perf is not installed: the kernel's names and build-id are not compared with it");
    return;
  }
  if (!fs::exists("/sys/kernel/notes")) {
    WARN("no /sys/kernel/notes here");
    return;
  }
  const RunResult perf_id = run_shell("perf buildid-list -k");
  REQUIRE(perf_id.exit_code == 0);
  CHECK(id + "\n" == perf_id.out);

  std::optional<KernelSymbols> table;
  try {
    table.emplace(KernelSymbols::from_kallsyms());
  } catch (const tagop::Error& e) {
    WARN(std::string("this user cannot read the kernel's addresses: ") + e.what());
    return;
  }
  CHECK(table->symbols().size() > 1000);
  const auto text = tagop::running_kernel_text();
  REQUIRE(text);
  CHECK(table->address_of("_text") == text->start);
  CHECK(table->address_of("_etext") == text->end);

  // A capture by perf itself, with system calls in both children and
  // their call chains: every kernel address perf names, we name the same.
  const std::string dir = temp_dir("perf");
  const std::string file = dir + "/perf.data";
  const RunResult rec = run_shell(fmt::format(
      "perf record -q -g -e cpu-clock -F 2000 -o {} -- sh -c 'timeout 0.3 md5sum /dev/zero & timeout 0.3 sha1sum "
      "/dev/zero; wait' 2>&1",
      file));
  REQUIRE(rec.exit_code == 0);
  const RunResult script = run_shell(fmt::format("perf script -i {} -F ip,sym,symoff,dso", file));
  REQUIRE(script.exit_code == 0);
  // "	ffffffff8120a2b0 do_syscall_64+0x40 ([kernel.kallsyms])"
  const std::regex line(R"(^\s*([0-9a-f]+) (\S+)\+(0x[0-9a-f]+) \(\[kernel\.kallsyms\]\)$)");
  std::map<std::uint64_t, std::string> perf_names;
  std::istringstream lines(script.out);
  for (std::string l; std::getline(lines, l);) {
    std::smatch m;
    if (std::regex_match(l, m, line))
      perf_names[std::stoull(m[1], nullptr, 16)] = fmt::format("{}+{:#x}", m[2].str(), std::stoull(m[3], nullptr, 16));
  }
  INFO(script.out.substr(0, 2000));
  REQUIRE(perf_names.size() >= 10);
  std::vector<std::uint64_t> addresses;
  for (const auto& [address, name] : perf_names) addresses.push_back(address);
  const auto batch = table->find_sorted(addresses);
  std::size_t same = 0;
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    const std::string ours =
        batch[i] ? fmt::format("{}+{:#x}", batch[i]->symbol->name, batch[i]->offset) : std::string("(none)");
    INFO(fmt::format("{:#x}: perf {} tagop {}", addresses[i], perf_names[addresses[i]], ours));
    CHECK(ours == perf_names[addresses[i]]);
    same += ours == perf_names[addresses[i]];
  }
  WARN(fmt::format("{} kernel addresses of a perf capture: {} named as perf names them", addresses.size(), same));
  fs::remove_all(dir);
}

TEST_CASE("build-ids in ELF notes, and modules as /proc/modules lists them", "[kernel]") {
  // Elf_Nhdr {namesz 4, descsz 4, type 1} "GNU\0" + 4 bytes (not a build-id),
  // then {4, 20, 3} "GNU\0" + 20 bytes: the build-id.
  std::vector<std::byte> notes;
  auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) notes.push_back(static_cast<std::byte>(v >> (8 * i)));
  };
  auto bytes = [&](std::initializer_list<int> b) {
    for (int x : b) notes.push_back(static_cast<std::byte>(x));
  };
  u32(4), u32(4), u32(1), bytes({'G', 'N', 'U', 0}), bytes({1, 2, 3, 4});
  u32(4), u32(20), u32(3), bytes({'G', 'N', 'U', 0});
  for (int i = 0; i < 20; ++i) notes.push_back(static_cast<std::byte>(0xa0 + i));
  CHECK(tagop::build_id_in_notes(notes) == "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
  notes.resize(notes.size() - 1);  // the last note runs past the end
  CHECK(tagop::build_id_in_notes(notes) == "");
  CHECK(tagop::running_kernel_build_id("/nonexistent/notes") == "");

  const std::string dir = temp_dir("modules");
  {
    std::ofstream out(dir + "/modules");
    out << "ext4 999424 1 - Live 0xffffffffc0a00000\n"
           "crc16 12288 1 ext4, Live 0xffffffffc0300000 (E)\n"
           "hidden 4096 0 - Live 0x0000000000000000\n";
  }
  const auto modules = tagop::loaded_kernel_modules(dir + "/modules");
  REQUIRE(modules.size() == 3);
  CHECK(modules[0].name == "ext4");
  CHECK(modules[0].size == 999424);
  CHECK(modules[0].start == 0xffffffffc0a00000);
  CHECK(modules[1].name == "crc16");
  CHECK(modules[1].start == 0xffffffffc0300000);
  CHECK(modules[2].start == 0);
  CHECK(tagop::loaded_kernel_modules(dir + "/none").empty());
  fs::remove_all(dir);
}

TEST_CASE("a vmlinux: the ELF symbol table, checked against readelf", "[kernel]") {
  // Any ELF with a symbol table reads as a vmlinux does; a non-PIE
  // fixture's addresses are its link-time ones, as a vmlinux's are.
  const char* fixture = std::getenv("TAGOP_KERNEL_SYMBOLS_FIXTURE");
  REQUIRE(fixture);
  const KernelSymbols t = KernelSymbols::from_vmlinux(fixture);
  CHECK(t.source() == fixture);
  // readelf -sW: "Num: Value Size Type Bind Vis Ndx Name"
  const RunResult readelf = run_shell(fmt::format("readelf -sW {}", fixture));
  REQUIRE(readelf.exit_code == 0);
  const std::regex row(R"(^\s*\d+: ([0-9a-f]+)\s+(\d+) FUNC\s+(GLOBAL|LOCAL|WEAK)\s+(DEFAULT|HIDDEN)\s+\d+ (\S+)$)");
  std::map<std::uint64_t, std::set<std::string>> functions;  // address -> names there
  std::map<std::uint64_t, std::uint64_t> sizes;
  std::istringstream lines(readelf.out);
  for (std::string l; std::getline(lines, l);) {
    std::smatch m;
    if (std::regex_match(l, m, row) && std::stoull(m[2]) > 0) {
      const std::uint64_t a = std::stoull(m[1], nullptr, 16);
      functions[a].insert(m[5]);
      sizes[a] = std::max<std::uint64_t>(sizes[a], std::stoull(m[2]));
    }
  }
  REQUIRE(functions.size() >= 5);
  for (const auto& [address, names] : functions) {
    const std::uint64_t last = address + sizes[address] - 1;
    INFO(fmt::format("{:#x} {}", address, *names.begin()));
    const auto hit = t.find(last);
    REQUIRE(hit);
    CHECK(names.count(std::string(hit->symbol->name)) == 1);
    CHECK(hit->offset == sizes[address] - 1);
  }
  // The build-id is the one readelf prints.
  const RunResult notes = run_shell(fmt::format("readelf -n {} | sed -n 's/.*Build ID: //p'", fixture));
  CHECK(t.build_id() + "\n" == notes.out);

  // Moved as KASLR moves a kernel: every address by the same delta.
  KernelSymbols moved = KernelSymbols::from_vmlinux(fixture);
  const std::uint64_t first = functions.begin()->first;
  moved.relocate(0x200000);
  CHECK(moved.find(first + 0x200000)->symbol->name == t.find(first)->symbol->name);
  CHECK(moved.address_of(std::string(t.find(first)->symbol->name)) == first + 0x200000);

  CHECK_THROWS_WITH(KernelSymbols::from_vmlinux("/nonexistent/vmlinux"), Catch::Contains("No such file"));
  const std::string dir = temp_dir("notelf");
  std::ofstream(dir + "/vmlinux") << "not an ELF file\n";
  CHECK_THROWS_WITH(KernelSymbols::from_vmlinux(dir + "/vmlinux"), Catch::Contains("not an ELF file"));
  fs::remove_all(dir);
}

TEST_CASE("finding the kernel's symbols for a capture, in perf's order", "[kernel]") {
  const std::string dir = temp_dir("find");
  const std::string running_notes = "/sys/kernel/notes";
  tagop::KernelSymbolSearch search{.vmlinux = "", .kallsyms = "", .files = {.symfs = "", .build_id_dir = dir + "/.debug"},
                                   .os_release = "", .running_kallsyms = "/proc/kallsyms",
                                   .running_notes = running_notes};
  const std::string running = tagop::running_kernel_build_id(running_notes);
  if (!running.empty()) {
    // The capture's kernel is this one: its kallsyms.
    const auto same = tagop::find_kernel_symbols(running, search);
    REQUIRE(same.found);
    CHECK(same.found->path == "/proc/kallsyms");
    CHECK_THAT(same.found->why, Catch::Contains("same build-id"));
    CHECK(!same.fallback);
    // The copy perf record kept of it comes first, this machine's kallsyms
    // behind it (for a capture that does not say where its kernel was).
    const std::string copy = fmt::format("{}/.debug/[kernel.kallsyms]/{}/kallsyms", dir, running);
    fs::create_directories(fs::path(copy).parent_path());
    std::ofstream(copy) << "ffffffff81000000 T _text\n";
    const auto cached = tagop::find_kernel_symbols(running, search);
    REQUIRE(cached.found);
    CHECK(cached.found->path == copy);
    REQUIRE(cached.fallback);
    CHECK(cached.fallback->path == "/proc/kallsyms");
    fs::remove(copy);
  }
  // Another kernel: not this one's kallsyms, but perf's cache when it has it.
  const std::string other = "00112233445566778899aabbccddeeff00112233";
  auto none = tagop::find_kernel_symbols(other, search);
  CHECK(!none.found);
  REQUIRE(!none.rejected.empty());
  CHECK_THAT(none.rejected.front(), Catch::Contains("not the recorded " + other));
  const std::string cached = fmt::format("{}/.debug/[kernel.kallsyms]/{}/kallsyms", dir, other);
  fs::create_directories(fs::path(cached).parent_path());
  std::ofstream(cached) << "ffffffff81000000 T _text\n";
  auto from_cache = tagop::find_kernel_symbols(other, search);
  REQUIRE(from_cache.found);
  CHECK(from_cache.found->path == cached);
  CHECK(tagop::load_kernel_symbols(*from_cache.found).symbols().size() == 1);
  // --kallsyms wins over everything; a --vmlinux with another build-id is refused.
  search.kallsyms = cached;
  CHECK(tagop::find_kernel_symbols(running, search).found->why == "--kallsyms");
  search.kallsyms.clear();
  search.vmlinux = std::getenv("TAGOP_SYMBOLS_NOPIE_FIXTURE");
  auto wrong = tagop::find_kernel_symbols(other, search);
  CHECK(wrong.found->path == cached);
  CHECK_THAT(wrong.rejected.front(), Catch::Contains(search.vmlinux + ": build-id "));
  // With a symfs, perf never falls back on this machine's kallsyms.
  search.vmlinux.clear();
  search.files.symfs = dir + "/symfs";
  auto symfs = tagop::find_kernel_symbols(running, search);
  CHECK(!symfs.found);
  CHECK_THAT(symfs.rejected.back(), Catch::Contains("not used with --symfs"));
  // The capture's OS release names files under the symfs: a vmlinux there
  // is found by it, but one that "../.." would reach outside is not.
  const std::string release_vmlinux = dir + "/symfs/boot/vmlinux-6.1.0-test";
  fs::create_directories(fs::path(release_vmlinux).parent_path());
  fs::copy_file(std::getenv("TAGOP_SYMBOLS_NOPIE_FIXTURE"), release_vmlinux);  // no build-id: any kernel's
  search.os_release = "6.1.0-test";
  auto by_release = tagop::find_kernel_symbols("", search);
  REQUIRE(by_release.found);
  CHECK(by_release.found->path == release_vmlinux);
  // /lib/modules/{}/build/vmlinux with "../../.." is <symfs>/../build/vmlinux.
  const std::string outside = dir + "/build/vmlinux";
  fs::create_directories(dir + "/build");
  fs::create_directories(search.files.symfs + "/lib/modules");
  fs::copy_file(release_vmlinux, outside);
  search.os_release = "../../..";
  REQUIRE(fs::exists(search.files.symfs + "/lib/modules/" + search.os_release + "/build/vmlinux"));
  auto escaped = tagop::find_kernel_symbols("", search);
  CHECK(!escaped.found);
  CHECK_THAT(escaped.rejected.front(), Catch::Contains("is not a release's name"));
  fs::remove_all(dir);
}

TEST_CASE("a kallsyms kept in perf's build-id cache: once, whole, and not when its addresses are hidden", "[kernel]") {
  const std::string dir = temp_dir("keep");
  const std::string id = "00112233445566778899aabbccddeeff00112233";
  const std::string hidden = dir + "/hidden", shown = dir + "/shown";
  std::ofstream(hidden) << "0000000000000000 A fixed_percpu_data\n0000000000000000 T _text\n";
  std::ofstream(shown) << "0000000000000000 A fixed_percpu_data\nffffffff81000000 T _text\n";
  const std::string cache = dir + "/cache";
  CHECK(tagop::keep_kallsyms_in_build_id_cache(cache, id, hidden).empty());
  CHECK(!fs::exists(cache + "/[kernel.kallsyms]"));
  const std::string kept = tagop::keep_kallsyms_in_build_id_cache(cache, id, shown);
  CHECK(kept == cache + "/[kernel.kallsyms]/" + id + "/kallsyms");
  std::ifstream in(kept);
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) ==
        "0000000000000000 A fixed_percpu_data\nffffffff81000000 T _text\n");
  CHECK(fs::read_symlink(cache + "/.build-id/00/112233445566778899aabbccddeeff00112233") ==
        fs::path("../../[kernel.kallsyms]") / id);
  // A copy already there is the one kept: not read again, not replaced.
  std::ofstream(shown) << "ffffffff82000000 T _text\n";
  CHECK(tagop::keep_kallsyms_in_build_id_cache(cache, id, shown) == kept);
  CHECK(tagop::load_kernel_symbols({kept, false, ""}).address_of("_text") == 0xffffffff81000000);
  CHECK_THROWS_WITH(tagop::keep_kallsyms_in_build_id_cache(cache, "ffee" + id.substr(4), dir + "/missing"),
                    Catch::Contains(dir + "/missing"));
  fs::remove_all(dir);
}
