// Capstone is loaded when emulate's classifier is first made, not when
// tagop starts (lib/capstone_library.hpp): the classifier's answers on
// instructions whose kind the SDM gives, the library absent from a
// process until then and from `tagop --version`, and a library that is
// not Capstone refused with what is missing.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <tagop/conditions.hpp>
#include <tagop/emulate/instruction.hpp>
#include <tagop/error.hpp>

#include "../run_command.hpp"

using namespace tagop;
using namespace tagop::emulate;

namespace {

bool capstone_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream all;
  all << maps.rdbuf();
  return all.str().find("libcapstone") != std::string::npos;
}

InstructionInfo classify(const InstructionClassifier& c, std::vector<std::uint8_t> bytes) {
  return c.classify(bytes, 0x401000);
}

}  // namespace

TEST_CASE("the classifier loads Capstone when it is made, and decodes by the SDM", "[emulate]") {
  CHECK_FALSE(capstone_mapped());
  const InstructionClassifier c;
  CHECK(capstone_mapped());

  // Opcodes from the SDM, volume 2.
  CHECK(classify(c, {0xc3}).branch == BranchKind::ret);                          // RET
  CHECK(classify(c, {0xe8, 0, 0, 0, 0}).branch == BranchKind::call);             // CALL rel32
  CHECK(classify(c, {0xff, 0xd0}).branch == BranchKind::indirect_call);          // CALL rax (FF /2)
  CHECK(classify(c, {0xeb, 0xfe}).branch == BranchKind::jump);                   // JMP rel8
  CHECK(classify(c, {0xff, 0xe0}).branch == BranchKind::indirect_jump);          // JMP rax (FF /4)
  CHECK(classify(c, {0x75, 0xfe}).branch == BranchKind::conditional);            // JNE rel8
  CHECK(classify(c, {0xf0, 0x48, 0x01, 0x07}).locked);                           // LOCK ADD [rdi], rax
  CHECK(classify(c, {0x0f, 0x18, 0x0f}).prefetch);                               // PREFETCHT0 [rdi] (0F 18 /1)
  CHECK(classify(c, {0x48, 0xf7, 0xf1}).classes.contains(condition("op.int_divide")));  // DIV rcx (F7 /6)
  const InstructionInfo nop = classify(c, {0x90});
  CHECK(nop.known);
  CHECK(nop.branch == BranchKind::none);
  CHECK_FALSE(nop.locked);
  CHECK_FALSE(classify(c, {0xe8, 0}).known);  // CALL rel32 cut short
}

TEST_CASE("tagop starts without Capstone", "[emulate]") {
  const RunResult r = run_shell("LD_DEBUG=files " + tagop_exe() + " --version");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("libcapstone") == std::string::npos);
  CHECK(r.err.find("libfmt") != std::string::npos);  // what LD_DEBUG=files says of a library tagop does load
}

// Run by the next test, in a process whose library path has a stand-in
// with Capstone's soname and none of its functions.
TEST_CASE("a stand-in without Capstone's functions is refused", "[.capstone_stand_in]") {
  try {
    const InstructionClassifier c;
    FAIL("the stand-in was taken for Capstone");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::not_supported);
    CHECK(std::string(e.what()).find("has no cs_open") != std::string::npos);
  }
}

TEST_CASE("a library that is not Capstone is refused with what it lacks", "[emulate]") {
  if (run_shell("command -v cc >/dev/null").exit_code != 0) {
    WARN("no C compiler to build the stand-in: not tested");
    return;
  }
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tagop-capstone-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // The soname the build read is the file name dlopen asks for.
  const RunResult soname = run_shell("readelf -d $(pkg-config --variable=libdir capstone)/libcapstone.so | "
                                     "sed -n 's/.*(SONAME).*\\[\\(.*\\)\\]/\\1/p'");
  REQUIRE(soname.exit_code == 0);
  const std::string name = soname.out.substr(0, soname.out.find('\n'));
  REQUIRE_FALSE(name.empty());
  REQUIRE(run_shell("echo 'int stand_in;' | cc -shared -fPIC -x c - -o " + (dir / name).string()).exit_code == 0);
  const RunResult child =
      run_shell("LD_LIBRARY_PATH=" + dir.string() + " /proc/" + std::to_string(::getpid()) + "/exe '[.capstone_stand_in]'");
  INFO(child.out << child.err);
  CHECK(child.exit_code == 0);
  CHECK(child.out.find("All tests passed") != std::string::npos);
  fs::remove_all(dir);
}
