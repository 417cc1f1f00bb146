#pragma once
// One function of a capture, instruction by instruction, as `perf annotate
// --stdio` shows it: its disassembly (Capstone, AT&T syntax as objdump's),
// the source line of each instruction (DWARF), and each instruction's
// samples: IBS derived events and ratios for an IBS capture, each event's
// periods and the sample count for any other. The numbers are a Report's
// rows by address (module+offset), those inside the function.
//
//   perf_data::PerfDataReader reader("perf.data");
//   report::Annotation a = report::annotate(reader, {.symbol = "hot"});
//   for (const report::AnnotatedInstruction& i : a.instructions)
//     fmt::print("{:6.2f}% {:x}: {}\n", i.percent, i.address, i.text);
//
// Thread safety: annotate() uses only what it is given (one reader at a
// time, as Report).

#include <cstdint>   // std::uint64_t
#include <iosfwd>    // std::ostream
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>               // TAGOP_API
#include <tagop/engine.hpp>            // QueryResult
#include <tagop/perf_data_reader.hpp>  // PerfDataReader
#include <tagop/report/columns.hpp>    // Column
#include <tagop/report/report.hpp>     // Options
#include <tagop/symbol_files.hpp>      // SymbolFileSearch

namespace tagop TAGOP_API {
namespace report {

/// The IBS columns annotate shows unless asked for others: op samples, DC
/// misses and their rate, and the mispredict rate.
inline constexpr const char* annotate_ibs_columns = "0xF100,0xF206,dc_miss_rate,mispredict_rate";

/// What annotate() annotates, and how.
struct AnnotateOptions {
  /// The function: its name ("hot", a C++ name demangled or not), an ELF
  /// address as objdump prints it ("0x1149"), the function holding a
  /// module offset as `report --by address` names it ("fix+0x1149", the
  /// module by its path or file name), or, for a stripped module, a range
  /// of offsets ("libx.so+0x1000-0x1200", the end excluded).
  std::string symbol{};
  /// The report whose rows by address give the numbers: its filters
  /// (--where, --pid ...), processor and symbol sources. `by` and `keys`
  /// are replaced (by address).
  Options report{};
  /// Where the module's file is found: --symfs, the build-id cache, the
  /// debug directory (the file must have the recorded build-id).
  SymbolFileSearch files{};
  /// IBS captures: the columns (empty: resolve_columns(annotate_ibs_columns)).
  /// Other captures' are each event's periods and "samples".
  std::vector<Column> columns{};
  /// A function of more instructions is refused (an Error saying how many).
  std::size_t max_instructions = 4000;
  /// Read each source line's text from its file, where the file is here.
  bool source_text = true;
};

/// A source line of the function, with what its instructions hold.
struct AnnotatedLine {
  std::string file;  ///< as the debug information names it, in normal form
  unsigned line = 0;  ///< 1-based
  std::string text;  ///< the line's text; "" when the file is not here
  std::vector<QueryResult> results;            ///< one per query, summed over its instructions
  std::vector<std::optional<double>> values;   ///< one per column
  double percent = 0;                          ///< its share of the function's (as AnnotatedInstruction::percent)
};

/// One instruction of the function, with its samples.
struct AnnotatedInstruction {
  std::uint64_t address = 0;  ///< the ELF address, as objdump and perf annotate print it
  std::uint64_t offset = 0;   ///< the module's file offset: report --by address's module+offset
  std::vector<std::uint8_t> bytes;  ///< its encoding
  std::string text;  ///< "imul %edx, %esi": Capstone's AT&T syntax; "(bad)" where no instruction decodes
  /// Its source line: an index into Annotation::lines, or none.
  std::size_t line = none;
  std::vector<QueryResult> results;           ///< one per query (Annotation::query_names)
  std::vector<std::optional<double>> values;  ///< one per column; nullopt: not available
  /// Its share of the function's samples, as perf annotate's local period
  /// percent: IBS, of the fetch and op samples; otherwise of the first
  /// event's periods.
  double percent = 0;
  /// At least 5% of the function's (perf annotate's red).
  bool hot = false;

  /// No source line.
  static constexpr std::size_t none = ~std::size_t{0};
};

/// A function annotated: annotate()'s answer.
struct Annotation {
  std::string function;  ///< demangled; for a range, "module+0xA-0xB"
  std::string symbol;    ///< as the symbol table has it ("" for a range)
  std::string module;    ///< the module's path, as the capture names it
  std::string build_id;  ///< recorded, lowercase hex; "" when not known
  std::string file;      ///< the file read (under --symfs, in the build-id cache ...)
  std::uint64_t start = 0;    ///< the first byte's file offset
  std::uint64_t end = 0;      ///< the file offset past the last byte
  std::uint64_t address = 0;  ///< the ELF address of `start`
  bool ibs = false;           ///< an IBS capture: the columns are derived events and ratios
  std::vector<std::string> query_names;  ///< Report::query_names()
  std::vector<Column> columns;           ///< what each instruction's `values` are
  std::vector<AnnotatedInstruction> instructions;  ///< in address order
  std::vector<AnnotatedLine> lines;  ///< in the order the instructions first name them
  std::vector<QueryResult> totals;   ///< the function's, one per query
  std::vector<std::optional<double>> values;  ///< the function's, one per column
  /// The function's share of the whole capture, in percent (Report::overhead).
  double overhead = 0;
  /// Whether each sample is of the instruction it names: IBS op samples,
  /// and samples of events with precise_ip; a timer's or a counter's
  /// overflow is taken some instructions later (skid).
  bool exact = false;
  /// Why not, or what is exact: one sentence.
  std::string exactness;
  /// What the user should be told: the report's warnings, samples in the
  /// function's bytes that no instruction starts at.
  std::vector<std::string> warnings;
};

/// Annotates one function of the capture. Throws tagop::Error, saying
/// what and where: a name no module with samples has (with the names
/// closest to it), a name that several functions have (each, as
/// module+offset), a data object, a module whose file is not found (the
/// paths looked at), a function of more than max_instructions, a capture
/// of a machine that is not x86 (Capstone decodes x86 here). The kernel's
/// functions are not annotated (their code is not in a file here).
Annotation annotate(perf_data::PerfDataReader& reader, const AnnotateOptions& options);

/// The annotation as one self-contained HTML page (the table of
/// `tagop report --html`, a row per instruction in address order, its
/// source line beside it). Throws tagop::Error when the stream fails.
void write_annotation_html(const Annotation& annotation, std::ostream& out);

/// "fix.c:10", "" for an instruction without a line.
std::string source_of(const Annotation& annotation, const AnnotatedInstruction& instruction);

}  // namespace report
}  // namespace tagop
