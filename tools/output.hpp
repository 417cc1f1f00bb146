#pragma once
// What every command shares: the --format option and usage errors.

#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <CLI/CLI.hpp>        // CLI::App
#include <nlohmann/json.hpp>  // print_json

#include <tagop/text.hpp>  // printable

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

/// Prints a command's JSON object with its contract first: "schema" names
/// the output's shape and major version, "tagop.<command>/<major>", and
/// schemas/<command>.schema.json describes it (tests/contract validates
/// every command's output against it). The major version changes when a
/// key is removed, renamed or changes type; new keys keep it.
void print_json(const nlohmann::json& document, std::string_view schema);
void print_json(const nlohmann::ordered_json& document, std::string_view schema);

/// A record as CSV: a "key,value" header, then one row per leaf of the
/// document, its key the path to it ("fields/IbsOpLoad", "pmus/0"); objects
/// and arrays that are empty give one row with an empty value. The CSV of
/// commands that print one record rather than rows (decode, cpu), so that
/// it says what their JSON says.
void print_csv_record(const nlohmann::ordered_json& document);

/// The JSON (with its schema) or the CSV (print_csv_record) of a record.
void print_record(const nlohmann::ordered_json& document, std::string_view schema, Format format);

/// The text and CSV forms of every command print names from files (process
/// names, module paths, symbols, the file name) through printable()
/// (tagop/text.hpp).
using tagop::printable;

/// A CSV field: csv_cell(printable(text)) (terminal.hpp): quoted where needed, and never a formula.
std::string csv_field(const std::string& text);

/// A value as the text tables of diff and annotate print it: a whole
/// number without decimals, any other in four significant digits, "-"
/// when there is none or it is not finite (3 -> "3", 1/3 -> "0.3333").
std::string number_text(const std::optional<double>& v);

/// What `-o -` of record and emulate says: perf writes its pipe mode to
/// standard output there, tagop writes files only.
inline constexpr const char* pipe_mode_refusal =
    "-o -: perf writes a capture to standard output there (its pipe mode); tagop writes a capture to a file only "
    "(its header last): give a file name";

/// Thrown for bad arguments that only a command can judge; exits 2.
[[noreturn]] void usage_error(const std::string& message);

/// "10h", "0x10", "16" -> 16: families and models as AMD and perf write them.
unsigned parse_cpu_number(const std::string& text, const char* what);
/// "0x1f", "31" -> 31.
std::uint64_t parse_u64(const std::string& text, const char* what);

}  // namespace tagop::cli
