// tagop decode ibs-fetch|ibs-op [--family N] REG=VALUE ...
// tagop decode --input FILE: a file of such samples, one a line, totalled.

#include <fmt/format.h>       // fmt::format

#include <tagop/amd_ibs/decoder.hpp>         // IbsDecoder
#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_queries
#include <tagop/error.hpp>                   // Error

#include "commands.hpp"
#include "ibs_sample_text.hpp"
#include "ibs_processor.hpp"
#include "output.hpp"
#include "output_records.hpp"  // DecodedSample, DecodedSampleFile

namespace tagop::cli {

namespace {

using namespace tagop::amd_ibs;

struct DecodeOptions {
  std::string unit;
  std::vector<std::string> assignments;
  IbsProcessorOptions processor;
  std::string input;
  OutputOptions output;
};

bool is_address(const FieldSpec& f) { return f.address != AddressSlot::none; }

// What one sample adds to each derived event: 1 for a count, the measure's
// value for a latency event; unavailable events are listed apart.
struct EventIncrements {
  std::vector<std::pair<const IbsDerivedEventSpec*, std::uint64_t>> counted;
  std::vector<const IbsDerivedEventSpec*> unavailable;
};

EventIncrements increments(const std::vector<QueryResult>& results, IbsUnit unit) {
  EventIncrements out;
  const auto table = derived_event_table();
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].unit != unit) continue;
    if (!results[i].available()) out.unavailable.push_back(&table[i]);
    else if (results[i].count > 0) out.counted.push_back({&table[i], table[i].sums.empty() ? results[i].count : results[i].total});
  }
  return out;
}

void print_sample(const IbsDecoder& decoder, const IbsProcessor& processor, const IbsRegisters& regs, Format format) {
  const Sample sample = decoder.decode(regs);
  Aggregator aggregator;
  aggregator.add(sample);
  const EventIncrements events = increments(aggregator.evaluate(derived_event_queries()), regs.unit);
  const auto fields = decoder.explain(regs);

  if (format != Format::text) {
    DecodedSample out{std::string(unit_name(regs.unit)), {decoder.family()}, {decoder.model()}, {decoder.caps()},
                      processor.source, {}, {}, {}, {}, {}};
    for (const RegisterInfo& r : register_table)
      if (regs.has(r.id)) out.registers.emplace_back(r.name, record::Hex{regs.get(r.id)});
    for (const DecodedField& f : fields) {
      if (is_address(*f.spec)) out.fields.emplace_back(f.spec->name, record::Hex{f.value});
      else out.fields.emplace_back(f.spec->name, f.value);
    }
    for (Condition c : sample.conditions.members()) out.conditions.emplace_back(c.name());
    for (auto [e, amount] : events.counted) out.events.emplace_back(select_string(e->select), amount);
    for (const auto* e : events.unavailable) out.not_available.push_back(select_string(e->select));
    print_record(record::to_json(out), decoded_sample_contract.schema, format);
    return;
  }

  fmt::print("IBS {} sample, Family {:X}h model {:X}h, IBS capabilities {:#x} ({})\n",
             regs.unit == IbsUnit::fetch ? "fetch" : "op", decoder.family(), decoder.model(), decoder.caps(),
             processor.source);
  std::optional<IbsRegister> current;
  for (const DecodedField& f : fields) {
    if (current != f.spec->reg) {
      current = f.spec->reg;
      fmt::print("{} ({:#x}) = {:#018x}\n", info(*current).name, info(*current).msr, regs.get(*current));
    }
    const std::string value = is_address(*f.spec) || f.spec->width > 8 ? fmt::format("{:#x}", f.value)
                                                                        : fmt::format("{}", f.value);
    std::string meaning = f.meaning.empty() ? std::string(f.spec->description) : f.meaning;
    if (f.ignored) meaning += fmt::format(" (ignored: needs {})", Predicate::of(f.spec->only_if).to_string());
    if (f.invalid) meaning += fmt::format(" (not valid: needs {})", Predicate::of(f.spec->valid_if).to_string());
    if (!f.spec->why.empty()) meaning += fmt::format(" [{}]", f.spec->why);
    fmt::print("  {:<9} {:<24} = {:<18}  {}\n", bits_text(*f.spec), f.spec->name, value, meaning);
  }
  fmt::print("Conditions: {}\n", sample.conditions.to_string());
  fmt::print("Derived events this sample counts toward:\n");
  for (auto [e, amount] : events.counted)
    fmt::print("  {}  {:<36} +{}{}\n", select_string(e->select), e->name, amount,
               e->sums.empty() ? "" : fmt::format(" ({})", e->sums));
  if (!events.unavailable.empty()) {
    std::string list;
    for (const auto* e : events.unavailable) list += (list.empty() ? "" : " ") + select_string(e->select);
    fmt::print("Not available (this processor lacks their bits, the sample leaves them undecided, or a register was "
               "not given; tagop events show EVENT --family F says why): {}\n",
               list);
  }
}

