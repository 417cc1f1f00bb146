// tagop spe FILE: an Arm SPE capture's derived events, in total and by
// instruction address; --packets: every packet in perf report -D's words;
// --samples: one JSON object a line per sample.

#include <fmt/format.h>  // fmt::print

#include <nlohmann/json.hpp>  // nlohmann::ordered_json

#include <tagop/arm_spe/derived_events.hpp>  // derived_event_table
#include <tagop/arm_spe/report.hpp>          // report_spe_capture
#include <tagop/perf_data_reader.hpp>        // PerfDataReader, RecordHandler

#include "commands.hpp"
#include "output.hpp"
#include "spe_records.hpp"  // SpeRecord

namespace tagop::cli {

namespace {

using namespace tagop::arm_spe;

struct SpeOptions {
  std::string input;
  std::string where;
  std::size_t rows = 20;
  bool packets = false, samples = false;
  OutputOptions output;
};

std::string_view encoding_name(DataSourceEncoding e) {
  return e == DataSourceEncoding::neoverse ? "Neoverse" : "unknown (data sources not read)";
}

// Every AUXTRACE buffer's packets, as perf report -D prints them.
void print_packets(const std::string& path) {
  struct Handler : perf_data::RecordHandler {
    std::uint64_t sample_fields() const override { return 0; }
    void auxtrace(const perf_data::AuxtraceRecord& r) override {
      fmt::print("AUX buffer {} (file offset {}, cpu {}, tid {}): {} bytes\n", r.idx, r.offset, int(r.cpu),
                 int(r.tid), r.data.size());
      const PacketStream s = decode_packets(r.data);
      std::size_t e = 0;
      for (const Packet& p : s.packets) {
        while (e < s.errors.size() && s.errors[e].offset < p.offset) {
          fmt::print("  {:08x}: bad packet: {}\n", s.errors[e].offset, s.errors[e].reason);
          ++e;
        }
        if (p.type == PacketType::padding) continue;
        std::string bytes;
        for (std::size_t i = 0; i < p.size && i < 16; ++i)
          bytes += fmt::format("{:02x} ", std::to_integer<unsigned>(r.data[p.offset + i]));
        fmt::print("  {:08x}: {:<48} {}\n", p.offset, bytes, describe(p));
      }
      for (; e < s.errors.size(); ++e) fmt::print("  {:08x}: bad packet: {}\n", s.errors[e].offset, s.errors[e].reason);
    }
  } h;
  perf_data::PerfDataReader reader(path);
  reader.read(h);
}

void print_samples(const std::string& path, const Predicate& where) {
  const SpeCaptureDecode d = decode_spe_capture(path);
  for (std::size_t i = 0; i < d.samples.size(); ++i) {
    const Sample& s = d.samples[i];
    if (decide(where, s.conditions, s.observed) != Decision::yes) continue;
    nlohmann::ordered_json j;
    j["ip"] = fmt::format("{:#x}", s.ip);
    j["pid"] = s.pid;
    j["tid"] = s.tid;
    j["cpu"] = s.cpu;
    if (s.conditions.contains(condition("dc.lin_addr_valid"))) j["data_linear"] = fmt::format("{:#x}", s.data_linear);
    if (s.conditions.contains(condition("dc.phys_addr_valid")))
      j["data_physical"] = fmt::format("{:#x}", s.data_physical);
    if (d.records[i].branch_target) j["branch_target"] = fmt::format("{:#x}", s.branch_target);
    if (d.records[i].timestamp) j["timestamp"] = *d.records[i].timestamp;
    auto& conditions = j["conditions"] = nlohmann::ordered_json::array();
    for (Condition c : s.conditions.members()) conditions.push_back(c.name());
    // Observed false: what the packets prove did not happen.
    auto& not_met = j["not"] = nlohmann::ordered_json::array();
    for (Condition c : s.observed.members())
      if (!s.conditions.contains(c)) not_met.push_back(c.name());
    auto& measures = j["measures"] = nlohmann::ordered_json::object();
    for (std::size_t m = 0; m < measure_count; ++m)
      if (s.has_measure(Measure{static_cast<std::uint8_t>(m)})) measures[std::string(measure_table[m].name)] = s.measures[m];
    fmt::print("{}\n", j.dump());
  }
  for (const std::string& p : d.problems) fmt::print(stderr, "tagop spe: {}: {}\n", printable(path), p);
}

std::string value_of(const SpeEventSpec& e, const QueryResult& r) {
  if (!r.available()) return "n/a";
  return fmt::format("{}", e.sums.empty() ? r.count : r.total);
}

std::optional<std::uint64_t> json_value(const SpeEventSpec& e, const QueryResult& r) {
  if (!r.available()) return std::nullopt;
  return e.sums.empty() ? r.count : r.total;
}

SpeEventValues values_of(const std::vector<QueryResult>& results) {
  const auto table = arm_spe::derived_event_table();
  SpeEventValues out;
  for (std::size_t i = 0; i < table.size(); ++i) out.emplace_back(std::string(table[i].name), json_value(table[i], results[i]));
  return out;
}

void print_report_json(const std::string& path, const SpeOptions& o, const SpeReport& r) {
  SpeRecord out;
  out.file = path;
  out.records = r.records;
  out.selected = r.selected;
  if (!o.where.empty()) out.where = o.where;
  out.pmu_type = r.pmu_type;
  if (r.midr) out.midr = record::Hex{*r.midr};
  out.data_sources = r.encoding == DataSourceEncoding::neoverse ? "neoverse" : "unknown";
  for (const SpeEventSpec& e : arm_spe::derived_event_table()) {
    SpeEventRecord event{.name = std::string(e.name), .perf_event = {}, .predicate = std::string(e.predicate), .sums = {}};
    if (!e.perf_event.empty()) event.perf_event = std::string(e.perf_event);
    if (!e.sums.empty()) event.sums = std::string(e.sums);
    out.events.push_back(std::move(event));
  }
  out.totals = values_of(r.totals);
  for (const SpeReportRow& row : r.rows) out.rows.push_back({record::Hex{row.ip}, row.samples, values_of(row.events)});
  out.problems = r.problems;
  print_record(record::to_json(out), spe_contract.schema, Format::json);
}

void print_report(const std::string& path, const SpeOptions& o, const Predicate& where) {
  const SpeReport r = report_spe_capture(path, {.where = where, .max_rows = o.rows});
  if (o.output.resolved() == Format::json) return print_report_json(path, o, r);
  const auto table = arm_spe::derived_event_table();
  fmt::print("{}: {} SPE records, {} selected{}; PMU type {}, MIDR {}, data sources: {}\n", printable(path),
             r.records, r.selected, o.where.empty() ? "" : fmt::format(" by '{}'", o.where), r.pmu_type,
             r.midr ? fmt::format("{:#x}", *r.midr) : std::string("unknown"), encoding_name(r.encoding));
  for (std::size_t i = 0; i < table.size(); ++i)
    fmt::print("  {:<38} {:>12}  {}\n", table[i].name, value_of(table[i], r.totals[i]),
               table[i].sums.empty() ? "" : fmt::format("({})", table[i].sums));
  if (!r.rows.empty()) {
    // Columns: the events perf also synthesises, then the latency sum.
    std::vector<std::size_t> columns;
    for (std::size_t i = 0; i < table.size(); ++i)
      if (!table[i].perf_event.empty() || table[i].name == "SPE total latency") columns.push_back(i);
    fmt::print("\n{:<20} {:>9}", "ip", "samples");
    for (std::size_t c : columns)
      fmt::print(" {:>14}", table[c].perf_event.empty() ? std::string_view("total-lat") : table[c].perf_event);
    fmt::print("\n");
    for (const SpeReportRow& row : r.rows) {
      fmt::print("{:<20} {:>9}", fmt::format("{:#x}", row.ip), row.samples);
      for (std::size_t c : columns) fmt::print(" {:>14}", value_of(table[c], row.events[c]));
      fmt::print("\n");
    }
  }
  for (const std::string& p : r.problems) fmt::print(stderr, "tagop spe: {}: {}\n", printable(path), p);
}

}  // namespace

void add_spe_command(CLI::App& app) {
  auto options = std::make_shared<SpeOptions>();
  CLI::App* cmd = app.add_subcommand("spe", "Read an Arm SPE capture (perf record -e arm_spe//): its derived events, "
                                            "its samples or its packets");
  cmd->add_option("file", options->input, "the perf.data file")->required();
  cmd->add_option("--where", options->where, "only the samples that meet this predicate ('load & dc.miss')");
  cmd->add_option("--rows", options->rows, "instruction addresses to list, most samples first (0: none)");
  cmd->add_flag("--packets", options->packets, "print every packet, in the words of perf report -D");
  cmd->add_flag("--samples", options->samples, "print one JSON object a line per sample: conditions and measures");
  add_output_options(*cmd, options->output);
  cmd->footer(
      "Examples:\n"
      "  tagop spe spe.data\n"
      "  tagop spe spe.data --where 'load & dc.miss' --rows 10\n"
      "  tagop spe spe.data --json             # tagop.spe/1: schemas/spe.schema.json\n"
      "  tagop spe spe.data --samples --where 'branch.mispredicted'\n"
      "  tagop spe spe.data --packets");
  cmd->callback([options] {
    if (options->packets && options->samples) usage_error("give --packets or --samples, not both");
    if ((options->packets || options->samples) && options->output.resolved() == Format::json)
      usage_error("--json is the derived events' record; --samples is JSON lines already, --packets text");
    const Predicate where = options->where.empty() ? Predicate() : Predicate::parse(options->where);
    if (options->packets) print_packets(options->input);
    else if (options->samples) print_samples(options->input, where);
    else print_report(options->input, *options, where);
  });
}

}  // namespace tagop::cli
