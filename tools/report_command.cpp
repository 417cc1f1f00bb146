// tagop report [-i] FILE: a capture (perf.data) by function, module,
// process, address, source line or call chain. Of an IBS capture, the IBS
// derived events as CodeAnalyst reported them, the ratios people read them
// for, and estimates with their intervals; of any other, each event's
// samples weighted by period, as perf report counts them. The work is one
// library call (tagop::report::Report); this is its options and printing.

#include <algorithm>  // std::max
#include <charconv>   // std::from_chars
#include <cmath>      // std::llround
#include <cstdio>     // stderr
#include <filesystem>  // the progress bar's label
#include <future>      // std::async: --html's flame graph read beside its table
#include <memory>      // std::unique_ptr
#include <optional>   // --width

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include <tagop/emulate/marker.hpp>    // emulation_of
#include <tagop/error.hpp>             // Error
#include <tagop/perf_data_reader.hpp>  // PerfDataReader
#include <tagop/profiles/store.hpp>    // store_table_name
#include <tagop/report/call_graph.hpp>  // call_graphs
#include <tagop/report/capture_damage.hpp>  // capture_damage
#include <tagop/report/export.hpp>     // write_profile_export, write_report_html, ...
#include <tagop/report/report.hpp>     // Report
#include <tagop/report/store_call_graph.hpp>  // store_call_graphs
#include <tagop/report/store_report.hpp>  // store_report

#include "call_graph_output.hpp"
#include "commands.hpp"
#include "kernel_symbol_options.hpp"
#include "threads_option.hpp"
#include "output.hpp"
#include "read_progress.hpp"
#include "report_output.hpp"
#include "store_output.hpp"
#include "terminal.hpp"

namespace tagop::cli {

namespace {

using report::export_format_names;
using report::ExportFormat;
using report::ExportTarget;
using report::parse_export_format;
using report::stacks_by;

struct ReportOptions {
  std::string file, input;
  std::string by = "function";
  std::string view = "overview";
  std::string events;
  std::string where;
  std::string sort;
  std::string time;
  std::size_t top = 20;
  bool top_given = false;  // exports take every row unless --top says
  std::uint64_t max_values = std::uint64_t{1} << 24;
  std::size_t max_stack = 127;
  double percent_limit = 0;
  std::vector<std::string> cpus, pids, tids, comms;
  std::string family, model;
  std::size_t threads = 0;
  bool strict = false;
  bool estimates = false;
  bool children = false, no_children = false;
  bool no_demangle = false;
  std::string call_graph;  // --call-graph, perf report -g's spelling
  bool signatures = false;
  std::optional<std::size_t> width;  // --width; by default 60 on a terminal, else 0 (whole)
  KernelSymbolOptions kernel;
  OutputOptions output;
  std::string output_file;  // -o: an export's file
  std::string html;         // --html FILE
  std::string source, host, since, until, backend;  // --source URL (the store), --host, --since, --until, --backend
};

// perf report -g's comma-separated list, of the parts tagop draws: the
// print type (graph; none), the threshold in percent, the order.
std::optional<report::CallGraphOptions> parse_call_graph(const std::string& text) {
  report::CallGraphOptions graph;
  bool none = false;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string part = text.substr(begin, comma - begin);
    begin = comma + 1;
    double percent = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), percent);
    if (part == "caller") graph.order = report::CallOrder::caller;
    else if (part == "callee") graph.order = report::CallOrder::callee;
    else if (part == "graph") continue;
    else if (part == "none") none = true;
    else if (!part.empty() && ec == std::errc{} && end == part.data() + part.size() && percent >= 0 && percent <= 100)
      graph.min_percent = percent;
    else
      usage_error(fmt::format("--call-graph '{}': expected perf report -g's parts that tagop draws: graph, a "
                              "threshold in percent (0.5), caller or callee (flat, fractal, folded and the sort "
                              "keys are not drawn), e.g. --call-graph caller,0.5",
                              part));
  }
  if (none) return std::nullopt;
  return graph;
}

std::vector<std::uint32_t> numbers(const std::vector<std::string>& texts, const char* what) {
  std::vector<std::uint32_t> out;
  for (const std::string& t : texts) {
    const std::uint64_t v = parse_u64(t, what);
    if (v > 0xFFFFFFFFu) usage_error(fmt::format("{} '{}' is out of range", what, t));
    out.push_back(static_cast<std::uint32_t>(v));
  }
  return out;
}

// "12.5" (seconds, as perf prints sample times) -> ns.
std::optional<std::uint64_t> seconds_to_ns(std::string_view text) {
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  std::string_view fraction = dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
  if (whole.empty() || fraction.size() > 9) return std::nullopt;
  std::uint64_t s = 0, ns = 0;
  auto parse = [](std::string_view digits, std::uint64_t& out) {
    if (digits.empty()) return true;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return ec == std::errc{} && end == digits.data() + digits.size();
  };
  if (!parse(whole, s) || !parse(fraction, ns) || s > 18000000000u) return std::nullopt;
  for (std::size_t i = fraction.size(); i < 9; ++i) ns *= 10;
  return s * 1000000000u + ns;
}

