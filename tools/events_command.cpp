// tagop events list|show|search|names: the backends' event tables, and
// libpfm4's for PMUs that tagop has no table of.

#include <algorithm>  // std::find_if
#include <cstdint>    // std::uint64_t
#include <memory>     // std::make_shared
#include <set>        // std::set

#include <fmt/format.h>       // fmt::print

#include <tagop/conditions.hpp>  // find_condition, closest_condition_names
#include <tagop/error.hpp>       // Error
#include <tagop/compare/vendor_notes.hpp>  // address_precision, sample_meaning
#include <tagop/event_search.hpp>  // find_events, closest_event_names, search_events
#include <tagop/predicate.hpp>   // Predicate
#include <tagop/registry.hpp>    // Registry

#include "commands.hpp"
#include "event_json.hpp"
#include "store_sql.hpp"
#include "program_record.hpp"
#include "event_programming.hpp"
#include "libpfm_lookup.hpp"
#include "output.hpp"
#include "terminal.hpp"
#include "ibs_event_details.hpp"

namespace tagop::cli {

using compare::address_precision;
using compare::sample_meaning;

namespace {

struct ListFilter {
  std::string backend;
  bool precise = false;
  std::string kind;
  std::string condition;
};

std::vector<const BackendInfo*> chosen_backends(const std::string& name) {
  const Registry& registry = Registry::builtin();
  std::vector<const BackendInfo*> out;
  for (const BackendInfo& b : registry.backends())
    if (name.empty() || b.name == name) out.push_back(&b);
  if (out.empty()) {
    std::string known;
    for (const BackendInfo& b : registry.backends()) known += (known.empty() ? "" : ", ") + std::string(b.name);
    usage_error(fmt::format("unknown backend '{}': expected one of {}", name, known));
  }
  return out;
}

std::optional<Condition> wanted_condition(const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (const auto c = find_condition(name)) return c;
  std::string close;
  for (std::string_view n : closest_condition_names(name)) close += (close.empty() ? "" : ", ") + std::string(n);
  usage_error(fmt::format("--condition: unknown condition '{}'; did you mean {}?", name, close));
}

bool passes(const EventEntry& e, const ListFilter& f, const std::optional<Condition>& condition) {
  if (f.precise && !e.precise) return false;
  if (!f.kind.empty() && kind_name(e) != f.kind) return false;
  if (condition) {
    if (e.predicate.empty()) return false;
    if (!Predicate::parse(e.predicate).used().contains(*condition)) return false;
  }
  return true;
}

// The CSV of events: EventRow's fields as columns (a search hit's: and its score).
const std::vector<std::string> csv_header = record::csv_header<EventRow>();

std::vector<std::string> csv_fields(const EventEntry& e) { return record::csv_cells(event_row(e), csv_header); }

std::string list_line(const EventEntry& e) {
  return fmt::format("  {:<10} {:<36} {}{}{}", e.code, e.name, e.precise ? "* " : "  ", predicate_text(e),
                     e.sums.empty() ? "" : fmt::format("  [sums {}]", e.sums));
}

void list(const ListFilter& filter, Format format) {
  const auto condition = wanted_condition(filter.condition);
  if (!filter.kind.empty() && filter.kind != "fetch" && filter.kind != "op")
    usage_error(fmt::format("--kind '{}': expected fetch or op", filter.kind));
  const std::size_t width = terminal_width();
  EventsList listed;
  if (format == Format::csv) fmt::print("{}", csv_row(csv_header));
  for (const BackendInfo* b : chosen_backends(filter.backend)) {
    bool heading = false;
    for (const EventEntry& e : b->events()) {
      if (!passes(e, filter, condition)) continue;
      if (format == Format::json) {
        listed.events.push_back(event_row(e));
      } else if (format == Format::csv) {
        fmt::print("{}", csv_row(csv_fields(e)));
      } else {
        if (!heading) fmt::print("{}\n", fit(fmt::format("{} ({}; * = precise):", b->name, b->title), width));
        heading = true;
        fmt::print("{}\n", fit(list_line(e), width));
      }
    }
  }
  if (format == Format::json) print_json(record::to_json(listed), events_list_contract.schema);
}

std::string mechanism_text(const EventEntry& e) {
  switch (e.mechanism) {
    case Mechanism::instruction_sampling:
      return fmt::format("instruction sampling: {} tags one {} in N and reports every flag of it at once; "
                         "this event is a question asked of those samples",
                         e.backend == "arm-spe" ? "SPE" : "IBS", kind_name(e));
    case Mechanism::at_retirement_tagging:
      return "at-retirement tagging: an upstream ESCR tags the uops that meet the condition, a downstream "
             "ESCR counts them when they retire (PEBS gives a precise sample)";
    case Mechanism::precise_event:
      return e.precise ? "precise event: PEBS samples the ops that meet the event's own condition"
                       : "event counter (not PEBS-capable here: samples skid)";
    case Mechanism::count_only:
      return e.predicate.empty() ? "counter only: occurrences, not an op predicate (no sample names one op)"
                                 : "counter only: counts the ops that meet the predicate, no precise sample";
  }
  return "";
}

std::string encoding_text(const EventEntry& e) {
  if (e.backend == "amd-ibs")
    return fmt::format("IBS derived event select {} (from {} samples)", e.code, e.kind == SampleKind::fetch ? "IbsFetchCtl" : "IbsOpCtl");
  if (!e.event_code.empty()) {
    const unsigned event = static_cast<unsigned>(std::stoul(std::string(e.event_code), nullptr, 16));
    const unsigned umask = e.umask.empty() ? 0 : static_cast<unsigned>(std::stoul(std::string(e.umask), nullptr, 16));
    // perf's raw config: event bits 7:0, umask 15:8, and an AMD 12-bit
    // select's bits 11:8 in 35:32.
    const std::uint64_t raw = (event & 0xFFu) | std::uint64_t{umask} << 8 | std::uint64_t{event >> 8} << 32;
    return fmt::format("event {} umask {}; perf cpu/event={:#x},umask={:#x}/ (r{:04x})", e.event_code,
                       e.umask.empty() ? "0x00" : e.umask, event, umask, raw);
  }
  if (e.backend == "p4" && e.mechanism == Mechanism::count_only) {
    const auto slash = e.code.find('/');
    if (slash != std::string_view::npos)
      return fmt::format("ESCR event select {} (bits 30:25), CCCR ESCR select {} (bits 15:13)", e.code.substr(0, slash),
                         e.code.substr(slash + 1));
  }
  return std::string(e.code);
}

void print_field(std::string_view label, std::string_view value, std::size_t width) {
  constexpr std::size_t indent = 16;
  fmt::print("  {:<13} {}\n", fmt::format("{}:", label), wrap(value, width, indent));
}

std::string indented(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += fit("    " + text.substr(start, end - start), width) + "\n";
    start = end + 1;
  }
  return out;
}

// --format sql: the event asked of the store (tagop ingest).
void show_sql(const EventEntry& e) {
  if (e.predicate.empty())
    throw Error(fmt::format("--format sql: {} ({}) counts occurrences, not samples of ops: it has no predicate to ask "
                            "of the store",
                            e.name, e.backend));
  // The event's samples are of its kind (fetch or op), as the report asks
  // an IBS derived event of its unit's samples only.
  const Predicate kind =
      Predicate::of(Term{.require = {e.kind == SampleKind::fetch ? condition("fetch") : condition("op")}});
  const Query query{kind & Predicate::parse(e.predicate), find_measure(e.sums)};
  fmt::print("{}", store_question_sql(fmt::format("{} {} ({})", e.code, e.name, e.backend), query, false));
}

void show_entry(const EventEntry& e, const std::vector<const EventEntry*>& also, std::string_view spelled,
                const std::optional<IbsProcessor>& processor, Format format, bool sql = false) {
  if (sql) return show_sql(e);
  const EntryProgramming programmed = program_entry(e, spelled, processor);
  const bool ibs = e.backend == "amd-ibs";
  if (processor && !ibs)
    usage_error(fmt::format("--family applies to IBS derived events; {} is a {} event", e.name, e.backend));
  if (format == Format::json) {
    EventShown shown;
    shown.event = {event_row(e)};
    if (ibs) shown.ibs = ibs_event_details(e, processor);
    shown.encoding = encoding_text(e);
    shown.address = address_precision(e);
    shown.sample = sample_meaning(e);
    shown.program_command = programmed.request;
    if (programmed.programming) shown.programming = program_record(*programmed.programming);
    else shown.programming_refused = programmed.refused;
    for (const EventEntry* o : also) {
      EventRef ref;
      ref.backend = o->backend;
      ref.name = o->name;
      ref.code = o->code;
      shown.also.push_back(std::move(ref));
    }
    print_json(record::to_json(EventsShow(std::move(shown))), events_show_contract.schema);
    return;
  }
  if (format == Format::csv) {
    fmt::print("{}{}", csv_row(csv_header), csv_row(csv_fields(e)));
    return;
  }
  const std::size_t width = terminal_width();
  fmt::print("{}\n", fit(fmt::format("{} {} ({})", e.code, e.name, e.backend), width));
  if (!e.abbreviation.empty()) print_field("abbreviation", e.abbreviation, width);
  print_field("description", e.description, width);
  print_field("encoding", encoding_text(e), width);
  print_field("predicate", predicate_text(e), width);
  if (!e.sums.empty()) print_field("sums", e.sums, width);
  print_field("mechanism", mechanism_text(e), width);
  print_field("precise", e.precise ? "yes" : "no", width);
  print_field("address", address_precision(e), width);
  if (!has_op_predicate(e))
    print_field("counts", "occurrences (not an op predicate: no sample names one op)", width);
  else
    print_field("counts",
                e.mechanism == Mechanism::instruction_sampling
                    ? fmt::format("{} samples{}", kind_name(e), e.predicate.empty() ? "" : fmt::format(" where {}", e.predicate))
                    : fmt::format("retired ops where {} (an event count)", predicate_text(e)),
                width);
  if (has_op_predicate(e)) print_field("unit", fmt::format("one count is one of: {}", counting_unit_name(e.unit)), width);
  if (ibs) print_ibs_event_details(e, processor, width);
  print_field("program", programmed.request, width);
  if (programmed.programming) fmt::print("{}", indented(to_text(*programmed.programming), width));
  else print_field("refused", programmed.refused, width);
  for (const EventEntry* o : also) print_field("also", fmt::format("{} {} ({})", o->code, o->name, o->backend), width);
}

void show_libpfm(const LibpfmEvent& e, Format format) {
  if (format == Format::json) {
    LibpfmEventShown shown;
    shown.backend = {"libpfm4"};
    shown.pmu = e.pmu;
    shown.pmu_title = e.pmu_title;
    shown.name = e.name;
    shown.code = {e.code};
    shown.precise = e.precise;
    shown.description = e.description;
    shown.mechanism = "libpfm4 event (tagop has no table for this PMU: no predicate)";
    for (const LibpfmAttribute& a : e.attributes) {
      LibpfmAttributeRecord attribute;
      attribute.name = a.name;
      attribute.kind = a.kind;
      attribute.code = {a.code};
      attribute.default_ = a.is_default;
      attribute.precise = a.precise;
      attribute.description = a.description;
      shown.attributes.push_back(std::move(attribute));
    }
    print_json(record::to_json(EventsShow(std::move(shown))), events_show_contract.schema);
    return;
  }
  if (format == Format::csv) {
    fmt::print("{}{}", csv_row({"pmu", "name", "code", "precise", "description"}),
               csv_row({e.pmu, e.name, fmt::format("{:#x}", e.code), e.precise ? "yes" : "no", e.description}));
    return;
  }
  const std::size_t width = terminal_width();
  fmt::print("{}\n", fit(fmt::format("{}::{} ({}, from libpfm4)", e.pmu, e.name, e.pmu_title), width));
  print_field("description", e.description, width);
  print_field("code", fmt::format("{:#x}", e.code), width);
  print_field("precise", e.precise ? "yes (PEBS)" : "no", width);
  print_field("predicate", "none: tagop has no table for this PMU", width);
  for (const LibpfmAttribute& a : e.attributes)
    fmt::print("{}\n", fit(fmt::format("    {:<24} {:<20} {:#06x}{}{}  {}", a.name, a.kind, a.code,
                                       a.is_default ? " default" : "", a.precise ? " precise" : "", a.description),
                           width));
}

void show(const std::string& name, const std::string& backend, const std::optional<IbsProcessor>& processor,
          Format format, bool sql) {
  if (name.find_first_not_of(" \t") == std::string::npos) usage_error("events show: the event name is empty");
  std::vector<const EventEntry*> found = find_events(name);
  if (!backend.empty()) {
    chosen_backends(backend);  // rejects an unknown backend
    std::erase_if(found, [&](const EventEntry* e) { return e->backend != backend; });
  }
  if (!found.empty()) {
    show_entry(*found.front(), {found.begin() + 1, found.end()}, name, processor, format, sql);
    return;
  }
  if (backend.empty()) {
    if (const auto pfm = libpfm_find(name)) {
      // libpfm4 spells some events of our tables differently: its encoding
      // finds our row, which has the predicate and the programmer.
      if (pfm->encoding) {
        // "slm::r01e6": the event select and unit mask in that PMU's table.
        const auto same = Registry::builtin().lookup(fmt::format("{}::r{:x}", pfm->pmu, *pfm->encoding & 0xFFFF));
        if (!same.empty()) {
          show_entry(*same.front(), {same.begin() + 1, same.end()}, name, processor, format, sql);
          return;
        }
      }
      if (sql)
        throw Error(fmt::format("--format sql: {} is libpfm4's, without a predicate over tagop's conditions", name));
      show_libpfm(*pfm, format);
      return;
    }
  }
  std::string close;
  for (const std::string& n : closest_event_names(name)) close += (close.empty() ? "" : ", ") + n;
  throw Error(fmt::format("no event named '{}'; did you mean {}?", name, close));
}

void search(const std::string& words, std::size_t limit, Format format) {
  std::vector<SearchHit> hits = search_events(words);
  if (hits.size() > limit) hits.resize(limit);
  EventsSearch found;
  found.query = words;
  for (const SearchHit& h : hits) {
    EventSearchHit hit;
    hit.event = {event_row(*h.entry)};
    hit.score = h.score;
    found.events.push_back(std::move(hit));
  }
  if (format == Format::json) {
    print_json(record::to_json(found), events_search_contract.schema);
    return;
  }
  if (format == Format::csv) {
    const std::vector<std::string> header = record::csv_header<EventSearchHit>();
    fmt::print("{}", csv_row(header));
    for (const EventSearchHit& hit : found.events) fmt::print("{}", csv_row(record::csv_cells(hit, header)));
    return;
  }
  if (hits.empty()) throw Error(fmt::format("no event matches '{}'", words));
  const std::size_t width = terminal_width();
  for (const SearchHit& h : hits)
    fmt::print("{}\n", fit(fmt::format("{:<10} {:<10} {:<36} {}", h.entry->backend, h.entry->code, h.entry->name,
                                       h.entry->description),
                           width));
}

void names(bool backends_only) {
  if (backends_only) {
    for (const BackendInfo& b : Registry::builtin().backends()) fmt::print("{}\n", b.name);
    return;
  }
  // Silvermont and Goldmont share many names; completion wants each once.
  std::set<std::string_view> seen;
  for (const EventEntry* e : all_events())
    if (seen.insert(e->name).second) fmt::print("{}\n", e->name);
}

}  // namespace

