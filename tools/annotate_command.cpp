// tagop annotate FILE SYMBOL: one function of a capture, instruction by
// instruction, with its source lines, as perf annotate --stdio shows it;
// of an IBS capture with derived events and ratios per instruction. The
// work is one library call (tagop::report::annotate); this is its options
// and printing.

#include <algorithm>  // std::max, std::sort
#include <cmath>      // std::isfinite

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include <tagop/error.hpp>              // Error
#include <tagop/perf_data_reader.hpp>   // PerfDataReader
#include <tagop/report/annotate.hpp>    // annotate, write_annotation_html
#include <tagop/report/export.hpp>      // ExportTarget

#include "annotate_records.hpp"
#include "commands.hpp"
#include "kernel_symbol_options.hpp"
#include "output.hpp"
#include "terminal.hpp"  // fit

namespace tagop::cli {

namespace {

struct AnnotateOptions {
  std::string file, symbol, input;
  std::string events, where;
  std::vector<std::string> pids, comms;
  std::string family, model;
  std::size_t max_instructions = 4000;
  std::size_t hottest = 5;
  bool no_source = false;
  std::string html;  // --html FILE
  KernelSymbolOptions kernel;
  OutputOptions output;
};

// The width the text fits, as perf annotate's --stdio.
constexpr std::size_t text_width = 100;

ColumnValues values_record(const report::Annotation& a, const std::vector<std::optional<double>>& values) {
  ColumnValues out;
  for (std::size_t c = 0; c < a.columns.size(); ++c)
    out.emplace_back(a.columns[c].id, values[c] && std::isfinite(*values[c]) ? values[c] : std::nullopt);
  return out;
}

std::string hex_bytes(const std::vector<std::uint8_t>& bytes) {
  std::string out;
  for (std::uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

AnnotateRecord annotate_record(const report::Annotation& a) {
  AnnotateRecord out{a.function, a.symbol,   a.module, a.build_id, a.file,      a.start, a.end, a.address,
                     a.ibs,      a.exact,    a.exactness, a.overhead, {},       values_record(a, a.values),
                     {},         {},         a.warnings};
  for (const report::Column& c : a.columns) out.columns.push_back({c.id, c.title});
  for (const report::AnnotatedInstruction& in : a.instructions) {
    const std::string source = report::source_of(a, in);
    out.instructions.push_back({in.address, in.offset, hex_bytes(in.bytes), in.text,
                                source.empty() ? std::nullopt : std::optional<std::string>(source), in.percent, in.hot,
                                values_record(a, in.values)});
  }
  for (const report::AnnotatedLine& l : a.lines)
    out.lines.push_back({fmt::format("{}:{}", l.file, l.line), l.text, l.percent, values_record(a, l.values)});
  return out;
}

std::string short_file(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A sentence in lines of at most text_width columns, broken between words.
void print_wrapped(const std::string& text) {
  std::string line;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find(' ', begin);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(begin, end - begin);
    if (!line.empty() && line.size() + 1 + word.size() > text_width) {
      fmt::print("{}\n", line);
      line = "  " + word;
    } else {
      line += (line.empty() ? "" : " ") + word;
    }
    begin = end + 1;
  }
  if (!line.empty()) fmt::print("{}\n", line);
}

void print_text(const report::Annotation& a, const AnnotateOptions& o) {
  const std::string& first = a.columns.front().id;
  std::vector<std::string> totals;
  for (std::size_t c = 0; c < a.columns.size(); ++c)
    totals.push_back(fmt::format("{} {}", printable(a.columns[c].id), number_text(a.values[c])));
  fmt::print("{}\n", fit(fmt::format("{} ({:#x}-{:#x}): {:.2f}% of the capture; {}", printable(a.function), a.address,
                                     a.address + (a.end - a.start), a.overhead, fmt::join(totals, ", ")),
                         text_width));
  fmt::print("{}\n", fit(fmt::format("module {}{}, file offsets {:#x}-{:#x}", printable(a.module),
                                     a.build_id.empty() ? "" : " build-id " + a.build_id, a.start, a.end),
                         text_width));
  print_wrapped(printable(a.exactness));
  print_wrapped(fmt::format("Percent: each instruction's share of the function's {} (perf annotate's local period); "
                            "*: 5% or more",
                            a.ibs ? "fetch and op samples" : fmt::format("{} periods", printable(first))));

  // The hottest source lines, as perf annotate -l's summary.
  std::vector<const report::AnnotatedLine*> hottest;
  for (const report::AnnotatedLine& l : a.lines)
    if (l.percent > 0) hottest.push_back(&l);
  std::sort(hottest.begin(), hottest.end(), [](auto* x, auto* y) { return x->percent > y->percent; });
  if (hottest.size() > o.hottest) hottest.resize(o.hottest);
  if (!hottest.empty()) {
    fmt::print("\nHottest source lines:\n");
    for (const report::AnnotatedLine* l : hottest)
      fmt::print("{}\n", fit(fmt::format("  {:6.2f}%  {}:{}{}", l->percent, printable(short_file(l->file)), l->line,
                                         l->text.empty() ? "" : "  " + printable(l->text)),
                             text_width));
  }

  // Columns as wide as their widest value or title.
  std::vector<std::size_t> widths;
  for (std::size_t c = 0; c < a.columns.size(); ++c) {
    std::size_t w = std::min<std::size_t>(printable(a.columns[c].id).size(), 15);
    for (const report::AnnotatedInstruction& in : a.instructions) w = std::max(w, number_text(in.values[c]).size());
    widths.push_back(w);
  }
  std::string head = fmt::format("{:>8} ", "Percent");
  for (std::size_t c = 0; c < a.columns.size(); ++c)
    head += fmt::format(" {:>{}}", fit(printable(a.columns[c].id), widths[c]), widths[c]);
  std::size_t address_width = fmt::format("{:x}", a.address + (a.end - a.start)).size();
  fmt::print("\n{}  {:>{}}  Instruction\n", head, "Address", std::max<std::size_t>(address_width, 7) + 1);
  address_width = std::max<std::size_t>(address_width, 7);
  const std::size_t prefix = head.size();
  std::size_t shown_line = report::AnnotatedInstruction::none;
  for (const report::AnnotatedInstruction& in : a.instructions) {
    if (!o.no_source && in.line != shown_line && in.line != report::AnnotatedInstruction::none) {
      const report::AnnotatedLine& l = a.lines[in.line];
      fmt::print("{}\n", fit(fmt::format("{:>{}} : {}:{}{}", "", prefix, printable(short_file(l.file)), l.line,
                                         l.text.empty() ? "" : "  " + printable(l.text)),
                             text_width));
    }
    shown_line = in.line;
    std::string row = fmt::format("{:>7.2f}{}", in.percent, in.hot ? '*' : ' ');
    for (std::size_t c = 0; c < a.columns.size(); ++c) row += fmt::format(" {:>{}}", number_text(in.values[c]), widths[c]);
    row += fmt::format("  {:>{}x}:  {}", in.address, address_width, in.text);
    fmt::print("{}\n", fit(row, text_width));
  }
}

void run_annotate(const AnnotateOptions& o) {
  if (!o.input.empty() && !o.symbol.empty() && !o.file.empty())
    usage_error("give the capture once: -i FILE SYMBOL or FILE SYMBOL");
  // With -i, the one positional argument is the symbol.
  const std::string file = !o.input.empty() ? o.input : o.file;
  const std::string symbol = !o.input.empty() && o.symbol.empty() ? o.file : o.symbol;
  if (file.empty() || symbol.empty()) usage_error("expected FILE SYMBOL: the capture and the function to annotate");
  report::AnnotateOptions options;
  options.symbol = symbol;
  options.max_instructions = o.max_instructions;
  options.source_text = !o.no_source;
  options.files.symfs = o.kernel.symfs;
  report::Filters& filters = options.report.filters;
  for (const std::string& p : o.pids) {
    const std::uint64_t v = parse_u64(p, "--pid");
    if (v > 0xFFFFFFFFu) usage_error(fmt::format("--pid '{}' is out of range", p));
    filters.pids.push_back(static_cast<std::uint32_t>(v));
  }
  filters.comms = o.comms;
  if (!o.where.empty()) {
    try {
      filters.where = Predicate::parse(o.where);
    } catch (const Error& e) {
      usage_error(fmt::format("--where: {}", e.what()));
    }
  }
  if (!o.family.empty())
    options.report.cpu = CpuId{"AuthenticAMD", parse_cpu_number(o.family, "--family"),
                               o.model.empty() ? 0 : parse_cpu_number(o.model, "--model"), 0};
  else if (!o.model.empty())
    usage_error("--model needs --family");

  perf_data::PerfDataReader reader(file);
  const bool ibs = report::holds_ibs_events(reader.info());
  if (!ibs && filters.where) usage_error(fmt::format("--where: {} has no IBS events, so no conditions to test", file));
  if (!ibs && !o.events.empty())
    usage_error(fmt::format("--events chooses IBS derived events, and {} has no IBS events: its columns are its "
                            "events, by period, and their samples",
                            file));
  try {
    if (ibs && !o.events.empty()) options.columns = report::resolve_columns(o.events);
  } catch (const report::ColumnError& e) {
    usage_error(e.what());
  }
  options.report.symbol_sources = symbol_sources_for(o.kernel, reader.info());
  options.report.kernel_symbols = false;  // symbol_sources_for gives the kernel source
  options.report.unwind_files.symfs = o.kernel.symfs;
  const report::Annotation a = report::annotate(reader, options);
  for (const std::string& w : a.warnings) fmt::print(stderr, "tagop: warning: {}\n", printable(w));
  if (!o.html.empty()) {
    report::ExportTarget page(o.html);
    report::write_annotation_html(a, page.stream());
    page.commit();
  }
  if (o.output.resolved() == Format::json) print_json(record::to_json(annotate_record(a)), annotate_contract.schema);
  else print_text(a, o);
}

}  // namespace

void add_annotate_command(CLI::App& app) {
  auto o = std::make_shared<AnnotateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "annotate", "One function of a capture, instruction by instruction, with its source lines and samples (IBS "
                  "derived events per instruction), as perf annotate --stdio");
  cmd->add_option("file", o->file, "The capture (perf.data)");
  cmd->add_option("symbol", o->symbol,
                  "The function: a name (hot, ns::f), an ELF address as objdump prints it (0x1149), MODULE+0xOFFSET "
                  "as report --by address names it (fix+0x1149: the function holding it), or for a stripped module "
                  "a range MODULE+0xSTART-0xEND");
  cmd->add_option("-i,--input", o->input, "The capture, as perf annotate -i (then the one argument is the symbol)");
  cmd->add_option("--events", o->events,
                  fmt::format("IBS columns: select values (0xF206), event names or abbreviations, 'samples', ratios "
                              "(dc_miss_rate, mispredict_rate ...); default {}. A capture without IBS has its events "
                              "(by period) and samples",
                              report::annotate_ibs_columns));
  cmd->add_option("--where", o->where, "IBS: only samples that meet this predicate, e.g. 'load & dc.miss'");
  cmd->add_option("--pid", o->pids, "Only samples from these processes")->delimiter(',');
  cmd->add_option("--comm", o->comms, "Only samples from processes of these names")->delimiter(',');
  cmd->add_option("--family", o->family, "The processor family, when the file does not say (10h, 0x19, 25)");
  cmd->add_option("--model", o->model, "The processor model, with --family");
  cmd->add_option("--max-instructions", o->max_instructions,
                  "Refuse a function of more instructions than this (annotate a part as MODULE+0xSTART-0xEND)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24));
  cmd->add_option("--hottest", o->hottest, "Text: list this many of the hottest source lines first")
      ->capture_default_str();
  cmd->add_flag("--no-source", o->no_source, "Text: no source lines between the instructions");
  cmd->add_option("--html", o->html,
                  "Also write one self-contained HTML page: the instructions as a sortable table, with their source "
                  "lines");
  add_kernel_symbol_options(*cmd, o->kernel);
  add_output_options(*cmd, o->output);
  cmd->footer(
      "Examples:\n"
      "  perf record -e cpu-clock -F 10000 -- ./prog && tagop annotate perf.data hot\n"
      "  tagop annotate perf.data prog+0x1149            (the function holding that offset: report --by address)\n"
      "  tagop annotate perf.data libx.so+0x2000-0x2400  (a stripped module's range)\n"
      "  tagop annotate ibs.data hot --events 0xF206,dc_miss_rate --where load\n"
      "  tagop annotate perf.data hot --json             (schema tagop.annotate/1)\n"
      "  tagop annotate perf.data hot --html hot.html    (a page to sort by any column)\n"
      "\n"
      "Numbers are per instruction: of an IBS capture, derived events and ratios (exact: each op sample is of its\n"
      "own instruction); of any other, each event's periods and samples, as perf annotate --show-nr-samples\n"
      "(timer and counter samples skid: they land some instructions after the one that caused them).");
  cmd->callback([o] { run_annotate(*o); });
}

}  // namespace tagop::cli