// perf's --time START,STOP: either may be empty.
report::TimeRange parse_time(const std::string& text) {
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos)
    usage_error(fmt::format("--time '{}': expected START,STOP in seconds (perf's form: 12.5,13 or 12.5, or ,13)", text));
  report::TimeRange range;
  const std::string_view start = std::string_view(text).substr(0, comma), stop = std::string_view(text).substr(comma + 1);
  auto bound = [&](std::string_view part, std::uint64_t& out) {
    if (part.empty()) return;
    const std::optional<std::uint64_t> ns = seconds_to_ns(part);
    if (!ns) usage_error(fmt::format("--time '{}': '{}' is not a time in seconds (such as 12.345678)", text, part));
    out = *ns;
  };
  bound(start, range.start);
  bound(stop, range.stop);
  if (range.start > range.stop) usage_error(fmt::format("--time '{}': the start is after the stop", text));
  return range;
}

template <typename Resolve>
auto columns_or_usage(Resolve resolve) {
  try {
    return resolve();
  } catch (const report::ColumnError& e) {
    usage_error(e.what());
  }
}

// What --strict refuses, or nullopt: any damage the reader or the decoder
// met, the feature sections included.
std::optional<std::string> damage(const perf_data::FileInfo& info, const perf_data::ReadSummary& summary,
                                  std::uint64_t skipped) {
  const std::string what = report::capture_damage(info, summary, skipped);
  if (what.empty()) return std::nullopt;
  return fmt::format("--strict: the capture is damaged ({})", what);
}

// "load, store, dc.miss": the conditions a capture's data sources decide.
std::string data_src_names(const ConditionSet& set) {
  std::vector<std::string> names;
  for (Condition c : set.members()) names.emplace_back(c.name());
  return fmt::format("{}", fmt::join(names, ", "));
}

// The line above the graphs: what they are of, and perf's spelling of them.
std::string call_graph_title(const std::string& source, const std::string& event, const report::CallGraphOptions& graph) {
  const bool caller = graph.order == report::CallOrder::caller;
  return fmt::format("{}: functions by {} {}, each with its call graph ({}, branches of at least {}% of the total, as "
                     "perf report -g {},{})",
                     printable(source), event, graph.children ? "children (then self)" : "overhead",
                     caller ? "callers first" : "callees first", graph.min_percent, caller ? "caller" : "callee",
                     graph.min_percent);
}

