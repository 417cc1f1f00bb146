#include "output.hpp"

#include "terminal.hpp"  // csv_row

#include <charconv>   // std::from_chars
#include <cmath>      // std::isfinite, std::floor, std::fabs
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

std::string csv_field(const std::string& text) { return csv_cell(printable(text)); }

std::string number_text(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return "-";
  return *v == std::floor(*v) && std::fabs(*v) < 1e15 ? fmt::format("{:.0f}", *v) : fmt::format("{:.4g}", *v);
}

}  // namespace tagop::cli
