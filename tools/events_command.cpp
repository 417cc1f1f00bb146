// tagop events list|show: the backends' event tables.

#include <algorithm>  // std::any_of
#include <cctype>     // std::tolower

#include <fmt/format.h>       // fmt::print
#include <nlohmann/json.hpp>  // JSON output

#include <tagop/error.hpp>     // Error
#include <tagop/registry.hpp>  // Registry

#include "commands.hpp"
#include "output.hpp"

namespace tagop::cli {

namespace {

using json = nlohmann::ordered_json;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

json entry_json(const EventEntry& e) {
  json j;
  j["backend"] = e.backend;
  j["name"] = e.name;
  j["code"] = e.code;
  if (e.backend == "amd-ibs") j["select"] = e.code;
  if (!e.event_code.empty()) j["event"] = e.event_code;
  if (!e.umask.empty()) j["umask"] = e.umask;
  j["abbreviation"] = e.abbreviation;
  j["kind"] = e.kind == SampleKind::fetch ? "fetch" : "op";
  j["predicate"] = e.predicate;
  if (!e.sums.empty()) j["sums"] = e.sums;
  j["mechanism"] = mechanism_name(e.mechanism);
  j["precise"] = e.precise;
  j["description"] = e.description;
  return j;
}

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

void list(const std::string& backend, Format format) {
  json all = json::array();
  for (const BackendInfo* b : chosen_backends(backend)) {
    if (format != Format::json) fmt::print("{} ({}):\n", b->name, b->title);
    for (const EventEntry& e : b->events()) {
      if (format == Format::json) {
        all.push_back(entry_json(e));
        continue;
      }
      const std::string predicate = e.mechanism == Mechanism::count_only ? std::string("(count only)")
                                    : e.predicate.empty() ? std::string(e.kind == SampleKind::fetch ? "fetch" : "op")
                                                          : std::string(e.predicate);
      fmt::print("  {:<8} {:<36} {}{}\n", e.code, e.name, predicate, e.sums.empty() ? "" : fmt::format("  [sums {}]", e.sums));
    }
  }
  if (format == Format::json) fmt::print("{}\n", all.dump(2));
}

bool matches(const EventEntry& e, const std::string& wanted) {
  const std::string w = lower(wanted);
  std::string code = lower(e.code);
  return lower(e.name) == w || lower(e.abbreviation) == w || code == w ||
         (code.starts_with("0x") && code.substr(2) == w);
}

void show(const std::string& name, Format format) {
  for (const BackendInfo& b : Registry::builtin().backends()) {
    for (const EventEntry& e : b.events()) {
      if (!matches(e, name)) continue;
      if (format == Format::json) {
        fmt::print("{}\n", entry_json(e).dump(2));
        return;
      }
      fmt::print("{} {} ({})\n", e.code, e.name, b.name);
      if (!e.abbreviation.empty()) fmt::print("  abbreviation: {}\n", e.abbreviation);
      fmt::print("  mechanism:    {}\n", mechanism_name(e.mechanism));
      if (e.mechanism == Mechanism::count_only)
        fmt::print("  counts:       occurrences (not an op predicate: no sample names one op)\n");
      else
        fmt::print("  counts:       {} samples{}\n", e.kind == SampleKind::fetch ? "fetch" : "op",
                   e.predicate.empty() ? "" : fmt::format(" where {}", e.predicate));
      if (!e.sums.empty()) fmt::print("  sums:         {}\n", e.sums);
      fmt::print("  description:  {}\n", e.description);
      return;
    }
  }
  throw Error(fmt::format("no event named '{}' (try 'tagop events list')", name));
}

}  // namespace

void add_events_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("events", "Look events up in the backends' tables");
  cmd->require_subcommand(1);

  struct ListOptions {
    std::string backend;
    OutputOptions output;
  };
  auto lo = std::make_shared<ListOptions>();
  CLI::App* list_cmd = cmd->add_subcommand("list", "List the events of every backend, or of one");
  list_cmd->add_option("--backend", lo->backend, "Only this backend (e.g. amd-ibs)");
  add_output_options(*list_cmd, lo->output);
  list_cmd->callback([lo] { list(lo->backend, lo->output.resolved()); });

  struct ShowOptions {
    std::string name;
    OutputOptions output;
  };
  auto so = std::make_shared<ShowOptions>();
  CLI::App* show_cmd = cmd->add_subcommand("show", "Show one event: by name, abbreviation or select value");
  show_cmd->add_option("event", so->name, "e.g. 0xF206, F206, 'IBS DC miss'")->required();
  add_output_options(*show_cmd, so->output);
  show_cmd->callback([so] { show(so->name, so->output.resolved()); });
}

}  // namespace tagop::cli
