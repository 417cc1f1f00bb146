#include "output.hpp"

#include "terminal.hpp"  // csv_row

#include <algorithm>  // std::max
#include <charconv>   // std::from_chars
#include <stdexcept>  // std::logic_error

#include <fmt/format.h>  // fmt::format

namespace tagop::cli {

Format OutputOptions::resolved() const {
  if (json) return Format::json;
  if (format == "json") return Format::json;
  if (format == "csv") return Format::csv;
  return Format::text;
}

void add_output_options(CLI::App& command, OutputOptions& options, bool with_csv,
                        const std::vector<std::string>& more) {
  std::vector<std::string> formats{"text", "json"};
  if (with_csv) formats.push_back("csv");
  formats.insert(formats.end(), more.begin(), more.end());
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

namespace {

template <typename Json>
Json with_schema(const Json& document, std::string_view schema) {
  if (!document.is_object()) throw std::logic_error("print_json: a document with a schema must be a JSON object");
  Json out = Json::object();
  out["schema"] = schema;
  for (const auto& [key, value] : document.items()) out[key] = value;
  return out;
}

}  // namespace

void print_json(const nlohmann::json& document, std::string_view schema) {
  print_json_document(with_schema(document, schema));
}
void print_json(const nlohmann::ordered_json& document, std::string_view schema) {
  print_json_document(with_schema(document, schema));
}

namespace {

void print_csv_leaves(const nlohmann::ordered_json& value, const std::string& path) {
  if ((value.is_object() || value.is_array()) && !value.empty()) {
    std::size_t index = 0;
    for (const auto& [key, item] : value.items()) {
      const std::string name = value.is_array() ? std::to_string(index++) : key;
      print_csv_leaves(item, path.empty() ? name : path + "/" + name);
    }
    return;
  }
  std::string text;
  if (value.is_string()) text = value.get<std::string>();
  else if (!value.is_null() && !value.is_object() && !value.is_array()) text = value.dump();
  fmt::print("{}", csv_row({printable(path), printable(text)}));
}

}  // namespace

void print_csv_record(const nlohmann::ordered_json& document) {
  fmt::print("{}", csv_row({"key", "value"}));
  print_csv_leaves(document, "");
}

void print_record(const nlohmann::ordered_json& document, std::string_view schema, Format format) {
  if (format == Format::csv) print_csv_record(document);
  else print_json(document, schema);
}

namespace {

// The length of the well-formed UTF-8 sequence at the start of `s`
// (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF), or 0.
std::size_t utf8_sequence(std::string_view s) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // past U+10FFFF
  } else {
    return 0;  // a continuation byte, an overlong lead (0xC0, 0xC1), or 0xF5 and up
  }
  if (s.size() < length || byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  return length;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const auto lead = static_cast<unsigned char>(text[0]);
    std::size_t length = utf8_sequence(text);
    // C0 controls, DEL, and C1 controls (U+0080-U+009F: 0xC2 0x80-0x9F).
    const bool control =
        lead < 0x20 || lead == 0x7F || (length == 2 && lead == 0xC2 && static_cast<unsigned char>(text[1]) < 0xA0);
    if (length == 0 || control) {
      // Every byte of an escaped sequence, so that none is left to pair up.
      length = std::max<std::size_t>(length, 1);
      for (std::size_t i = 0; i < length; ++i) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
    } else if (lead == '\\') {
      out += "\\\\";
    } else {
      out.append(text.substr(0, length));
    }
    text.remove_prefix(length);
  }
  return out;
}

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

std::string csv_field(const std::string& text) {
  const std::string s = printable(text);
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace tagop::cli
