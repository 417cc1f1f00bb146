#include "ibs_event_details.hpp"

#include <string>  // std::stoul

#include <fmt/format.h>  // fmt::print

#include <tagop/amd_ibs/derived_events.hpp>      // find_derived_event
#include <tagop/amd_ibs/event_availability.hpp>  // event_availability

#include "terminal.hpp"

namespace tagop::cli {

namespace {

using namespace tagop::amd_ibs;

const IbsDerivedEventSpec* spec_of(const EventEntry& e) {
  return find_derived_event(static_cast<std::uint16_t>(std::stoul(std::string(e.code), nullptr, 16)));
}

void print_line(std::string_view label, std::string_view value, std::size_t width) {
  fmt::print("  {:<13} {}\n", fmt::format("{}:", label), wrap(value, width, 16));
}

}  // namespace

void print_ibs_event_details(const EventEntry& e, const std::optional<IbsProcessor>& processor, std::size_t width) {
  const IbsDerivedEventSpec* spec = spec_of(e);
  if (!spec) return;
  if (!processor) {
    for (const EventReading& r : spec->readings)
      print_line("reading", fmt::format("{}: {}", r.processors.name, r.text), width);
    if (!spec->readings.empty())
      print_line("decision", "give --family (and --model) to see whether it can be counted there and which bits "
                             "decide it",
                 width);
    return;
  }
  const IbsDecoder decoder(processor->family, processor->model, processor->caps);
  const EventAvailability a = event_availability(*spec, decoder);
  print_line("on", fmt::format("{} ({})", processor_text(decoder), processor->source), width);
  print_line("verdict", verdict_name(a.verdict), width);
  for (const std::string& d : a.deciders) print_line("decided by", d, width);
  for (const std::string& r : a.reasons) print_line("why", r, width);
  for (const EventReading* r : a.readings) print_line("reading", fmt::format("{}: {}", r->processors.name, r->text), width);
}

std::optional<IbsEventDetails> ibs_event_details(const EventEntry& e, const std::optional<IbsProcessor>& processor) {
  const IbsDerivedEventSpec* spec = spec_of(e);
  if (!spec) return std::nullopt;
  IbsEventDetails details;
  for (const EventReading& r : spec->readings) {
    IbsReading reading;
    reading.processors = r.processors.name;
    reading.text = r.text;
    details.readings.push_back(std::move(reading));
  }
  if (!processor) return details;
  const IbsDecoder decoder(processor->family, processor->model, processor->caps);
  const EventAvailability a = event_availability(*spec, decoder);
  IbsEventOn on;
  on.processor = processor_text(decoder);
  on.processor_from = processor->source;
  on.verdict = verdict_name(a.verdict);
  on.decided_by = a.deciders;
  on.why = a.reasons;
  details.on = std::move(on);
  return details;
}

}  // namespace tagop::cli
