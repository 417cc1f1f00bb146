// printable(): what text and CSV output do with names from files, byte by
// byte, against escapes written out by hand.

#include <catch2/catch.hpp>

#include <string>

#include "../../tools/output.hpp"

using tagop::cli::printable;

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
