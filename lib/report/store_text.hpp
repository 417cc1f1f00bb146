#pragma once
// The text the store's SQL is written in and its answers are read from:
// ClickHouse's string literals and its TabSeparated format, one copy for
// ingest, the store's reports and its call chains.

#include <cstdint>      // std::uint64_t
#include <sstream>      // std::istringstream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>                 // Error
#include <tagop/profiles/clickhouse.hpp>  // ClickHouseServer

namespace tagop::report::store_text {

// A ClickHouse string literal: quotes and backslashes escaped.
inline std::string sql_literal(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// One TabSeparated field, unescaped.
inline std::string unescaped(std::string_view field) {
  std::string out;
  for (std::size_t k = 0; k < field.size(); ++k) {
    if (field[k] != '\\' || k + 1 >= field.size()) {
      out += field[k];
      continue;
    }
    const char c = field[++k];
    out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c == '0' ? '\0' : c;
  }
  return out;
}

// A TabSeparated answer's lines, each split at its tabs (a tab in a field
// is escaped, "\t") and unescaped.
inline std::vector<std::vector<std::string>> tab_separated(std::string_view answer) {
  std::vector<std::vector<std::string>> out;
  while (!answer.empty()) {
    const std::size_t eol = answer.find('\n');
    std::string_view line = answer.substr(0, eol);
    answer.remove_prefix(eol == std::string_view::npos ? answer.size() : eol + 1);
    std::vector<std::string>& fields = out.emplace_back();
    for (;;) {
      const std::size_t tab = line.find('\t');
      fields.push_back(unescaped(line.substr(0, tab)));
      if (tab == std::string_view::npos) break;
      line.remove_prefix(tab + 1);
    }
  }
  return out;
}

// A number the store sent; a tagop::Error naming the server where it is not one.
inline std::uint64_t number(const profiles::ClickHouseServer& server, const std::string& text) {
  std::uint64_t value = 0;
  std::istringstream in(text);
  if (!(in >> value)) throw Error(fmt::format("{}: a number the store sent is not one: {}", server.url(), text));
  return value;
}

}  // namespace tagop::report::store_text