// A file of samples (ibs_sample_text.hpp), totalled.
void total_file(const IbsDecoder& decoder, const std::string& path, Format format) {
  Aggregator aggregator;
  std::uint64_t fetch = 0, op = 0;
  read_ibs_sample_file(path, [&](const IbsRegisters& regs) {
    (regs.unit == IbsUnit::fetch ? fetch : op)++;
    aggregator.add(decoder.decode(regs));
  });
  const auto results = aggregator.evaluate(derived_event_queries());
  const auto table = derived_event_table();
  if (format != Format::text) {
    DecodedSampleFile out{{fetch, op}, {}};
    for (std::size_t i = 0; i < table.size(); ++i) {
      const auto& r = results[i];
      out.events.emplace_back(select_string(table[i].select),
                              r.available() ? std::optional(table[i].sums.empty() ? r.count : r.total) : std::nullopt);
    }
    print_record(record::to_json(out), decoded_sample_file_contract.schema, format);
    return;
  }
  fmt::print("{}: {} fetch and {} op samples, Family {:X}h\n", printable(path), fetch, op, decoder.family());
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& r = results[i];
    const std::string value = !r.available() ? "n/a" : fmt::format("{}", table[i].sums.empty() ? r.count : r.total);
    fmt::print("  {}  {:<36} {:>12}\n", select_string(table[i].select), table[i].name, value);
  }
}

}  // namespace

void add_decode_command(CLI::App& app) {
  auto options = std::make_shared<DecodeOptions>();
  CLI::App* cmd = app.add_subcommand("decode", "Decode raw IBS registers: every field, and the derived events the "
                                               "sample counts toward");
  cmd->add_option("kind", options->unit, "ibs-fetch or ibs-op")->check(CLI::IsMember({"ibs-fetch", "ibs-op"}));
  cmd->add_option("registers", options->assignments,
                  "REGISTER=VALUE, with the AMD names: IbsFetchCtl, IbsFetchLinAd, IbsFetchPhysAd, IbsFetchCtlExtd; "
                  "IbsOpCtl, IbsOpRip, IbsOpData, IbsOpData2, IbsOpData3, IbsDcLinAd, IbsDcPhysAd, IbsBrTarget, "
                  "IbsOpData4. A register not given is unknown, not zero.");
  add_ibs_processor_options(*cmd, options->processor);
  cmd->add_option("--input", options->input,
                  "Total a file of samples instead, one a line: 'ibs-op IbsOpData3=0x81 ...'");
  add_output_options(*cmd, options->output, /*with_csv=*/true);
  cmd->footer(
      "Examples:\n"
      "  tagop decode ibs-op IbsOpData=0x3000000000 IbsOpData3=0x100000081 --family 10h\n"
      "  tagop decode ibs-fetch IbsFetchCtl=0x0018000000280000 --json\n"
      "  tagop decode ibs-op IbsOpData2=0x40 IbsOpData3=0x2000100081 --family 19h --model 0x11\n"
      "  tagop decode --input examples/ibs-samples.txt");
  cmd->callback([options] {
    const IbsProcessor processor = choose_ibs_processor(options->processor);
    const IbsDecoder decoder(processor.family, processor.model, processor.caps);
    const Format format = options->output.resolved();
    if (!options->input.empty()) {
      if (!options->unit.empty()) usage_error("give either --input FILE or a sample kind with registers, not both");
      total_file(decoder, options->input, format);
      return;
    }
    if (options->unit.empty()) usage_error("expected ibs-fetch or ibs-op and REGISTER=VALUE ... (or --input FILE)");
    const IbsUnit unit = parse_ibs_unit(options->unit);
    print_sample(decoder, processor, parse_ibs_registers(unit, options->assignments), format);
  });
}

}  // namespace tagop::cli