// --source: the report of the store (tagop ingest). The rows are the
// store's tallies (report::store_report): IBS derived events answered by
// the engine, or other captures' events by period; call chains (--by
// callchain, --children, pprof and folded stacks) of the chains and the
// frames' table; the options that need the capture itself are refused by
// name.
void run_store_report(const ReportOptions& o) {
  std::vector<std::string> refused;
  const auto refuse = [&](bool given, const char* name) {
    if (given) refused.emplace_back(name);
  };
  refuse(!o.file.empty() || !o.input.empty(), "a capture FILE or -i");
  const report::ExportFormat format =
      o.output.json ? report::ExportFormat::none : report::parse_export_format(o.output.format);
  const bool exporting = format == report::ExportFormat::pprof || format == report::ExportFormat::folded;
  refuse(!o.output_file.empty() && !exporting, "-o without --format pprof or folded");
  const std::string other_formats = fmt::format(
      "--format other than text, json, pprof or folded (the store's samples are rows already: ask the server for them "
      "as JSON lines, clickhouse-client --query \"SELECT * FROM {} WHERE host = 'web-1' FORMAT JSONEachRow\")",
      profiles::store_table_name());
  refuse(!o.output.json && o.output.format != "text" && o.output.format != "json" && !exporting, other_formats.c_str());
  refuse(!o.family.empty() || !o.model.empty(), "--family, --model");
  if (!refused.empty())
    usage_error(fmt::format("--source: a report of the store cannot honour {} (they need the capture itself)",
                            fmt::join(refused, "; ")));
  if (o.source.empty()) usage_error("--host, --since, --until and --backend choose samples of the store: give --source URL");
  if (o.percent_limit < 0 || o.percent_limit > 100) usage_error("--percent-limit: a percentage, from 0 to 100");
  report::StoreReportOptions options;
  try {
    options.keys = report::parse_store_keys(o.by);
  } catch (const Error& e) {
    usage_error(e.what());
  }
  const bool chain_rows = options.keys == std::vector<report::StoreKey>{report::GroupBy::callchain};
  if (o.children && options.keys != std::vector<report::StoreKey>{report::GroupBy::function} &&
      options.keys != std::vector<report::StoreKey>{report::GroupBy::module})
    usage_error(fmt::format("--children: the store's rows with their callees' are by function or module, not --by {}",
                            o.by));
  if (exporting && !o.html.empty())
    usage_error(fmt::format("--html and --format {}: a report of the store writes one of them at a time",
                            o.output.format));
  if (exporting && options.keys != std::vector<report::StoreKey>{report::GroupBy::function} && !chain_rows)
    usage_error(fmt::format("--format {}: its stacks are the call chains; --by {} does not apply", o.output.format,
                            o.by));
  std::optional<report::CallGraphOptions> graph = o.call_graph.empty() ? std::nullopt : parse_call_graph(o.call_graph);
  if (graph) {
    if (o.by != "function") usage_error("--call-graph: the graphs are drawn under functions: --by function");
    if (exporting || !o.html.empty() || o.output.resolved() != Format::text)
      usage_error("--call-graph: text only (--format folded or pprof export the call chains)");
    // The graphs are of the chains' rows.
    graph->children = o.children;
    options.keys = {report::GroupBy::callchain};
  }
  options.children = o.children && !exporting && !graph;
  options.max_stack = o.max_stack;
  options.demangle = !o.no_demangle;
  options.signatures = o.signatures;
  choose_store_samples(options, {o.host, o.since, o.until, o.backend, o.where});
  // The local report's filters of samples, asked of the same columns.
  options.cpus = numbers(o.cpus, "--cpu");
  options.pids = numbers(o.pids, "--pid");
  options.tids = numbers(o.tids, "--tid");
  options.comms = o.comms;
  if (!o.time.empty()) options.time = parse_time(o.time);
  const profiles::ClickHouseServer server(o.source);
  if (exporting) {
    // The stacks, as a local export's: rows by call chain where the samples
    // have chains (pprof's split by process), else by function.
    const bool chains = report::store_has_call_chains(server, options);
    options.keys = {chains ? report::GroupBy::callchain : report::GroupBy::function};
    options.by_process = chains && format == report::ExportFormat::pprof;
  }
  // --strict: as the local report's, once the report is out: a capture
  // whose ingest met damage (or of a tagop that did not keep it) fails it.
  const auto strict = [&] {
    if (!o.strict) return;
    if (const std::string damaged = report::store_damage(server, options); !damaged.empty())
      throw Error("--strict: " + damaged);
  };
  if (graph && !report::store_has_call_chains(server, options)) {
    const std::string where = report::store_report_where_sql(options);
    throw Error(fmt::format("--call-graph: the store's samples{} have no call chains (record with perf record -g)",
                            where.empty() ? "" : " where " + where));
  }
  std::vector<report::Column> columns;
  if (options.backend != report::StoreBackend::events)
    columns = columns_or_usage([&] { return o.events.empty() ? report::view_columns(o.view) : report::resolve_columns(o.events); });
  const report::StoreReport r = report::store_report(server, options);
  // None that the filters keep is a report (of nothing, and of the
  // undecided), as a local report's; none chosen at all, an error.
  if (r.chosen_none)
    throw Error(fmt::format("{}: no samples in the store{}", o.source, r.where_sql.empty() ? "" : " meet " + r.where_sql));
  if (graph) {
    const report::StoreCallGraphs graphs = report::store_call_graphs(r, *graph);
    print_call_graphs(frames_of(graphs), graphs.graphs, o.top, o.percent_limit, o.children,
                      call_graph_title(o.source, r.query_names.empty() ? "samples" : r.query_names.front(), *graph));
    return strict();
  }
  if (!r.ibs) {
    if (!o.events.empty() || o.view != "overview")
      usage_error("--events and --view choose IBS derived events, and the store's samples here are of captures "
                  "without IBS: their columns are their events, by period");
    columns.clear();
    for (const std::string& event : r.query_names) columns.push_back(report::resolve_event_column(r.query_names, event));
  }
  if (columns.empty()) columns.push_back(report::resolve_event_column(r.query_names, "samples"));  // no events kept
  report::Column sort = columns.front();
  if (!o.sort.empty())
    sort = columns_or_usage([&] { return r.ibs ? report::resolve_column(o.sort) : report::resolve_event_column(r.query_names, o.sort); });
  else
    for (const report::Column& c : columns)
      if (c.event) {
        sort = c;
        break;
      }
  if (exporting) {
    // The stacks' values: the sort column's (the first event's).
    report::StorePageView view{.source = o.source, .columns = columns, .sort = sort, .flame_top = o.top_given ? o.top : 0};
    if (options.where) view.where = options.where->to_string();
    report::write_store_export(format, r, view, o.output_file);
    return strict();
  }
  print_store_report(r, options, columns, sort,
                     {o.source, o.top, o.percent_limit, o.output.resolved() == Format::json, o.estimates,
                      o.width ? *o.width : terminal_width() != 0 ? 60 : 0});
  if (!o.html.empty())
    write_store_page(r, options, columns, sort, {o.source, o.top, o.percent_limit, o.top_given ? o.top : 0, o.max_values},
                     o.html);
  strict();
}

