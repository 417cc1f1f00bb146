// tagop annotate against the world: per-instruction sample counts against
// perf annotate's on a capture perf record writes here, the disassembly
// against objdump's, the errors a user meets, and an emulated IBS
// capture's op samples per instruction against perf script's.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../run_command.hpp"

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string fixture() {
  const char* path = std::getenv("TAGOP_ANNOTATE_FIXTURE");
  if (!path) throw std::runtime_error("TAGOP_ANNOTATE_FIXTURE is not set: run the tests with 'meson test'");
  return path;
}

bool have(const char* tool) { return run_shell(std::string("command -v ") + tool + " >/dev/null").exit_code == 0; }

// One capture of the fixture by perf record, shared by the tests below;
// --no-buildid-cache (-N) leaves the user's ~/.debug alone.
struct Capture {
  fs::path dir = fs::temp_directory_path() / ("tagop-annotate-" + std::to_string(::getpid()));
  fs::path data = dir / "perf.data";
  RunResult recorded;
  Capture() {
    const std::string program = fixture();
    fs::create_directories(dir);
    recorded = run_shell(fmt::format("perf record -q -N -e cpu-clock -F 10000 -o {} -- {} 60", data.string(), program));
  }
  ~Capture() { fs::remove_all(dir); }
};

const Capture& capture() {
  static const Capture c;
  return c;
}

bool perf_records() {
  if (!have("perf")) return false;
  return capture().recorded.exit_code == 0;
}

