#pragma once
// What every command shares: the --format option and usage errors.

#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <CLI/CLI.hpp>        // CLI::App
#include <nlohmann/json.hpp>  // print_json

namespace tagop::cli {

enum class Format { text, json, csv };

struct OutputOptions {
  std::string format = "text";
  bool json = false;
  Format resolved() const;
};

/// Adds --format (text|json, plus csv where `with_csv`, plus `more`: formats
/// the command handles itself, which resolved() leaves as text) and --json.
void add_output_options(CLI::App& command, OutputOptions& options, bool with_csv = false,
                        const std::vector<std::string>& more = {});

/// Prints a JSON document and a newline. Every command's JSON goes through
/// here, so that every output treats strings the same way: bytes that are
/// not UTF-8 (module paths and process names may hold any) become U+FFFD.
void print_json(const nlohmann::json& document);
void print_json(const nlohmann::ordered_json& document);

/// `text` made safe to print: control characters and bytes that are not UTF-8 escaped as \xNN.
///
/// The text and CSV forms of every command print names from files (process
/// names, module paths, symbols, the file name) through this: a name may
/// hold any bytes, and a terminal must not take them for escape codes.
/// Well-formed UTF-8 passes whole, but for the C1 controls (U+0080 to
/// U+009F), whose bytes are escaped too; a backslash becomes \\, so that
/// the escapes cannot be confused with the name's own text.
///   printable("bad\xff.data") is the text bad\xff.data (backslash, x, f, f)
std::string printable(std::string_view text);

/// A CSV field: printable(), quoted when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& text);

/// Thrown for bad arguments that only a command can judge; exits 2.
[[noreturn]] void usage_error(const std::string& message);

/// "10h", "0x10", "16" -> 16: families and models as AMD and perf write them.
unsigned parse_cpu_number(const std::string& text, const char* what);
/// "0x1f", "31" -> 31.
std::uint64_t parse_u64(const std::string& text, const char* what);

}  // namespace tagop::cli