void run_report(const ReportOptions& o) {
  if (!o.source.empty() || !o.host.empty() || !o.since.empty() || !o.until.empty() || !o.backend.empty())
    return run_store_report(o);
  if (!o.file.empty() && !o.input.empty()) usage_error("give the capture once: -i FILE or FILE, not both");
  const std::string file = !o.input.empty() ? o.input : !o.file.empty() ? o.file : "perf.data";
  report::Options options;
  std::optional<report::GroupBy> by = report::parse_group_by(o.by);
  if (!by && o.by.find(',') == std::string::npos) {
    const auto perf = report::group_by_of_perf_key(o.by);
    usage_error(fmt::format("--by '{}': expected function, module, process, thread, cpu, address, line, callchain, "
                            "data or cacheline, or several, separated by commas (process,module,function){}",
                            o.by, perf ? fmt::format("; perf's {} is --by {}", o.by, report::name_of(*perf)) : ""));
  }
  if (by) {
    options.by = *by;
    try {
      report::check_group_keys(std::span(&*by, 1), o.children);  // --children with data or cacheline
    } catch (const Error& e) {
      usage_error(fmt::format("--by {}: {}", o.by, e.what()));
    }
  } else {
    try {
      options.keys = report::parse_group_keys(o.by);
      report::check_group_keys(options.keys, o.children);
    } catch (const Error& e) {
      usage_error(e.what());
    }
    by = report::main_key(options.keys);
    if (!o.html.empty()) usage_error(fmt::format("--html: the page's rows are by one key; --by {} has several", o.by));
  }
  if (!o.sort.empty()) {
    // perf report's --sort keys are rows, tagop's --sort a column.
    std::vector<std::string> mapped;
    std::string_view rest = o.sort;
    for (;;) {
      const std::string_view key = rest.substr(0, rest.find(','));
      const auto k = report::group_by_of_perf_key(key);
      if (!k) break;
      mapped.emplace_back(report::name_of(*k));
      if (key.size() == rest.size()) {
        usage_error(fmt::format("--sort '{}': tagop's --sort is a column to order the rows by; perf report's --sort "
                                "keys are tagop's --by: --by {}",
                                o.sort, fmt::join(mapped, ",")));
      }
      rest.remove_prefix(key.size() + 1);
    }
  }
  options.children = o.children;
  options.demangle = !o.no_demangle;
  options.signatures = o.signatures;
  options.threads = o.threads;
  options.max_stack = o.max_stack;
  report::Filters& filters = options.filters;
  filters.cpus = numbers(o.cpus, "--cpu");
  filters.pids = numbers(o.pids, "--pid");
  filters.tids = numbers(o.tids, "--tid");
  filters.comms = o.comms;
  if (!o.time.empty()) filters.time = parse_time(o.time);
  if (!o.where.empty()) {
    try {
      filters.where = Predicate::parse(o.where);
    } catch (const Error& e) {
      usage_error(fmt::format("--where: {}", e.what()));
    }
  }
  if (o.percent_limit < 0 || o.percent_limit > 100) usage_error("--percent-limit: a percentage, from 0 to 100");
  if (!o.family.empty())
    options.cpu = CpuId{"AuthenticAMD", parse_cpu_number(o.family, "--family"),
                        o.model.empty() ? 0 : parse_cpu_number(o.model, "--model"), 0};
  else if (!o.model.empty())
    usage_error("--model needs --family");

  const ExportFormat format = o.output.json ? ExportFormat::none : parse_export_format(o.output.format);
  const bool exporting = format != ExportFormat::none;
  if (!o.output_file.empty() && !exporting)
    usage_error("-o: the file of an export: give --format pprof, folded or jsonl (--html FILE writes the page)");
  if (exporting && format != ExportFormat::jsonl && o.by != "function" && o.by != "callchain" && o.by != "line")
    usage_error(fmt::format("--format {}: its stacks are call chains (or functions, without them; source lines "
                            "with --by line); --by {} does not apply",
                            o.output.format, o.by));
  if (exporting) options.children = false;
  std::optional<report::CallGraphOptions> graph = o.call_graph.empty() ? std::nullopt : parse_call_graph(o.call_graph);
  if (graph) graph->children = o.children;
  if (graph) {
    if (o.by != "function") usage_error("--call-graph: the graphs are drawn under functions: --by function");
    if (exporting || !o.html.empty() || o.output.resolved() != Format::text)
      usage_error("--call-graph: text only (--format folded or pprof export the call chains)");
  }

  perf_data::PerfDataReader reader(file);
  options.symbol_sources = symbol_sources_for(o.kernel, reader.info());
  options.kernel_symbols = false;  // symbol_sources_for gives the kernel source of --kallsyms, --vmlinux, --symfs
  options.unwind_files.symfs = o.kernel.symfs;  // the files that unwind user stacks, as the symbols'
  const bool ibs = report::holds_ibs_events(reader.info());
  ReportView v;
  v.file = file;
  v.cpu_source = options.cpu ? "--family/--model" : "HEADER_CPUID";
  v.damaged_features = reader.info().damaged_features;
  if (const auto emulation = emulate::emulation_of(reader.info())) v.emulated = emulation->label();
  v.estimates = o.estimates;
  v.name_width = o.width ? *o.width : terminal_width() != 0 ? 60 : 0;
  v.children = o.children;
  if (ibs) {
    v.columns = columns_or_usage([&] { return o.events.empty() ? report::view_columns(o.view) : report::resolve_columns(o.events); });
    v.sort = v.columns.front();
    if (!o.sort.empty()) v.sort = columns_or_usage([&] { return report::resolve_column(o.sort); });
    else
      for (const report::Column& c : v.columns)
        if (c.event) {
          v.sort = c;
          break;
        }
  } else {
    if (filters.where && !report::holds_data_sources(reader.info()))
      usage_error(fmt::format("--where: {} has no IBS events nor samples with a data source (PERF_SAMPLE_DATA_SRC, "
                              "perf mem record), so no conditions to test",
                              file));
    if (!o.events.empty() || o.view != "overview")
      usage_error(fmt::format("--events and --view choose IBS derived events, and {} has no IBS events: its columns "
                              "are its events, by period",
                              file));
  }
  if (reader.info().header.data.size > (16u << 20)) options.progress = progress_of(reader, "report " + std::filesystem::path(file).filename().string());
  if (format == ExportFormat::jsonl) {
    ExportTarget target(o.output_file);
    write_sample_lines(reader, options, target.stream());
    target.commit();
    return;
  }
  // Without call chains, --by line makes the profile's locations source
  // lines (pprof's Function.filename and Line.line); otherwise functions,
  // so that an export reads no DWARF unless asked.
  const report::GroupBy stacks = *by == report::GroupBy::line && stacks_by(reader.info()) == report::GroupBy::function
                                     ? report::GroupBy::line
                                     : stacks_by(reader.info());
  if (exporting) options.by = stacks;
  // pprof's samples are per process, with pid and comm labels (with --html
  // the table's rows are not split: the profile is then a report of its own).
  options.by_process = format == ExportFormat::pprof && o.html.empty();
  // The header's warnings explain why a capture may not be readable.
  const auto report_of = [&] {
    try {
      return report::Report(reader, options);
    } catch (const Error&) {
      for (const std::string& w : reader.info().warnings) fmt::print(stderr, "tagop: warning: {}\n", printable(w));
      throw;
    }
  };
  // --html's flame graph is of the stacks, a second report where the
  // table's rows are by something else: read beside the table's where two
  // CPUs are idle (its own reader and symbol sources; the kernel's symbols
  // are read once, shared), as diff reads A beside B.
  std::future<report::Report> stacks_beside;
  if (!o.html.empty() && options.by != stacks && (o.threads == 0 ? report::two_cpus_idle() : o.threads > 1)) {
    report::Options s = options;
    s.by = stacks;
    s.children = false;
    s.progress = nullptr;  // one progress bar: the table's
    auto own = std::make_unique<perf_data::PerfDataReader>(file);
    s.symbol_sources = symbol_sources_for(o.kernel, own->info());  // here: it may setenv()
    stacks_beside = std::async(std::launch::async, [s = std::move(s), own = std::move(own)] {
      return report::Report(*own, s);
    });
  }
  const report::Report r = report_of();
  if (!ibs) {
    std::vector<std::string> events = r.query_names();
    v.sort = columns_or_usage([&] { return report::resolve_event_column(events, o.sort.empty() ? events.front() : o.sort); });
  }
  if (o.children && !r.content().callchains)
    throw Error(fmt::format("--children: {} has no call chains (record with perf record -g)", file));
  if (*by == report::GroupBy::callchain && !r.content().callchains)
    throw Error(fmt::format("--by callchain: {} has no call chains (record with perf record -g)", file));
  for (const std::string& c : o.cpus) v.filters.push_back("cpu " + c);
  for (const std::string& p : o.pids) v.filters.push_back("pid " + p);
  for (const std::string& t : o.tids) v.filters.push_back("tid " + t);
  for (const std::string& c : o.comms) v.filters.push_back("comm " + c);
  if (!o.time.empty()) v.filters.push_back("time " + o.time);
  v.where = filters.where ? filters.where->to_string() : "";
  if (r.content().data_src)
    fmt::print(stderr, "tagop: note: the samples' data sources (PERF_SAMPLE_DATA_SRC, perf mem) decide {}{}\n",
               r.content().data_src_decides.empty() ? "nothing" : data_src_names(r.content().data_src_decides),
               filters.where ? "" : ": --where may test them");
  for (const std::string& w : r.warnings()) fmt::print(stderr, "tagop: warning: {}\n", printable(w));
  const perf_data::Skipped& skipped = r.skipped();
  if (skipped.count)
    fmt::print(stderr, "tagop: warning: skipped {} damaged record{} (the first at offset {}: {})\n", skipped.count,
               skipped.count == 1 ? "" : "s", skipped.first_offset, skipped.first_reason);

  const report::Counts& n = r.counts();
  if (ibs && n.read_fetch + n.read_op == 0)
    throw Error(fmt::format("{}: no usable IBS samples{}", file,
                            n.other_samples  ? fmt::format(" (its {} samples are of other events)", n.other_samples)
                            : skipped.count ? " (every IBS record was damaged)"
                                            : " (no IBS sample was read)"));
  if (!ibs && n.read == 0) {
    // An Arm SPE capture holds its samples as AUX data, not as samples.
    std::string hint;
    try {
      const perf_data::PerfDataReader header(file);
      const perf_data::FileInfo& info = header.info();
      for (const perf_data::EventAttr& a : info.attrs)
        for (const perf_data::PmuMapping& m : info.pmu_mappings)
          if (m.type == a.attr.type && m.name.rfind("arm_spe", 0) == 0)
            hint = fmt::format(": it holds Arm SPE data, which 'tagop spe {}' reads", file);
    } catch (const Error&) {
      // No hint then: the message below says what is wrong.
    }
    throw Error(fmt::format("{}: no samples{}{}", file, r.truncated() ? " (the file is truncated)" : "", hint));
  }

  if (graph) {
    if (!r.content().callchains)
      throw Error(fmt::format("--call-graph: {} has no call chains (record with perf record -g)", file));
    // The graphs are of the chains' report; the rows, their last frames.
    options.by = report::GroupBy::callchain;
    options.children = false;
    const report::Report chains(reader, options);
    print_call_graphs(frames_of(chains), report::call_graphs(chains, *graph), o.top, o.percent_limit, o.children,
                      call_graph_title(file, r.query_names().front(), *graph));
    return;
  }
  v.rows = r.select(v.sort, o.top, o.percent_limit, o.children);
  v.top = o.top_given ? o.top : 0;
  v.max_values = o.max_values;
  if (!o.html.empty() || exporting) {
    // The flame graph's (or the export's) stacks: this report when it is by
    // them, else a second one.
    std::optional<report::Report> other;
    if (stacks_beside.valid()) {
      other.emplace(stacks_beside.get());
    } else if (r.by() != stacks) {
      options.by = stacks;
      options.children = false;
      other.emplace(reader, options);
    }
    const report::Report& stacked = other ? *other : r;
    if (!o.html.empty()) {
      ExportTarget page(o.html);
      write_report_html(r, stacked, v, page.stream());
      page.commit();
    }
    if (exporting) {
      std::optional<report::Report> split;
      if (format == ExportFormat::pprof && !stacked.by_process()) {
        options.by = stacks;
        options.children = false;
        options.by_process = true;
        split.emplace(reader, options);
      }
      write_profile_export(format, split ? *split : stacked, v, o.output_file);
      if (const auto damaged = damage(reader.info(), r.read_summary(), skipped.count); o.strict && damaged)
        throw Error(*damaged);
      return;
    }
  }
  switch (o.output.resolved()) {
    case Format::text: print_text(r, v); break;
    case Format::csv: print_csv(r, v); break;
    case Format::json: print_json(r, v); break;
  }
  if (const auto damaged = damage(reader.info(), r.read_summary(), skipped.count); o.strict && damaged)
    throw Error(*damaged);
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Report a capture (perf.data): IBS derived events as CodeAnalyst did, or any events as perf report "
                "counts them, by function, module, process, address, source line or call chain");
  cmd->add_option("file", o->file, "The capture (as -i)");
  cmd->add_option("-i,--input", o->input,
                  "The capture (default ./perf.data), e.g. from: perf record -e ibs_op/cnt_ctl=1/ -e ibs_fetch// "
                  "--raw-samples -a");
  cmd->add_option("--by", o->by,
                  "Rows: function, module, process (pid and name), thread (tid:name), cpu, address, line, "
                  "callchain, data or cacheline; or several keys at once, separated by commas, a row for each distinct value of all "
                  "(in their order, the parts of its name), e.g. process,module,function. perf report's --sort "
                  "keys are: comm -> process, pid or tid -> thread, dso -> module, sym -> function, srcline -> line, "
                  "cpu -> cpu (perf --sort pid,dso,sym is --by thread,module,function: perf's pid rows are threads; "
                  "perf's comm rows are of a name, a thread's when sampled, tagop's process rows one process each). "
                  "data: the data object of each sample's data address (perf mem record's PERF_SAMPLE_ADDR, an IBS "
                  "op's IbsDcLinAddr): a global or static by its ELF symbol, [heap], [stack], [anon], module+offset, "
                  "[no data address] (perf mem report's symbol_daddr, its per-address rows summed by object). "
                  "cacheline: the 64-byte line of the data address, with perf c2c's counts (loads, stores, L1 "
                  "misses, local and remote HITM) and the offsets touched. With several keys: at most one of "
                  "function, address, line, callchain, data and cacheline; callchain, data and cacheline not with "
                  "module; not with --children, --html or an export")
      ->capture_default_str();
  std::string views;
  for (const report::ViewSpec& v : report::view_table()) views += fmt::format("\n  {:9} {}", v.name, v.description);
  cmd->add_option("--view", o->view, "IBS columns, a named set:" + views)->capture_default_str();
  cmd->add_option("--events", o->events,
                  "IBS columns, a list: select values (0xF206), event names or abbreviations, 'samples', ratios "
                  "(dc_miss_rate, mispredict_rate, itlb_miss_rate, dtlb_miss_rate, dtlb_walk_rate, "
                  "avg_dc_miss_latency, avg_tag_to_retire, avg_fetch_latency)");
  cmd->add_option("--where", o->where,
                  "Only samples that meet this predicate, e.g. 'load & dc.miss & !dtlb.l1_miss': of IBS, or of "
                  "perf mem record (samples with a data source, PERF_SAMPLE_DATA_SRC, of Intel, AMD or Arm), "
                  "whose data sources decide load, store, dc.miss, l2.miss, l3.miss, src.* (l3, cache, dram, "
                  "pmem, cxl, io, remote, cache_modified: HITM), dtlb.l1_miss, dtlb.l2_miss, mem.locked and "
                  "mem.uncacheable, each where the vendor's kernel says it; a note says which this capture's "
                  "samples decide, and the others' samples are counted as undecided");
  cmd->add_option("--sort", o->sort,
                  "Sort rows by this column, highest first: an IBS column, 'samples', or an event of a capture "
                  "without IBS (default: the first event column). Not perf's --sort keys (sym, dso, comm ...): "
                  "those are --by");
  cmd->add_option("--top", o->top, "Show the first N rows (0: all); an export (pprof, folded, the HTML page's flame "
                                   "graph) has every row unless --top is given")
      ->capture_default_str()
      ->each([o](const std::string&) { o->top_given = true; });
  cmd->add_option("--max-stack", o->max_stack,
                  "Read at most N frames of each call chain, from the sample outward (as perf report; its default, "
                  "the kernel's perf_event_max_stack)")
      ->capture_default_str();
  cmd->add_option("--max-values", o->max_values,
                  "The most values (rows x columns) an output may hold (0: no bound): a capture of many events and "
                  "many rows makes a pprof, HTML page or JSON as large as their product")
      ->capture_default_str();
  cmd->add_option("--percent-limit", o->percent_limit, "Hide rows whose overhead is below this percentage (as perf)");
  cmd->add_flag("--children", o->children,
                "Add each row's callees' samples to it (inclusive), from the call chains (perf record -g)");
  cmd->add_flag("--no-children", o->no_children, "Each row's own samples only: the default, as perf spells it");
  cmd->add_option("-g,--call-graph", o->call_graph,
                  "Draw each function's call graph under it, as perf report -g: caller (from the outermost caller, "
                  "perf's default) or callee, and the threshold in percent of the total below which a branch is "
                  "not drawn (default 0.5): caller,0.5. Needs call chains (perf record -g)");
  cmd->add_flag("--no-demangle", o->no_demangle, "Functions by their symbols' names, not demangled (as perf)");
  cmd->add_flag("--signatures", o->signatures,
                "C++ functions with their parameter lists, f(int) (as perf report -v); by default the name alone, "
                "f, as perf report prints it (overloads stay separate rows)");
  cmd->add_option("--cpu", o->cpus, "Only samples from these CPUs")->delimiter(',');
  cmd->add_option("--pid", o->pids, "Only samples from these processes")->delimiter(',');
  cmd->add_option("--tid", o->tids, "Only samples from these threads")->delimiter(',');
  cmd->add_option("--comm", o->comms, "Only samples from processes of these names")->delimiter(',');
  cmd->add_option("--time", o->time, "Only samples from START to STOP, in seconds as perf script prints them: START,STOP");
  cmd->add_option("--family", o->family, "The processor family, when the file does not say (10h, 0x19, 25)");
  cmd->add_option("--model", o->model, "The processor model, with --family");
  cmd->add_option("--width", o->width,
                  "Text: cut row names to N columns (0: never); by default 60 when stdout is a terminal, else whole. "
                  "A call chain is cut in the middle, its leaf (the last frame) kept whole")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20));
  cmd->add_flag("--estimates", o->estimates, "Text: show each row's estimated ops with a 95% interval");
  add_threads_option(*cmd, o->threads,
                     "Threads that tally (0: 1 for a capture under 64 MiB, else by the CPUs it may use that nothing "
                     "else runs on now: on 2, 2 when both are idle, else 1; on more, one per CPU but one, up to 3, and "
                     "no more than are idle); with 0 or more than 1, the kernel's symbols are read on a thread of "
                     "their own meanwhile, by default where two CPUs are idle.");
  cmd->add_flag("--strict", o->strict,
                "Exit with status 1 when the capture is damaged: a record skipped, data not read, the file truncated "
                "or shrinking while it was read, a feature section damaged");
  add_kernel_symbol_options(*cmd, o->kernel);
  add_output_options(*cmd, o->output, /*with_csv=*/true, export_format_names());
  cmd->add_option("-o,--output", o->output_file,
                  "The file of an export (--format pprof, folded or jsonl; default: stdout), written whole or not "
                  "at all");
  cmd->add_option("--source", o->source,
                  "Report the ClickHouse store (tagop ingest) at this URL instead of a capture, the numbers a local "
                  "report of the same samples gives (http://127.0.0.1:8123): of IBS captures every derived event "
                  "(--view, --events) with its overhead and estimates (each capture's samples by its own period; "
                  "--estimates: each row's), of others (perf record, perf mem) each event's samples and periods, with "
                  "the average load latency of perf mem's loads. --by: function, module, process (comm [pid]), "
                  "thread (tid:name), cpu, line (file:line), data (the data object), address (module+0xoffset), "
                  "cacheline (its line and data object, without perf c2c's counts), host (the machine), processor "
                  "(its vendor, family and model: a generation), or several, separated by commas (host,function); "
                  "text or --json. Call chains as a local report's: --by callchain, --children (by function or "
                  "module, captures without IBS), --max-stack, --format folded or pprof (-o FILE)");
  cmd->add_option("--host", o->host, "With --source: only the samples of this machine");
  cmd->add_option("--since", o->since,
                  "With --source: only samples taken at or after this time of day, in the server's time zone "
                  "(2026-11-20, '2026-11-20 08:00:00'): by perf's clock data (perf record -k), else by the capture "
                  "file's time as its last sample's; by when ingested where neither is known");
  cmd->add_option("--until", o->until, "With --source: only samples taken before this time (as --since)");
  cmd->add_option("--backend", o->backend,
                  "With --source: the samples of IBS captures (amd-ibs) or of others (perf), when the store holds "
                  "both (their columns differ); by default the kind the selection holds");
  cmd->add_option("--html", o->html,
                  "Also write one self-contained HTML page: the table with intervals and bars, and a flame graph");
  cmd->footer(
      "Examples:\n"
      "  tagop report -i perf.data\n"
      "  tagop report perf.data --view dc --by module\n"
      "  tagop report perf.data --where 'load & dc.miss & !dtlb.l1_miss' --events 0xF100,0xF219\n"
      "  tagop report perf.data --by process --json\n"
      "  tagop report perf.data --by process,module,function   (perf report --sort comm,dso,sym, by pid)\n"
      "  tagop report perf.data --by thread,function           (perf report --sort pid,sym)\n"
      "  tagop report perf.data --children --percent-limit 5   (a capture of perf record -g)\n"
      "  tagop report mem.data --by data                        (perf mem record: the objects loads and stores touch)\n"
      "  tagop report --source http://127.0.0.1:8123 --host web-1 --by callchain   (the store's chains, root first)\n"
      "  tagop report --source http://127.0.0.1:8123 --format folded > fleet.folded (flamegraph.pl's input)\n"
      "  tagop report mem.data --by cacheline --json            (perf c2c's lines: loads, stores, HITM, offsets)\n"
      "  tagop report mem.data --where 'load & dc.miss & !l2.miss'  (perf mem record: loads that hit the L2,\n"
      "      as perf mem report's 'L2 hit' row; 'src.cache_modified' its HITM; each row's average load\n"
      "      latency, the samples' weight, in an 'avg load latency' column)\n"
      "  tagop report --source http://127.0.0.1:8123 --by process --estimates   (the store, tagop ingest: IBS\n"
      "      captures' rows as a local report's, each capture's samples x its own period, 95% intervals)\n"
      "\n"
      "Exports (values are samples x period: tagop's estimates; call chains where perf record -g took them):\n"
      "  tagop report perf.data --format pprof -o prof.pb.gz && go tool pprof -http=: prof.pb.gz\n"
      "      gzipped profile.proto: one sample type per derived event (ibs_dc_miss/count) or sum\n"
      "      (ibs_dc_miss_load_latency/cycles), 'where' for --where; merge machines: pprof -proto a b > all.pb.gz\n"
      "  tagop report perf.data --format folded --sort 0xF206 | flamegraph.pl > dc-miss.svg\n"
      "      folded stacks (a;b;c N) of the --sort event, for flamegraph.pl, inferno, speedscope\n"
      "  tagop report perf.data --html report.html\n"
      "      one page, no network: the sortable table, ratio bars with 95% intervals, a flame graph\n"
      "  tagop report perf.data --format jsonl --where 'load & dc.miss' -o misses.jsonl\n"
      "      one decoded IBS sample per line, streamed; schema: profiles/schemas/sample-line.schema.json;\n"
      "      duckdb -c \"select symbol, count(*) from 'misses.jsonl' group by all order by 2 desc\"");
  cmd->callback([o] {
    if (o->children && o->no_children) usage_error("--children and --no-children: one of them");
    run_report(*o);
  });
}

}  // namespace tagop::cli
