// tagop report FILE: an IBS capture (perf.data) as CodeAnalyst reported it:
// IBS derived events by function, module, process, address or source line,
// the ratios people read them for, and estimates with their intervals.

#include <unistd.h>  // isatty

#include <algorithm>  // std::sort, std::max
#include <thread>     // std::thread::hardware_concurrency

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_queries
#include <tagop/amd_ibs/perf_capture.hpp>    // IbsCapture
#include <tagop/emulate/marker.hpp>          // emulation_of
#include <tagop/error.hpp>                   // Error
#include <tagop/perf_data_reader.hpp>        // PerfDataReader

#include "commands.hpp"
#include "output.hpp"
#include "report_builder.hpp"
#include "report_columns.hpp"
#include "report_result.hpp"
#include "report_samples.hpp"

namespace tagop::cli {

namespace {

using amd_ibs::IbsUnit;

struct ReportOptions {
  std::string file;
  std::string by = "function";
  std::string view = "overview";
  std::string events;
  std::string where;
  std::string sort;
  std::size_t top = 20;
  std::vector<std::string> cpus, pids, comms;
  std::string family, model;
  std::size_t threads = 0;
  bool strict = false;
  bool estimates = false;
  OutputOptions output;
};

RowKind parse_by(const std::string& by) {
  if (by == "function") return RowKind::function;
  if (by == "module") return RowKind::module;
  if (by == "process") return RowKind::process;
  if (by == "address") return RowKind::address;
  if (by == "line") return RowKind::line;
  usage_error(fmt::format("--by '{}': expected function, module, process, address or line", by));
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

UnitPeriod unit_period(const amd_ibs::IbsCapture& capture, const ReportBuilder& b, IbsUnit unit) {
  const PeriodSeen& seen = b.period(unit);
  UnitPeriod p;
  p.unit = unit == IbsUnit::fetch ? "fetches" : (seen.counts_ops ? "dispatched ops" : "cycles");
  if (const std::uint64_t requested = capture.requested_period(unit)) {
    p.value = static_cast<double>(requested);
    p.source = "attr.sample_period";
  } else if (seen.samples) {
    p.value = seen.mean();
    p.source = fmt::format("{} * 16 in the samples", unit == IbsUnit::fetch ? "IbsFetchMaxCnt" : "IbsOpMaxCnt");
    if (seen.min != seen.max)
      p.source += fmt::format(" (it varies from {} to {}: the mean is used)", seen.min, seen.max);
  }
  return p;
}

// What --strict refuses, or nullopt: any damage the reader or the decoder
// met, the feature sections included.
std::optional<std::string> damage(const perf_data::FileInfo& info, const perf_data::ReadSummary& summary,
                                  std::uint64_t skipped) {
  std::vector<std::string> parts;
  if (skipped) parts.push_back(fmt::format("{} record{} skipped", skipped, skipped == 1 ? "" : "s"));
  if (summary.unread_bytes) parts.push_back(fmt::format("{} bytes of data not read", summary.unread_bytes));
  if (summary.truncated) parts.push_back("the file truncated");
  if (summary.shrunk_to) parts.push_back("the file shrank while it was read");
  if (!info.damaged_features.empty())
    parts.push_back(fmt::format("feature section{} {} damaged", info.damaged_features.size() == 1 ? "" : "s",
                                fmt::join(info.damaged_features, ", ")));
  if (parts.empty()) return std::nullopt;
  return fmt::format("--strict: the capture is damaged ({})", fmt::join(parts, ", "));
}

bool less_for_sort(const Column& sort, const RowResult& a, const RowResult& b) {
  const auto va = column_value(sort, a.results), vb = column_value(sort, b.results);
  // Highest first; rows without a value last; then by name.
  if (va.has_value() != vb.has_value()) return va.has_value();
  if (va && vb && *va != *vb) return *va > *vb;
  return a.row.name < b.row.name;
}

void run_report(const ReportOptions& o) {
  const RowKind by = parse_by(o.by);
  std::vector<Column> columns = o.events.empty() ? view_columns(o.view) : resolve_columns(o.events);
  Column sort = o.sort.empty() ? columns.front() : resolve_column(o.sort);
  if (o.sort.empty())
    for (const Column& c : columns)
      if (c.event) {
        sort = c;
        break;
      }
  ReportFilters filters;
  filters.cpus = numbers(o.cpus, "--cpu");
  filters.pids = numbers(o.pids, "--pid");
  filters.comms = o.comms;
  if (!o.where.empty()) {
    try {
      filters.where = Predicate::parse(o.where);
    } catch (const Error& e) {
      usage_error(fmt::format("--where: {}", e.what()));
    }
  }
  std::optional<CpuId> cpu;
  if (!o.family.empty())
    cpu = CpuId{"AuthenticAMD", parse_cpu_number(o.family, "--family"),
                o.model.empty() ? 0 : parse_cpu_number(o.model, "--model"), 0};
  else if (!o.model.empty())
    usage_error("--model needs --family");

  perf_data::PerfDataReader reader(o.file);
  const perf_data::FileInfo& info = reader.info();
  if (!holds_ibs_events(info)) {
    if (filters.where) usage_error(fmt::format("--where: {} has no IBS events, so no conditions to test", o.file));
    const perf_data::ReadSummary summary =
        report_plain_samples(reader, o.file, by, std::move(filters), o.top, o.output.resolved());
    if (const auto damaged = damage(info, summary, summary.skipped.count); o.strict && damaged) throw Error(*damaged);
    return;
  }
  // The header's warnings explain why a capture may not be readable.
  const auto capture_of = [&] {
    try {
      return amd_ibs::IbsCapture(info, cpu);
    } catch (const Error&) {
      for (const std::string& w : info.warnings) fmt::print(stderr, "tagop: warning: {}\n", printable(w));
      throw;
    }
  };
  const amd_ibs::IbsCapture capture = capture_of();
  ReportBuilder builder(reader, &capture, by, filters, isatty(2) && info.header.data.size > (64u << 20), o.threads);
  const perf_data::ReadSummary summary = reader.read(builder);
  builder.finish();

  ReportResult r;
  r.file = o.file;
  if (const auto emulation = emulate::emulation_of(info)) r.emulated = emulation->label();
  r.cpu = capture.cpu();
  r.cpu_source = cpu ? "--family/--model" : "HEADER_CPUID";
  r.by = o.by;
  r.columns = columns;
  r.sort = sort;
  r.read_fetch = builder.read(IbsUnit::fetch);
  r.read_op = builder.read(IbsUnit::op);
  r.fetch = builder.kept(IbsUnit::fetch);
  r.op = builder.kept(IbsUnit::op);
  r.other_samples = builder.other_samples();
  r.where_undecided = builder.where_undecided();
  r.where = filters.where ? filters.where->to_string() : "";
  for (const std::string& c : o.cpus) r.filters.push_back("cpu " + c);
  for (const std::string& p : o.pids) r.filters.push_back("pid " + p);
  for (const std::string& c : o.comms) r.filters.push_back("comm " + c);
  r.fetch_period = unit_period(capture, builder, IbsUnit::fetch);
  r.op_period = unit_period(capture, builder, IbsUnit::op);
  r.lost = summary.lost;
  r.truncated = summary.truncated;
  r.unread_bytes = summary.unread_bytes;
  r.resyncs = summary.resyncs;
  r.shrunk_to = summary.shrunk_to;
  r.damaged_features = info.damaged_features;

  // Damage from the reader and from the IBS payloads, as one count.
  r.skipped = summary.skipped;
  r.skipped.merge(builder.damaged());
  for (const auto* list : {&info.warnings, &summary.warnings, &capture.warnings()})
    r.warnings.insert(r.warnings.end(), list->begin(), list->end());
  for (const std::string& w : builder.warnings()) r.warnings.push_back(w);
  if (r.skipped.count)
    r.warnings.push_back(fmt::format("skipped {} damaged record{} (the first at offset {}: {})", r.skipped.count,
                                     r.skipped.count == 1 ? "" : "s", r.skipped.first_offset, r.skipped.first_reason));
  if (r.other_samples)
    r.warnings.push_back(fmt::format("{} samples of events that are not IBS were left out: IBS samples and event "
                                     "counts are not to be mixed",
                                     r.other_samples));
  if (r.lost) r.warnings.push_back(fmt::format("the kernel lost {} samples while recording", r.lost));
  for (const std::string& w : r.warnings) fmt::print(stderr, "tagop: warning: {}\n", printable(w));

  if (r.read_fetch + r.read_op == 0)
    throw Error(fmt::format("{}: no usable IBS samples{}", o.file,
                            r.skipped.count ? " (every IBS record was damaged)" : ""));

  const auto queries = amd_ibs::derived_event_queries();
  const auto& aggregator = builder.aggregator();
  r.totals = aggregator.evaluate(queries);
  auto by_row = aggregator.evaluate_by_row(queries);
  std::vector<RowResult> rows;
  for (std::size_t i = 0; i < by_row.size(); ++i) rows.push_back(RowResult{builder.rows()[i], std::move(by_row[i])});
  std::sort(rows.begin(), rows.end(), [&](const RowResult& a, const RowResult& b) { return less_for_sort(sort, a, b); });
  r.row_count = rows.size();
  if (o.top && rows.size() > o.top) rows.resize(o.top);
  r.rows = std::move(rows);

  switch (o.output.resolved()) {
    case Format::text: print_text(r, o.estimates); break;
    case Format::csv: print_csv(r); break;
    case Format::json: print_json(r); break;
  }
  if (const auto damaged = damage(info, summary, r.skipped.count); o.strict && damaged) throw Error(*damaged);
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Report an IBS capture (perf.data) as CodeAnalyst did: derived events by function, module, process, "
                "address or source line");
  cmd->add_option("file", o->file, "perf.data from: perf record -e ibs_op/cnt_ctl=1/ -e ibs_fetch// --raw-samples -a")
      ->required();
  cmd->add_option("--by", o->by, "Rows: function, module, process, address or line")->capture_default_str();
  std::string views;
  for (const ViewSpec& v : view_table()) views += fmt::format("\n  {:9} {}", v.name, v.description);
  cmd->add_option("--view", o->view, "Columns, a named set:" + views)->capture_default_str();
  cmd->add_option("--events", o->events,
                  "Columns, a list: select values (0xF206), event names or abbreviations, ratios "
                  "(dc_miss_rate, mispredict_rate, itlb_miss_rate, dtlb_miss_rate, dtlb_walk_rate, "
                  "avg_dc_miss_latency, avg_tag_to_retire, avg_fetch_latency)");
  cmd->add_option("--where", o->where, "Only samples that meet this predicate, e.g. 'load & dc.miss & !dtlb.l1_miss'");
  cmd->add_option("--sort", o->sort, "Sort rows by this column, highest first (default: the first event column)");
  cmd->add_option("--top", o->top, "Show the first N rows (0: all)")->capture_default_str();
  cmd->add_option("--cpu", o->cpus, "Only samples from these CPUs")->delimiter(',');
  cmd->add_option("--pid", o->pids, "Only samples from these processes")->delimiter(',');
  cmd->add_option("--comm", o->comms, "Only samples from processes of these names")->delimiter(',');
  cmd->add_option("--family", o->family, "The processor family, when the file does not say (10h, 0x19, 25)");
  cmd->add_option("--model", o->model, "The processor model, with --family");
  cmd->add_flag("--estimates", o->estimates, "Text: show each row's estimated ops with a 95% interval");
  // More threads than CPUs only wait their turn, and each takes memory:
  // a few per CPU is the most that can help.
  const std::size_t max_threads = std::max<std::size_t>(16, 4 * std::thread::hardware_concurrency());
  cmd->add_option("--threads", o->threads,
                  fmt::format("Threads that decode and tally samples, up to {} (4 per CPU, at least 16; 0: one per "
                              "CPU); the result does not depend on it",
                              max_threads))
      ->check(CLI::Range(std::size_t{0}, max_threads))
      ->capture_default_str();
  cmd->add_flag("--strict", o->strict,
                "Exit with status 1 when the capture is damaged: a record skipped, data not read, the file truncated "
                "or shrinking while it was read, a feature section damaged");
  add_output_options(*cmd, o->output, /*with_csv=*/true);
  cmd->footer(
      "Examples:\n"
      "  tagop report perf.data\n"
      "  tagop report perf.data --view dc --by module\n"
      "  tagop report perf.data --where 'load & dc.miss & !dtlb.l1_miss' --events 0xF100,0xF219\n"
      "  tagop report perf.data --json");
  cmd->callback([o] { run_report(*o); });
}

}  // namespace tagop::cli
