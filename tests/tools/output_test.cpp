// printable(): what text and CSV output do with names from files, byte by
// byte, against escapes written out by hand.

#include <catch2/catch.hpp>

#include <limits>
#include <optional>
#include <string>

#include "../../tools/output.hpp"
#include "../../tools/terminal.hpp"

using tagop::cli::printable;

TEST_CASE("number_text: whole numbers bare, others in four digits, none as -", "[output]") {
  using tagop::cli::number_text;
  CHECK(number_text(3.0) == "3");
  CHECK(number_text(-12.0) == "-12");
  CHECK(number_text(1.0 / 3.0) == "0.3333");
  CHECK(number_text(2.5) == "2.5");
  CHECK(number_text(1e16) == "1e+16");  // past 1e15 a whole number is no longer written out
  CHECK(number_text(std::nullopt) == "-");
  CHECK(number_text(std::numeric_limits<double>::infinity()) == "-");
  CHECK(number_text(std::numeric_limits<double>::quiet_NaN()) == "-");
}

TEST_CASE("printable passes well-formed UTF-8 whole", "[output]") {
  CHECK(printable("/usr/lib/libc.so.6") == "/usr/lib/libc.so.6");
  CHECK(printable("") == "");
  CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9");                         // U+00E9, 2 bytes
  CHECK(printable("\xe2\x82\xac 5") == "\xe2\x82\xac 5");                    // U+20AC, 3 bytes
  CHECK(printable("\xf0\x9f\x94\xa5") == "\xf0\x9f\x94\xa5");                // U+1F525, 4 bytes
  CHECK(printable("\xf4\x8f\xbf\xbf") == "\xf4\x8f\xbf\xbf");                // U+10FFFF, the last
  CHECK(printable("\xc2\xa0") == "\xc2\xa0");                                // U+00A0, just past C1
}

TEST_CASE("printable escapes control characters, C1 included", "[output]") {
  CHECK(printable("\x1b[31mred") == "\\x1b[31mred");  // a terminal colour escape
  CHECK(printable("a\tb\nc\rd") == "a\\x09b\\x0ac\\x0dd");
  CHECK(printable(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(printable("del\x7f") == "del\\x7f");
  CHECK(printable("csi\xc2\x9b" "2J") == "csi\\xc2\\x9b2J");  // U+009B, CSI as UTF-8
  CHECK(printable("\xc2\x80") == "\\xc2\\x80");              // U+0080, the first C1
}

TEST_CASE("printable escapes bytes that are not UTF-8, and the backslash", "[output]") {
  CHECK(printable("bad\xff.data") == "bad\\xff.data");
  CHECK(printable("\x80") == "\\x80");                       // a continuation byte alone
  CHECK(printable("\xc3") == "\\xc3");                       // a lead byte at the end
  CHECK(printable("\xc3(") == "\\xc3(");                     // a lead byte before ASCII
  CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");              // overlong '/'
  CHECK(printable("\xe0\x80\xaf") == "\\xe0\\x80\\xaf");     // overlong, 3 bytes
  CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");     // a UTF-16 surrogate, U+D800
  CHECK(printable("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  CHECK(printable("\xf5") == "\\xf5");
  CHECK(printable("\xe2\x82") == "\\xe2\\x82");              // a sequence cut short
  CHECK(printable("a\\b") == "a\\\\b");
  // What printable gives is itself printable: nothing to escape twice but
  // the backslashes.
  CHECK(printable(printable("\x1b\xff")) == "\\\\x1b\\\\xff");
}

// A cell that a spreadsheet would run as a formula gets a leading ' inside
// quotes (OWASP's advice on CSV injection); numbers stay numbers.
TEST_CASE("CSV cells: quoted where RFC 4180 says, and never a formula", "[output]") {
  using tagop::cli::csv_cell;
  using tagop::cli::csv_field;
  CHECK(csv_cell("main") == "main");
  CHECK(csv_cell("a,b") == "\"a,b\"");
  CHECK(csv_cell("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_cell("=HYPERLINK(\"http://x\",\"y\")") == "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  CHECK(csv_cell("+1+2") == "\"'+1+2\"");
  CHECK(csv_cell("-2+3") == "\"'-2+3\"");
  CHECK(csv_cell("@SUM(A1)") == "\"'@SUM(A1)\"");
  CHECK(csv_cell("\t=1") == "\"'\t=1\"");
  CHECK(csv_cell("-3") == "-3");
  CHECK(csv_cell("-0.25") == "-0.25");
  CHECK(csv_cell("") == "");
  // A name from a file: printable first, so a line end cannot split the row.
  CHECK(csv_field("=cmd|' /C calc'!A0\n") == "\"'=cmd|' /C calc'!A0\\x0a\"");
}