json annotate_json(const std::string& args) {
  const RunResult r = run_tagop("annotate " + args + " --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// objdump's text and Capstone's, made comparable. The differences, each
// by name:
//  - spacing: objdump pads the mnemonic to a column and writes "a,b";
//    Capstone writes "mnemonic a, b" (runs of blanks become one, and the
//    blank after a comma goes);
//  - branch targets: objdump writes "1147 <hot+0xe>", Capstone "0x1147"
//    (the symbol in <> and a bare target's 0x go);
//  - objdump's comments ("# 0x4010 <x>", the address of a RIP-relative
//    operand) go: Capstone has none.
std::string normalized(std::string text) {
  if (const std::size_t hash = text.find(" #"); hash != std::string::npos) text.resize(hash);
  text = std::regex_replace(text, std::regex(R"( <[^>]*>)"), "");
  text = std::regex_replace(text, std::regex(R"(\s+)"), " ");
  text = std::regex_replace(text, std::regex(R"(, )"), ",");
  text = std::regex_replace(text, std::regex(R"(^(j\w+|call\w?|jmp\w?|loop\w*) 0x([0-9a-f]+)$)"), "$1 $2");
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// Whether Capstone's text is objdump's: normalized(), and where the
// mnemonics differ, Capstone's is objdump's with an operand-size suffix
// (movl, retq: objdump leaves it out where a register gives the size).
bool same_instruction(const std::string& capstone, const std::string& objdump) {
  const std::string c = normalized(capstone), o = normalized(objdump);
  if (c == o) return true;
  const std::size_t c_end = c.find(' '), o_end = o.find(' ');
  const std::string c_mnemonic = c.substr(0, c_end), o_mnemonic = o.substr(0, o_end);
  const std::string c_rest = c_end == std::string::npos ? "" : c.substr(c_end);
  const std::string o_rest = o_end == std::string::npos ? "" : o.substr(o_end);
  return c_rest == o_rest && c_mnemonic.size() == o_mnemonic.size() + 1 && c_mnemonic.starts_with(o_mnemonic) &&
         std::string("bwlq").find(c_mnemonic.back()) != std::string::npos;
}

struct Listing {
  std::vector<std::uint64_t> addresses;
  std::map<std::uint64_t, std::string> text;
};

// objdump -d over [start, end): each instruction's address and text.
Listing objdump(const std::string& file, std::uint64_t start, std::uint64_t end) {
  const RunResult r = run_shell(fmt::format("objdump -d --no-show-raw-insn --start-address={:#x} --stop-address={:#x} {}",
                                            start, end, file));
  REQUIRE(r.exit_code == 0);
  Listing out;
  const std::regex line(R"(^\s*([0-9a-f]+):\s+(\S.*)$)");
  std::istringstream lines(r.out);
  std::smatch m;
  for (std::string l; std::getline(lines, l);)
    if (std::regex_match(l, m, line)) {
      const std::uint64_t address = std::stoull(m[1], nullptr, 16);
      out.addresses.push_back(address);
      out.text[address] = m[2];
    }
  return out;
}

}  // namespace

TEST_CASE("annotate: every instruction's samples are perf annotate's, its text objdump's", "[report][annotate][perf]") {
  if (!perf_records()) {
    WARN("perf cannot record here: the comparison with perf annotate is not run");
    return;
  }
  const Capture& c = capture();
  const json a = annotate_json(c.data.string() + " hot");
  CHECK(a["schema"] == "tagop.annotate/1");
  CHECK(a["function"] == "hot");
  CHECK(a["module"] == fs::canonical(fixture()).string());
  CHECK(a["exact"] == false);  // cpu-clock skids
  CHECK(a["exactness"].get<std::string>().starts_with("not exact: skid"));

  // perf annotate's samples per instruction (every instruction, 0 included).
  const RunResult perf = run_shell("perf annotate --stdio --show-nr-samples -i " + c.data.string() + " hot");
  INFO(perf.err);
  REQUIRE(perf.exit_code == 0);
  std::map<std::uint64_t, std::uint64_t> perf_samples;
  const std::regex row(R"(^\s*(\d+)\s+:\s+([0-9a-f]+):\s+\S.*$)");
  std::istringstream lines(perf.out);
  std::smatch m;
  for (std::string l; std::getline(lines, l);)
    if (std::regex_match(l, m, row)) perf_samples[std::stoull(m[2], nullptr, 16)] = std::stoull(m[1]);
  REQUIRE(perf_samples.size() > 10);

  std::map<std::uint64_t, std::uint64_t> ours;
  std::uint64_t total = 0;
  for (const json& in : a["instructions"]) {
    const auto samples = in["values"]["samples"].get<std::uint64_t>();
    ours[in["address"].get<std::uint64_t>()] = samples;
    total += samples;
  }
  REQUIRE(total > 200);  // 60 rounds of the loops, some 1800 samples
  CHECK(ours == perf_samples);

  // The text: objdump's, instruction by instruction.
  const auto start = a["address"].get<std::uint64_t>();
  const auto end = start + a["end"].get<std::uint64_t>() - a["start"].get<std::uint64_t>();
  const Listing listing = objdump(fixture(), start, end);
  REQUIRE(listing.addresses.size() == a["instructions"].size());
  for (const json& in : a["instructions"]) {
    const auto address = in["address"].get<std::uint64_t>();
    INFO(fmt::format("{:#x}: objdump '{}', tagop '{}'", address, listing.text.at(address), in["text"].get<std::string>()));
    CHECK(same_instruction(in["text"], listing.text.at(address)));
  }

  // Source lines: each loop's line holds its instructions' samples, the
  // two together nearly all of the function's (the rest skid onto the
  // instructions around them).
  double loops = 0;
  for (const json& l : a["lines"]) {
    const std::string source = l["source"];
    if (source.ends_with("annotate_fixture.cpp:20") || source.ends_with("annotate_fixture.cpp:21"))
      loops += l["percent"].get<double>();
  }
  CHECK(loops > 80);

  // The text output: perf's percent of the hottest instruction, and the source.
  const RunResult text = run_tagop("annotate " + c.data.string() + " hot");
  REQUIRE(text.exit_code == 0);
  std::istringstream out(text.out);
  bool source_shown = false;
  for (std::string l; std::getline(out, l);) {
    CHECK(l.size() <= 100);
    source_shown = source_shown || (l.find("annotate_fixture.cpp:20") != std::string::npos &&
                                    l.find("for (unsigned i = 0; i < n; ++i) a +=") != std::string::npos);
  }
  CHECK(source_shown);

  // --html: one page, every instruction's text in it (but a branch's
  // "<hot+0xe>", whose '<' the page's data escapes).
  const fs::path page = c.dir / "hot.html";
  REQUIRE(run_tagop("annotate " + c.data.string() + " hot --html " + page.string()).exit_code == 0);
  std::ifstream html(page);
  const std::string written((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  CHECK(written.starts_with("<!DOCTYPE html>"));
  for (const json& in : a["instructions"]) {
    const std::string text = in["text"];
    CHECK(written.find(text.substr(0, text.find(" <"))) != std::string::npos);
  }
}

TEST_CASE("annotate: the function by address, by module offset, and a range", "[report][annotate][perf]") {
  if (!perf_records()) {
    WARN("perf cannot record here: not run");
    return;
  }
  const Capture& c = capture();
  // nm's address of hot: the same function by it, and by module+offset
  // (the fixture's text is where its file offsets are: PIE, first segment at 0).
  const RunResult nm = run_shell("nm " + fixture() + " | sed -n 's/^\\([0-9a-f]*\\) T hot$/\\1/p'");
  REQUIRE(nm.exit_code == 0);
  const std::uint64_t hot = std::stoull(nm.out, nullptr, 16);
  const json by_name = annotate_json(c.data.string() + " hot");
  CHECK(by_name["address"] == hot);
  // An ELF address may hold a function in ld.so too: the one with samples
  // is meant; when both have some (rarely: ld.so runs briefly), both are listed.
  const RunResult by_address = run_tagop(fmt::format("annotate {} {:#x} --json", c.data.string(), hot + 4));
  INFO(by_address.err);
  if (by_address.exit_code == 0) {
    CHECK(json::parse(by_address.out)["instructions"] == by_name["instructions"]);
  } else {
    CHECK(by_address.err.find("is ambiguous") != std::string::npos);
    CHECK(by_address.err.find(fmt::format("{}+{:#x} (hot)", fs::canonical(fixture()).string(),
                                          by_name["start"].get<std::uint64_t>())) != std::string::npos);
  }
  const std::string module = fs::path(fixture()).filename().string();
  const json by_offset = annotate_json(fmt::format("{} {}+{:#x}", c.data.string(), module, by_name["start"].get<std::uint64_t>() + 2));
  CHECK(by_offset["instructions"] == by_name["instructions"]);
  // The first three instructions as a range.
  const json& in = by_name["instructions"];
  const json range = annotate_json(fmt::format("{} {}+{:#x}-{:#x}", c.data.string(), module, in[0]["offset"].get<std::uint64_t>(),
                                               in[3]["offset"].get<std::uint64_t>()));
  REQUIRE(range["instructions"].size() == 3);
  CHECK(range["instructions"][2] == in[2]);
}

TEST_CASE("annotate: errors say what and where", "[report][annotate][perf]") {
  if (!perf_records()) {
    WARN("perf cannot record here: not run");
    return;
  }
  const std::string data = capture().data.string();
  const std::string module = fs::canonical(fixture()).string();

  const RunResult unknown = run_tagop("annotate " + data + " hott");
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.err.find("no function 'hott'") != std::string::npos);
  CHECK(unknown.err.find("did you mean: hot") != std::string::npos);

  // Two file-static annotate_step()s: both listed, at nm's addresses.
  const RunResult nm = run_shell("nm " + fixture() + " | sed -n 's/^0*\\([0-9a-f]*\\) t _ZL13annotate_stepj$/\\1/p'");
  std::vector<std::string> steps;
  std::istringstream lines(nm.out);
  for (std::string l; std::getline(lines, l);) steps.push_back(l);
  REQUIRE(steps.size() == 2);
  const RunResult ambiguous = run_tagop("annotate " + data + " annotate_step");
  INFO(ambiguous.err);
  CHECK(ambiguous.exit_code == 1);
  CHECK(ambiguous.err.find("'annotate_step' is ambiguous: 2 functions") != std::string::npos);
  for (const std::string& s : steps)
    CHECK(ambiguous.err.find(module + "+0x" + s + " (static, _ZL13annotate_stepj)") != std::string::npos);

  // A function and the .cold part GCC split off it: the name is the function's.
  const RunResult cold = run_shell("nm " + fixture() + " | grep -c ' _ZN7fixture12checked_stepEj\\(.cold\\)\\?$'");
  REQUIRE(cold.out == "2\n");
  const RunResult split = run_tagop("annotate " + data + " fixture::checked_step");
  INFO(split.err);
  CHECK(split.exit_code == 0);
  CHECK(split.out.find("checked_step") != std::string::npos);

  const RunResult data_object = run_tagop("annotate " + data + " annotate_table");
  CHECK(data_object.exit_code == 1);
  CHECK(data_object.err.find("'annotate_table' is not code: it is a data object (OBJECT)") != std::string::npos);

  // The module's file is not under --symfs (and no build-id cache).
  const fs::path empty = capture().dir / "empty-symfs";
  fs::create_directories(empty);
  const RunResult missing = run_shell("PERF_BUILDID_DIR=" + empty.string() + " " + tagop_exe() + " annotate " + data +
                                      " " + fs::path(fixture()).filename().string() + "+0x1000 --symfs " + empty.string());
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("the file of " + module) != std::string::npos);
  CHECK(missing.err.find("is not here: looked for ") != std::string::npos);
  CHECK(missing.err.find(", " + empty.string() + module) != std::string::npos);  // the recorded path under --symfs

  // Bounded: one instruction fewer than hot has (objdump's count) is
  // refused with the count; a bound its bytes cannot fit in, by them.
  const json a = annotate_json(data + " hot");
  const std::size_t count = objdump(fixture(), a["address"], a["address"].get<std::uint64_t>() + a["end"].get<std::uint64_t>() -
                                                                 a["start"].get<std::uint64_t>())
                                .addresses.size();
  const RunResult large = run_tagop(fmt::format("annotate {} hot --max-instructions {}", data, count - 1));
  CHECK(large.exit_code == 1);
  CHECK(large.err.find(fmt::format("hot is too large: {} instructions, more than --max-instructions {}", count,
                                   count - 1)) != std::string::npos);
  const RunResult bytes = run_tagop("annotate " + data + " hot --max-instructions 1");
  CHECK(bytes.exit_code == 1);
  CHECK(bytes.err.find("hot is too large: ") != std::string::npos);

  const RunResult no_module = run_tagop("annotate " + data + " libnothing.so+0x10");
  CHECK(no_module.exit_code == 1);
  CHECK(no_module.err.find("no module 'libnothing.so' has samples") != std::string::npos);
  CHECK(run_tagop("annotate " + data).exit_code == 2);
}

TEST_CASE("annotate: an emulated IBS capture's op samples per instruction are perf script's", "[report][annotate][ibs]") {
  if (!have("valgrind") || !have("perf")) {
    WARN("valgrind or perf is not installed: not run");
    return;
  }
  const fs::path dir = fs::temp_directory_path() / ("tagop-annotate-ibs-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // One round of 20000 iterations of each loop: some 250 k instructions
  // under Valgrind, an op sample every 64 ops; and Goldmont's PEBS.
  const RunResult emulated = run_tagop("emulate --as zen3 --as goldmont --period 64 --pebs-period 64 -o " +
                                       (dir / "run.data").string() + " -- " + fixture() + " 1 20000");
  INFO(emulated.err);
  REQUIRE(emulated.exit_code == 0);
  const fs::path data = dir / "run.zen3.data";
  // PEBS samples are precise (precise_ip): exact too. Of the function
  // with the most (hot has no loads and few mispredictions: its module may
  // have no PEBS sample at all), as report --by address names its address.
  const std::string goldmont = (dir / "run.goldmont.data").string();
  const RunResult top = run_tagop("report " + goldmont + " --by address --top 1 --json");
  REQUIRE(top.exit_code == 0);
  const json pebs = annotate_json(goldmont + " " + json::parse(top.out)["rows"][0]["name"].get<std::string>());
  CHECK(pebs["ibs"] == false);
  CHECK(pebs["exact"] == true);
  CHECK(pebs["exactness"].get<std::string>().starts_with("exact: "));
  const json a = annotate_json(data.string() + " hot --events 0xF100,0xF206,dc_miss_rate");
  CHECK(a["ibs"] == true);
  CHECK(a["exact"] == true);

  // perf script: each ibs_op sample in hot, counted by its offset in it.
  const RunResult script = run_shell("perf script -F event,ip,sym,symoff -i " + data.string() + " 2>/dev/null");
  REQUIRE(script.exit_code == 0);
  std::map<std::uint64_t, std::uint64_t> perfs;
  const std::regex op(R"(^\s*ibs_op\S*:\s+[0-9a-f]+\s+hot\+0x([0-9a-f]+)\s*$)");
  std::istringstream lines(script.out);
  std::smatch m;
  for (std::string l; std::getline(lines, l);)
    if (std::regex_match(l, m, op)) ++perfs[std::stoull(m[1], nullptr, 16)];
  std::uint64_t total = 0;
  std::map<std::uint64_t, std::uint64_t> ours;  // by offset from the function's start
  for (const json& in : a["instructions"]) {
    const auto n = in["values"]["0xF100"].get<std::uint64_t>();
    if (n) ours[in["offset"].get<std::uint64_t>() - a["start"].get<std::uint64_t>()] = n;
    total += n;
  }
  REQUIRE(total > 100);
  CHECK(ours == perfs);
  fs::remove_all(dir);
}