void add_events_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("events", "Look events up in the backends' tables (and libpfm4's)");
  cmd->require_subcommand(1);

  struct ListOptions {
    ListFilter filter;
    OutputOptions output;
  };
  auto lo = std::make_shared<ListOptions>();
  CLI::App* list_cmd = cmd->add_subcommand("list", "List the events of every backend, or those that pass filters");
  list_cmd->add_option("--backend", lo->filter.backend, "Only this backend (amd-ibs, p4, silvermont, goldmont, zen1-zen4)");
  list_cmd->add_flag("--precise", lo->filter.precise, "Only events that give a precise sample");
  list_cmd->add_option("--kind", lo->filter.kind, "Only fetch or op events");
  list_cmd->add_option("--condition", lo->filter.condition, "Only events whose predicate mentions this condition");
  add_output_options(*list_cmd, lo->output, true);
  list_cmd->callback([lo] { list(lo->filter, lo->output.resolved()); });

  struct ShowOptions {
    std::string name;
    std::string backend;
    IbsProcessorOptions processor;
    OutputOptions output;
  };
  auto so = std::make_shared<ShowOptions>();
  CLI::App* show_cmd = cmd->add_subcommand("show", "Show one event, in any spelling, and how to program it");
  show_cmd->add_option("event", so->name,
                       "e.g. 0xF206, F206, 'IBS DC miss', BACLEARS.ALL, slm::BACLEARS:ALL, r01e6, "
                       "cpu/event=0xe6,umask=0x1/, 1stL_cache_load_miss_retired, skl::INST_RETIRED:ANY_P")
      ->required();
  show_cmd->add_option("--backend", so->backend, "Only this backend's table (where a spelling names several)");
  show_cmd->add_option("--family", so->processor.family,
                       "For an IBS derived event: whether it can be counted on this family, and which bits decide it");
  show_cmd->add_option("--model", so->processor.model, "With --family: the model (default 0)");
  show_cmd->add_option("--caps", so->processor.caps, "With --family: the IBS capabilities (CPUID 8000_001B EAX)");
  add_output_options(*show_cmd, so->output, true, {"sql"});
  show_cmd->footer("Examples:\n  tagop events show F206\n  tagop events show F244 --family 17h\n"
                   "  tagop events show 0xF249 --family 19h --model 0x11 --json\n"
                   "  tagop events show F219 --format sql   # asked of the store (tagop ingest)");
  show_cmd->callback([so] {
    std::optional<IbsProcessor> processor;
    if (!so->processor.family.empty()) processor = choose_ibs_processor(so->processor);
    else if (!so->processor.model.empty() || !so->processor.caps.empty()) usage_error("--model and --caps need --family");
    show(so->name, so->backend, processor, so->output.resolved(), so->output.format == "sql");
  });

  struct SearchOptions {
    std::vector<std::string> words;
    std::size_t limit = 25;
    OutputOptions output;
  };
  auto sso = std::make_shared<SearchOptions>();
  CLI::App* search_cmd = cmd->add_subcommand("search", "Find events by words of their name or description, typos allowed");
  search_cmd->add_option("words", sso->words, "e.g. 'data cache miss', baclear, mispredcted")->required();
  search_cmd->add_option("--limit", sso->limit, "At most this many results")->capture_default_str();
  add_output_options(*search_cmd, sso->output, true);
  search_cmd->callback([sso] {
    std::string words;
    for (const std::string& w : sso->words) words += (words.empty() ? "" : " ") + w;
    search(words, sso->limit, sso->output.resolved());
  });

  auto backends_only = std::make_shared<bool>(false);
  CLI::App* names_cmd = cmd->add_subcommand("names", "Every event name, one per line (for shell completion)");
  names_cmd->group("");  // hidden
  names_cmd->add_flag("--backends", *backends_only, "The backend names instead");
  names_cmd->callback([backends_only] { names(*backends_only); });
}

}  // namespace tagop::cli
