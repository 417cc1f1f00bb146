#include "output.hpp"

#include <charconv>  // std::from_chars

#include <fmt/format.h>  // fmt::format

namespace tagop::cli {

Format OutputOptions::resolved() const {
  if (json) return Format::json;
  if (format == "json") return Format::json;
  if (format == "csv") return Format::csv;
  return Format::text;
}

void add_output_options(CLI::App& command, OutputOptions& options, bool with_csv) {
  std::vector<std::string> formats{"text", "json"};
  if (with_csv) formats.push_back("csv");
  command.add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember(formats))
      ->capture_default_str();
  command.add_flag("--json", options.json, "Short for --format json");
}

namespace {

template <typename Json>
void print_json_document(const Json& document) {
  fmt::print("{}\n", document.dump(2, ' ', false, Json::error_handler_t::replace));
}

}  // namespace

void print_json(const nlohmann::json& document) { print_json_document(document); }
void print_json(const nlohmann::ordered_json& document) { print_json_document(document); }

// placeholder: helper hostile's escape replaces this at merge
std::string printable(std::string_view text) { return std::string(text); }

void usage_error(const std::string& message) { throw CLI::ValidationError(message); }

namespace {

bool parse_in_base(std::string_view s, int base, std::uint64_t& out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc{} && end == s.data() + s.size();
}

}  // namespace

std::uint64_t parse_u64(const std::string& text, const char* what) {
  std::string_view s = text;
  std::uint64_t v = 0;
  bool ok = (s.starts_with("0x") || s.starts_with("0X")) ? parse_in_base(s.substr(2), 16, v) : parse_in_base(s, 10, v);
  if (!ok) usage_error(fmt::format("{} '{}' is not a number (decimal, or hexadecimal with 0x)", what, text));
  return v;
}

unsigned parse_cpu_number(const std::string& text, const char* what) {
  std::string_view s = text;
  std::uint64_t v = 0;
  bool ok;
  if (s.ends_with("h") || s.ends_with("H")) ok = parse_in_base(s.substr(0, s.size() - 1), 16, v);
  else if (s.starts_with("0x") || s.starts_with("0X")) ok = parse_in_base(s.substr(2), 16, v);
  else ok = parse_in_base(s, 10, v);
  if (!ok || v > 0xFF)
    usage_error(fmt::format("{} '{}' is not a number from 0 to 255 (write 10h or 0x10 for hexadecimal)", what, text));
  return static_cast<unsigned>(v);
}

}  // namespace tagop::cli
