#include "terminal.hpp"

#include <charconv>  // std::from_chars

#include <sys/ioctl.h>  // ioctl, TIOCGWINSZ
#include <unistd.h>     // isatty, STDOUT_FILENO

namespace tagop::cli {

std::size_t terminal_width() {
  static const std::size_t width = [] {
    if (!::isatty(STDOUT_FILENO)) return std::size_t{0};
    winsize ws{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return std::size_t{80};
    return std::size_t{ws.ws_col};
  }();
  return width;
}

std::string fit(std::string_view line, std::size_t width) {
  if (width == 0 || line.size() <= width) return std::string(line);
  if (width <= 3) return std::string(line.substr(0, width));
  return std::string(line.substr(0, width - 3)) + "...";
}

std::string wrap(std::string_view text, std::size_t width, std::size_t indent) {
  if (width == 0 || indent + 20 > width) return std::string(text);
  std::string out;
  std::size_t column = indent;  // the caller printed the first line's indent
  while (!text.empty()) {
    const auto space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
    if (column > indent && column + 1 + word.size() > width) {
      out += '\n';
      out.append(indent, ' ');
      column = indent;
    } else if (column > indent) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  return out;
}

std::string csv_cell(std::string_view field) {
  // A spreadsheet runs a cell that begins with =, +, -, @, a tab or a
  // carriage return as a formula (=HYPERLINK(...) in a symbol name): such a
  // cell, unless it is a number, gets a leading ' and quotes, as OWASP's
  // advice on CSV injection has it; the ' shows what was done.
  double number = 0;
  const bool formula = !field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos &&
                       std::from_chars(field.data(), field.data() + field.size(), number).ptr != field.data() + field.size();
  if (!formula && field.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(field);
  std::string out = formula ? "\"'" : "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_cell(fields[i]);
  }
  return out + "\n";
}

}  // namespace tagop::cli
