#include <tagop/text.hpp>

#include <algorithm>  // std::max

namespace tagop {

std::size_t utf8_sequence(std::string_view s, std::size_t& bad) {
  const auto b0 = static_cast<unsigned char>(s[0]);
  std::size_t length;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte (Unicode Table 3-7)
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) length = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) low = 0xA0;
    if (b0 == 0xED) high = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) low = 0x90;
    if (b0 == 0xF4) high = 0x8F;
  } else {
    bad = 1;
    return 0;
  }
  for (std::size_t i = 1; i < length; ++i) {
    if (i >= s.size()) {
      bad = i;
      return 0;
    }
    const auto b = static_cast<unsigned char>(s[i]);
    const unsigned char lo = i == 1 ? low : 0x80, hi = i == 1 ? high : 0xBF;
    if (b < lo || b > hi) {
      bad = i;
      return 0;
    }
  }
  return length;
}


std::size_t append_valid_utf8(std::string& out, std::string_view text) {
  std::size_t bad = 0;
  const std::size_t length = utf8_sequence(text, bad);
  if (length == 0) {
    out += "\xEF\xBF\xBD";
    return bad;
  }
  out.append(text.data(), length);
  return length;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) i += append_valid_utf8(out, text.substr(i));
  return out;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const auto lead = static_cast<unsigned char>(text[0]);
    std::size_t bad = 0;
    std::size_t length = utf8_sequence(text, bad);
    // C0 controls, DEL, and C1 controls (U+0080-U+009F: 0xC2 0x80-0x9F).
    const bool control =
        lead < 0x20 || lead == 0x7F || (length == 2 && lead == 0xC2 && static_cast<unsigned char>(text[1]) < 0xA0);
    if (length == 0 || control) {
      // Every byte of an escaped sequence, so that none is left to pair up.
      length = std::max<std::size_t>(length, 1);
      for (std::size_t i = 0; i < length; ++i) {
        constexpr char hex[] = "0123456789abcdef";
        const auto b = static_cast<unsigned char>(text[i]);
        out += {'\\', 'x', hex[b >> 4], hex[b & 15]};
      }
    } else if (lead == '\\') {
      out += "\\\\";
    } else {
      out.append(text.substr(0, length));
    }
    text.remove_prefix(length);
  }
  return out;
}

}  // namespace tagop
