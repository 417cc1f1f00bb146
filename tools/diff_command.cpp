// tagop diff A B: two captures side by side, per row (--by, as tagop
// report) and per column (each event of a capture without IBS, by period;
// IBS derived events and ratios as report's --view/--events), with the
// difference and whether it is beyond the samples' noise. For before/after
// comparisons; perf diff's Delta is the `delta` here.

#include <future>  // std::async

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include <algorithm>  // std::set_difference
#include <cmath>      // std::isfinite
#include <iterator>   // std::back_inserter
#include <memory>     // std::unique_ptr
#include <optional>   // std::optional
#include <utility>    // std::pair

#include <nlohmann/json.hpp>  // json

#include <tagop/error.hpp>             // Error
#include <tagop/estimate.hpp>          // z_95
#include <tagop/perf_data_reader.hpp>  // PerfDataReader
#include <tagop/report/diff.hpp>       // diff_reports, sort_diff_rows
#include <tagop/report/report.hpp>     // Report
#include <tagop/report/store_report.hpp>  // store_report, store_diff

#include "commands.hpp"
#include "kernel_symbol_options.hpp"
#include "threads_option.hpp"
#include "output.hpp"
#include "store_output.hpp"

namespace tagop::cli {

namespace {

using report::DiffColumn;
using report::DiffRow;
using report::DiffSort;

struct DiffOptions {
  std::string a, b;
  std::string by = "function";
  std::string view = "overview";
  std::string events;
  std::string sort = "delta";
  std::size_t top = 20;
  std::size_t threads = 0;
  KernelSymbolOptions kernel;
  OutputOptions output;
  // --source: A and B are parts of the store (tagop ingest).
  std::string source, host, host_b, since, until, since_b, until_b, where, backend;
  bool b_times = false;  // --since-b or --until-b given: B's times are those alone
};

constexpr const char* test_note =
    "beyond noise: a two-proportion z-test of the row's share of the column's samples in A and in B "
    "(pooled, two-sided, 95%: |z| > 1.96)";

struct Capture {
  std::string file;
  perf_data::PerfDataReader reader;
  report::Report report;
  Capture(std::string path, const report::Options& base, const KernelSymbolOptions& kernel)
      : file(std::move(path)), reader(file), report(read(reader, base, kernel)) {}

