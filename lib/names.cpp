#include <tagop/names.hpp>

#include <algorithm>  // std::min
#include <cctype>     // std::tolower
#include <vector>     // std::vector

namespace tagop {

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim_space(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string event_name_key(std::string_view s) {
  std::string out = ascii_lower(trim_space(s));
  for (char& c : out)
    if (c == ':') c = '.';
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // The work is the product of the lengths: beyond the cap, the tails are
  // counted as inserted or deleted.
  if (a.size() > max_compared_length || b.size() > max_compared_length) {
    const std::size_t tails = a.size() - std::min(a.size(), max_compared_length) + b.size() -
                              std::min(b.size(), max_compared_length);
    return edit_distance(a.substr(0, max_compared_length), b.substr(0, max_compared_length)) + tails;
  }
  auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  // Optimal string alignment over three rolling rows.
  std::vector<std::size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace tagop
