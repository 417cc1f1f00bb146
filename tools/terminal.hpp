#pragma once
// Text that fits the terminal when a person reads it and stays whole when
// a program does: widths only apply when stdout is a terminal.

#include <cstddef>      // std::size_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace tagop::cli {

/// The terminal's columns when stdout is a terminal, else 0 (no limit).
std::size_t terminal_width();

/// `line` cut to `width` columns with "..." at the end; whole when width is 0.
std::string fit(std::string_view line, std::size_t width);

/// `text` broken at spaces into lines of at most `width` columns, each
/// after the first starting with `indent`; one line when width is 0.
std::string wrap(std::string_view text, std::size_t width, std::size_t indent);

/// One CSV cell: quoted (RFC 4180) where it holds a comma, a quote or a
/// line end; one that a spreadsheet would run as a formula (it begins with
/// =, +, -, @, a tab or a carriage return and is not a number) gets a
/// leading ' and quotes: csv_cell("=1+2") is "'=1+2", csv_cell("-3") is -3.
std::string csv_cell(std::string_view field);

/// One CSV record of csv_cell()s, with its line end.
std::string csv_row(const std::vector<std::string>& fields);

}  // namespace tagop::cli
