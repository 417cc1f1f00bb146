// The text of raw IBS samples that `decode --input` reads: lines split
// across pieces, comments, bounds, and errors that name the line.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <tagop/error.hpp>

#include "../../tools/ibs_sample_text.hpp"

using tagop::amd_ibs::IbsRegister;
using tagop::amd_ibs::IbsRegisters;
using tagop::amd_ibs::IbsUnit;
using tagop::cli::IbsSampleText;

namespace {

// The samples of `text` fed in pieces of `piece` bytes.
std::vector<IbsRegisters> samples_of(const std::string& text, std::size_t piece) {
  std::vector<IbsRegisters> out;
  IbsSampleText reader("t.txt", [&](const IbsRegisters& r) { out.push_back(r); });
  for (std::size_t at = 0; at < text.size(); at += piece) reader.feed(std::string_view(text).substr(at, piece));
  reader.finish();
  CHECK(reader.samples() == out.size());
  return out;
}

std::string error_of(const std::string& text) {
  try {
    samples_of(text, text.size() + 1);
  } catch (const tagop::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("sample text: the same samples however the text is cut", "[decode]") {
  const std::string text =
      "# two samples\n"
      "ibs-op IbsOpData=0x300000 IbsOpData3=0x2000000081   # a load that missed\n"
      "\n"
      "  ibs-fetch\tIbsFetchCtl=0x0018000000280000\r\n"
      "ibs-op IbsOpData3=16";  // no newline at the end
  for (std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{64}, text.size()}) {
    INFO("pieces of " << piece);
    const auto s = samples_of(text, piece);
    REQUIRE(s.size() == 3);
    CHECK(s[0].unit == IbsUnit::op);
    CHECK(s[0].get(IbsRegister::IbsOpData) == 0x300000);
    CHECK(s[0].get(IbsRegister::IbsOpData3) == 0x2000000081);
    CHECK_FALSE(s[0].has(IbsRegister::IbsOpData2));
    CHECK(s[1].unit == IbsUnit::fetch);
    CHECK(s[1].get(IbsRegister::IbsFetchCtl) == 0x0018000000280000);
    CHECK(s[2].get(IbsRegister::IbsOpData3) == 16);
  }
}

TEST_CASE("sample text: a bad line is named by its number", "[decode]") {
  CHECK(error_of("ibs-op IbsOpData3=1\n\nibs-op IbsOpData3=zz\n") ==
        "t.txt:3: IbsOpData3 'zz' is not a number (decimal, or hexadecimal with 0x)");
  CHECK(error_of("ibs-nope X=1\n") == "t.txt:1: unknown sample kind 'ibs-nope': expected ibs-fetch or ibs-op");
  CHECK(error_of("ibs-op\n") == "t.txt:1: give at least one REGISTER=VALUE");
}

TEST_CASE("sample text: a line longer than 4096 bytes ends the read, however it arrives", "[decode]") {
  const std::string line(4096, ' ');
  CHECK(samples_of(line + "\nibs-op IbsOpData3=1\n", 100).size() == 1);
  const std::string long_line(4097, ' ');
  for (std::size_t piece : {std::size_t{1}, std::size_t{4096}, std::size_t{5000}}) {
    INFO("pieces of " << piece);
    CHECK_THROWS_WITH(samples_of("ibs-op IbsOpData3=1\n" + long_line + "\n", piece),
                      "t.txt:2: a line of more than 4096 bytes: not a file of samples (one a line: 'ibs-op "
                      "IbsOpData3=0x81 ...')");
  }
  // NULs without an end, as /dev/zero gives them: the bound holds without a newline.
  IbsSampleText reader("zero", [](const IbsRegisters&) {});
  const std::string zeros(1000, '\0');
  CHECK_THROWS_WITH(
      [&] {
        for (int i = 0; i < 100; ++i) reader.feed(zeros);
      }(),
      Catch::Contains("zero:1: a line of more than 4096 bytes"));
}