 private:
  static report::Report read(perf_data::PerfDataReader& reader, report::Options options,
                             const KernelSymbolOptions& kernel) {
    options.symbol_sources = symbol_sources_for(kernel, reader.info());
    options.kernel_symbols = false;  // symbol_sources_for gives the kernel source
    return report::Report(reader, options);
  }
};

std::unique_ptr<Capture> open_capture(const char* which, const std::string& file, const report::Options& options,
                                      const KernelSymbolOptions& kernel) {
  try {
    return std::make_unique<Capture>(file, options, kernel);
  } catch (const Error& e) {
    throw Error(fmt::format("{} ({}): {}", which, file, e.what()));
  }
}

std::string listed(const std::vector<std::string>& names) {
  return names.empty() ? "nothing" : fmt::format("{}", fmt::join(names, ", "));
}

// The same columns must mean the same thing in A and in B: IBS captures of
// one processor; the events of others matched as perf diff matches them
// (report::match_events), at least one.
std::optional<report::EventMatches> check_comparable(const Capture& a, const Capture& b) {
  const report::Report &ra = a.report, &rb = b.report;
  if (ra.ibs() != rb.ibs())
    throw Error(fmt::format("A ({}) {} IBS events and B ({}) {}: their columns cannot be compared", a.file,
                            ra.ibs() ? "has" : "has no", b.file, rb.ibs() ? "has" : "has none"));
  if (ra.ibs()) {
    if (ra.cpu().family != rb.cpu().family || ra.cpu().model != rb.cpu().model)
      throw Error(fmt::format("the processors differ: A ({}) is {}, B ({}) is {}; their IBS derived events are "
                              "not the same events",
                              a.file, ra.cpu().to_string(), b.file, rb.cpu().to_string()));
    return std::nullopt;
  }
  report::EventMatches m = report::match_events(ra, a.reader.info(), rb, b.reader.info());
  if (m.matched.empty())
    throw Error(fmt::format("no event of A ({}) matches one of B ({}) (the same type and config, as perf diff "
                            "matches them; events without samples left out): A has {}; B has {}",
                            a.file, b.file, listed(m.only_a), listed(m.only_b)));
  return m;
}

// What was compared with what, and what was left out: a line each.
std::vector<std::string> match_lines(const report::EventMatches& m) {
  std::vector<std::string> pairs, lines;
  for (const report::EventMatch& e : m.matched)
    pairs.push_back(e.name_a == e.name_b ? e.name_a : fmt::format("A {} with B {}", e.name_a, e.name_b));
  lines.push_back(fmt::format("events compared (by type and config, as perf diff): {}", fmt::join(pairs, ", ")));
  if (!m.only_a.empty()) lines.push_back(fmt::format("not compared, only A has: {}", listed(m.only_a)));
  if (!m.only_b.empty()) lines.push_back(fmt::format("not compared, only B has: {}", listed(m.only_b)));
  std::vector<std::string> empty;
  for (const std::string& e : m.empty_a) empty.push_back("A " + e);
  for (const std::string& e : m.empty_b) empty.push_back("B " + e);
  if (!empty.empty())
    lines.push_back(fmt::format("not compared, without samples (as perf report hides them): {}", listed(empty)));
  return lines;
}

// The columns of A and, at the same places, B's of the same events.
std::pair<std::vector<report::Column>, std::vector<report::Column>> columns_of(
    const DiffOptions& o, const report::Report& a, const report::Report& b,
    const std::optional<report::EventMatches>& matches) {
  try {
    if (a.ibs()) {
      std::vector<report::Column> c =
          o.events.empty() ? report::view_columns(o.view) : report::resolve_columns(o.events);
      return {c, c};
    }
    if (!o.events.empty() || o.view != "overview")
      usage_error("--events and --view choose IBS derived events, and these captures have no IBS events: their "
                  "columns are their events, by period");
    std::pair<std::vector<report::Column>, std::vector<report::Column>> out;
    for (const report::EventMatch& m : matches->matched) {
      out.first.push_back(report::resolve_event_column(a.query_names(), m.name_a));
      out.second.push_back(report::resolve_event_column(b.query_names(), m.name_b));
    }
    return out;
  } catch (const report::ColumnError& e) {
    usage_error(e.what());
  }
}

DiffSort parse_sort(const std::string& s) {
  if (s == "delta") return DiffSort::delta;
  if (s == "diff" || s == "difference") return DiffSort::difference;
  if (s == "relative") return DiffSort::relative;
  if (s == "z") return DiffSort::z;
  usage_error(fmt::format("--sort '{}': expected delta, diff, relative or z", s));
}


std::string signed_percent(std::optional<double> v) { return v ? fmt::format("{:+.2f}%", *v) : "-"; }

nlohmann::json optional_json(std::optional<double> v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string noise_word(const DiffRow& r) { return !r.z ? "-" : r.beyond_noise ? "beyond" : "within"; }

std::size_t shown(const DiffColumn& c, std::size_t top) {
  return top && top < c.rows.size() ? top : c.rows.size();
}

void print_text(const DiffOptions& o, const std::vector<DiffColumn>& columns,
                const std::optional<report::EventMatches>& matches) {
  fmt::print("A: {}\nB: {}\n{}\n", printable(o.a), printable(o.b), test_note);
  if (matches)
    for (const std::string& line : match_lines(*matches)) fmt::print("{}\n", printable(line));
  for (const DiffColumn& c : columns) {
    fmt::print("\n# {}{}: A {} ({} samples), B {} ({} samples)\n", printable(c.column.id),
               c.column.title.empty() || c.column.title == c.column.id ? "" : " (" + c.column.title + ")",
               number_text(c.total_a), c.samples_a, number_text(c.total_b), c.samples_b);
    fmt::print("{:>8} {:>8} {:>8} {:>14} {:>14} {:>14} {:>9} {:>7}  {:<6}  {}\n", "A%", "B%", "Delta", "A", "B", "B-A",
               "B-A %", "z", "noise", "Name");
    for (std::size_t i = 0; i < shown(c, o.top); ++i) {
      const DiffRow& r = c.rows[i];
      const std::string name = r.module.empty() || r.module == r.name ? r.name : r.name + "  " + r.module;
      const auto if_counted = [&](double v, const char* form) {
        return c.counted ? fmt::format(fmt::runtime(form), v) : std::string("-");
      };
      fmt::print("{:>8} {:>8} {:>8} {:>14} {:>14} {:>14} {:>9} {:>7}  {:<6}  {}\n", if_counted(r.share_a, "{:.2f}%"),
                 if_counted(r.share_b, "{:.2f}%"), if_counted(r.delta(), "{:+.2f}"), number_text(r.a), number_text(r.b),
                 number_text(r.difference()), signed_percent(r.relative()), r.z ? fmt::format("{:+.2f}", *r.z) : "-",
                 noise_word(r), printable(name));
    }
  }
}

void print_csv(const DiffOptions& o, const std::vector<DiffColumn>& columns) {
  fmt::print("column,name,module,a,b,difference,relative_percent,share_a,share_b,delta,samples_a,samples_b,z,"
             "beyond_noise\n");
  for (const DiffColumn& c : columns)
    for (std::size_t i = 0; i < shown(c, o.top); ++i) {
      const DiffRow& r = c.rows[i];
      fmt::print("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(c.column.id), csv_field(r.name),
                 csv_field(r.module), number_text(r.a), number_text(r.b), number_text(r.difference()), number_text(r.relative()),
                 c.counted ? fmt::format("{}", r.share_a) : "", c.counted ? fmt::format("{}", r.share_b) : "",
                 c.counted ? fmt::format("{}", r.delta()) : "", r.samples_a, r.samples_b,
                 r.z ? fmt::format("{}", *r.z) : "", c.counted ? (r.beyond_noise ? "yes" : "no") : "");
    }
}

void print_json_diff(const DiffOptions& o, bool ibs, const std::string& by, const std::vector<DiffColumn>& columns,
                     const std::vector<std::string>& warnings, const std::optional<report::EventMatches>& matches) {
  nlohmann::json j;
  j["a"] = o.a;
  j["b"] = o.b;
  j["ibs"] = ibs;
  j["by"] = by;
  j["sort"] = o.sort;
  j["test"] = test_note;
  j["warnings"] = warnings;
  // Captures without IBS: which event of A each column compares with which
  // of B (as perf diff matches them), and those not compared.
  if (matches) {
    nlohmann::json events = nlohmann::json::array();
    for (const report::EventMatch& m : matches->matched) events.push_back({{"a", m.name_a}, {"b", m.name_b}});
    j["events"] = {{"matched", events},
                   {"only_a", matches->only_a},
                   {"only_b", matches->only_b},
                   {"without_samples_a", matches->empty_a},
                   {"without_samples_b", matches->empty_b}};
  } else {
    j["events"] = nullptr;
  }
  nlohmann::json cols = nlohmann::json::array();
  for (const DiffColumn& c : columns) {
    nlohmann::json jc;
    jc["id"] = c.column.id;
    jc["title"] = c.column.title;
    jc["counted"] = c.counted;
    jc["total_a"] = optional_json(c.total_a);
    jc["total_b"] = optional_json(c.total_b);
    jc["samples_a"] = c.samples_a;
    jc["samples_b"] = c.samples_b;
    jc["row_count"] = c.rows.size();
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t i = 0; i < shown(c, o.top); ++i) {
      const DiffRow& r = c.rows[i];
      nlohmann::json jr;
      jr["name"] = r.name;
      jr["module"] = r.module;
      jr["in_a"] = r.in_a;
      jr["in_b"] = r.in_b;
      jr["a"] = optional_json(r.a);
      jr["b"] = optional_json(r.b);
      jr["difference"] = optional_json(r.difference());
      jr["relative_percent"] = optional_json(r.relative());
      jr["samples_a"] = r.samples_a;
      jr["samples_b"] = r.samples_b;
      if (c.counted) {
        jr["share_a"] = r.share_a;
        jr["share_b"] = r.share_b;
        jr["delta"] = r.delta();
        jr["z"] = optional_json(r.z);
        jr["beyond_noise"] = r.beyond_noise;
      }
      rows.push_back(std::move(jr));
    }
    jc["rows"] = std::move(rows);
    cols.push_back(std::move(jc));
  }
  j["columns"] = std::move(cols);
  print_json(j);
}

void run_store_diff(DiffOptions o);

void run_diff(const DiffOptions& o) {
  const bool store = !o.source.empty() || !o.host.empty() || !o.host_b.empty() || !o.since.empty() ||
                     !o.until.empty() || o.b_times || !o.where.empty() || !o.backend.empty();
  if (store) {
    if (o.source.empty())
      usage_error("--host, --host-b, --since, --until, --since-b, --until-b, --where and --backend choose parts of "
                  "the store: give --source URL");
    return run_store_diff(o);
  }
  if (o.a.empty() || o.b.empty()) usage_error("give two captures, A and B (or --source URL and two parts of the store)");
  report::Options options;
  const std::optional<report::GroupBy> by = report::parse_group_by(o.by);
  if (!by || *by == report::GroupBy::callchain || *by == report::GroupBy::thread)
    usage_error(fmt::format("--by '{}': expected function, module, process, cpu, address or line{}", o.by,
                            by == report::GroupBy::thread ? " (two captures' threads have different ids)" : ""));
  options.by = *by;
  const DiffSort sort = parse_sort(o.sort);
  // B is read beside A where two CPUs are idle: two reports that share
  // nothing but the kernel's symbols (read once, under a lock).
  ask_no_debuginfod_server();  // before the threads: setenv() races getenv()
  options.threads = o.threads;
  std::future<std::unique_ptr<Capture>> b_beside;
  if (o.threads == 0 ? report::two_cpus_idle() : o.threads > 1)
    b_beside = std::async(std::launch::async, [&] { return open_capture("B", o.b, options, o.kernel); });
  const auto a = open_capture("A", o.a, options, o.kernel);
  const auto b = b_beside.valid() ? b_beside.get() : open_capture("B", o.b, options, o.kernel);
  const std::optional<report::EventMatches> matches = check_comparable(*a, *b);
  std::vector<std::string> warnings;
  for (const Capture* c : {a.get(), b.get()}) {
    for (const std::string& w : c->report.warnings()) warnings.push_back(fmt::format("{}: {}", c->file, w));
    if (c->report.truncated()) warnings.push_back(fmt::format("{}: the file is truncated", c->file));
  }
  for (const std::string& w : warnings) fmt::print(stderr, "tagop: warning: {}\n", printable(w));
  const auto [columns_a, columns_b] = columns_of(o, a->report, b->report, matches);
  std::vector<DiffColumn> table = diff_reports(a->report, b->report, columns_a, columns_b);
  for (DiffColumn& c : table) sort_diff_rows(c, sort);
  switch (o.output.resolved()) {
    case Format::text: print_text(o, table, matches); break;
    case Format::csv: print_csv(o, table); break;
    case Format::json:
      print_json_diff(o, a->report.ibs(), std::string(report::name_of(a->report.by())), table, warnings, matches);
      break;
  }
}

// "host web-1, taken 2026-11-13 to 2026-11-20": what a side of the store is.
std::string store_side(const report::StoreReportOptions& s) {
  std::vector<std::string> parts;
  if (!s.host.empty()) parts.push_back("host " + s.host);
  if (!s.since.empty() || !s.until.empty())
    parts.push_back(fmt::format("taken {} to {}", s.since.empty() ? "from the first" : s.since,
                                s.until.empty() ? "now" : s.until));
  if (s.where) parts.push_back("where " + s.where->to_string());
  return parts.empty() ? "the whole store" : fmt::format("{}", fmt::join(parts, ", "));
}

// --source: two parts of the store, by host or by ingest time, each a
// store report (report::store_report), diffed as two captures' reports.
void run_store_diff(DiffOptions o) {
  if (!o.a.empty() || !o.b.empty())
    usage_error("--source: A and B are parts of the store (--host and --host-b, --since/--until and "
                "--since-b/--until-b), not captures: give no FILE");
  report::StoreReportOptions a;
  try {
    a.keys = report::parse_store_keys(o.by);
  } catch (const Error& e) {
    usage_error(e.what());
  }
  for (const report::StoreKey& k : a.keys)
    if (k == report::StoreKey{report::GroupBy::thread})
      usage_error(fmt::format("--source --by {}: the store keeps tids, not the threads' names, and two parts of the "
                              "store have different ones: function, module, process, cpu, host or processor",
                              o.by));
  choose_store_samples(a, {o.host, o.since, o.until, o.backend, o.where});
  report::StoreReportOptions b = a;
  if (!o.host_b.empty()) b.host = o.host_b;
  if (o.b_times) {
    b.since = o.since_b;
    b.until = o.until_b;
  }
  if (b.host == a.host && b.since == a.since && b.until == a.until)
    usage_error("--source: A and B are the same samples: give B's host (--host-b) or times (--since-b, --until-b)");
  const DiffSort sort = parse_sort(o.sort);
  const profiles::ClickHouseServer server(o.source);
  const auto side = [&](const char* which, const report::StoreReportOptions& options) {
    report::StoreReport r;
    try {
      r = report::store_report(server, options);
    } catch (const Error& e) {
      throw Error(fmt::format("{} ({}): {}", which, store_side(options), e.what()));
    }
    if (r.rows.empty()) throw Error(fmt::format("{} ({}): no samples in the store", which, store_side(options)));
    return r;
  };
  const report::StoreReport ra = side("A", a), rb = side("B", b);
  std::vector<report::Column> columns;
  if (ra.ibs) {
    try {
      columns = o.events.empty() ? report::view_columns(o.view) : report::resolve_columns(o.events);
    } catch (const report::ColumnError& e) {
      usage_error(e.what());
    }
  } else if (!o.events.empty() || o.view != "overview") {
    usage_error("--events and --view choose IBS derived events, and the store's samples here are of captures "
                "without IBS: their columns are their events, by period");
  }
  std::vector<DiffColumn> table = report::store_diff(ra, rb, columns);
  for (DiffColumn& c : table) sort_diff_rows(c, sort);
  o.a = store_side(a);
  o.b = store_side(b);
  // Which event was compared with which, as a local diff says.
  const std::optional<report::EventMatches> matches =
      ra.ibs ? std::nullopt : std::optional(report::store_match_events(ra, rb));
  switch (o.output.resolved()) {
    case Format::text: print_text(o, table, matches); break;
    case Format::csv: print_csv(o, table); break;
    case Format::json: print_json_diff(o, ra.ibs, o.by, table, {}, matches); break;
  }
}

}  // namespace

void add_diff_command(CLI::App& app) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Two captures side by side (before/after): each row's value in A and B, the difference, and whether "
              "it is beyond the samples' noise");
  cmd->add_option("a", o->a, "The first capture (the baseline)");
  cmd->add_option("b", o->b, "The second capture");
  cmd->add_option("--by", o->by, "Rows, matched by module and name: function, module, process (by name: pids "
                                 "differ between runs), cpu, address or line")
      ->capture_default_str();
  cmd->add_option("--view", o->view, "IBS columns, a named set (as tagop report)")->capture_default_str();
  cmd->add_option("--events", o->events, "IBS columns, a list (as tagop report)");
  cmd->add_option("--sort", o->sort,
                  "Rows by the size of: delta (the change of the row's share, in percentage points: perf diff's "
                  "Delta), diff (B - A), relative ((B - A) / A) or z (the test's statistic)")
      ->capture_default_str();
  cmd->add_option("--top", o->top, "Show the first N rows of each column (0: all)")->capture_default_str();
  add_threads_option(*cmd, o->threads,
                     "Threads: 1 reads A, then B, each with one; more reads them at once, each with that many; 0 (the "
                     "default) reads them at once where two CPUs are idle (nothing else runnable now), each with "
                     "tagop report's default.");
  add_kernel_symbol_options(*cmd, o->kernel);
  add_output_options(*cmd, o->output, /*with_csv=*/true);
  cmd->add_option("--source", o->source,
                  "Diff two parts of the ClickHouse store (tagop ingest) at this URL instead of two captures: A is "
                  "chosen by --host, --since, --until; B by --host-b, --since-b, --until-b, each of A's where not "
                  "given (--since-b or --until-b: B's times are those alone). --by also host or processor (not "
                  "thread: the store keeps tids, not the threads' names; processes are matched by name)");
  cmd->add_option("--host", o->host, "With --source: A is the samples of this machine");
  cmd->add_option("--host-b", o->host_b, "With --source: B is the samples of this machine");
  cmd->add_option("--since", o->since,
                  "With --source: A is the samples taken at or after this time of day (2026-11-13; as report "
                  "--since: perf's clock data, else the capture file's time, else when ingested)");
  cmd->add_option("--until", o->until, "With --source: A is the samples taken before this time");
  cmd->add_option("--since-b", o->since_b, "With --source: B is the samples taken at or after this time")
      ->each([o](const std::string&) { o->b_times = true; });
  cmd->add_option("--until-b", o->until_b, "With --source: B is the samples taken before this time")
      ->each([o](const std::string&) { o->b_times = true; });
  cmd->add_option("--where", o->where, "With --source: only the samples (of A and B) that meet this predicate");
  cmd->add_option("--backend", o->backend,
                  "With --source: the samples of IBS captures (amd-ibs) or of others (perf), when the store holds both");
  cmd->footer(std::string(
                  "Columns: of captures without IBS, each event by period (as perf report), A's events matched with B's "
                  "as perf diff matches them: by attr type and config, so cpu-clock:ppp is cpu-clock; events without "
                  "samples (perf record -a's dummy:HG) are left out, and what was matched is said; of IBS captures, derived events and ratios (both of one processor).\n"
                  "A row's share is its part of the column's total; ") +
              test_note +
              "; ratios are not tested.\n"
              "Examples:\n"
              "  tagop diff before.data after.data\n"
              "  tagop diff before.data after.data --by module --sort z --json\n"
              "  tagop diff a.data b.data --view dc --top 10\n"
              "  tagop diff --source http://127.0.0.1:8123 --host web-1 --host-b web-2 --by module\n"
              "  tagop diff --source http://127.0.0.1:8123 --since 2026-11-13 --until 2026-11-20 --since-b 2026-11-20\n"
              "      (last week's captures against this week's; --by processor: per generation)");
  cmd->callback([o] { run_diff(*o); });
}

}  // namespace tagop::cli
