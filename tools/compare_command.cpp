// tagop compare EVENT-or-PREDICATE: how each vendor measures the same ops;
// tagop compare --matrix: every condition against every backend.

#include <algorithm>  // std::stable_sort
#include <map>        // std::map
#include <memory>     // std::make_shared
#include <optional>   // std::optional

#include <fmt/format.h>       // fmt::print

#include <tagop/amd_ibs/decoder.hpp>      // IbsDecoder::observable
#include <tagop/amd_ibs/families.hpp>     // ibs_families
#include <tagop/amd_ibs/sampling_filters.hpp>  // sampling_filter_table
#include <tagop/conditions.hpp>           // condition_table
#include <tagop/error.hpp>                // Error
#include <tagop/event_search.hpp>         // find_events, closest_event_names
#include <tagop/intel_p4/tables.hpp>      // find_metric, tagging_name
#include <tagop/predicate.hpp>            // Predicate
#include <tagop/predicate_relation.hpp>   // relation
#include <tagop/registry.hpp>             // Registry

#include "commands.hpp"
#include "compare_counts.hpp"
#include "compare_records.hpp"
#include "event_json.hpp"
#include "output.hpp"
#include "terminal.hpp"
#include "vendor_notes.hpp"

namespace tagop::cli {

namespace {

/// The entry's predicate with its kind made explicit, so that a fetch event
/// and an op event with the same flags are not "the same".
Predicate effective_predicate(const EventEntry& e) {
  const Predicate kind = Predicate::parse(kind_name(e));
  return e.predicate.empty() ? kind : kind & Predicate::parse(e.predicate);
}

bool mentions_kind(const Predicate& p) {
  const ConditionSet used = p.used();
  return used.contains(condition("fetch")) || used.contains(condition("op"));
}

bool is_fetch_condition(std::string_view name) {
  return name.starts_with("fetch") || name.starts_with("ic.") || name.starts_with("itlb.");
}

struct Target {
  std::string label;  // what the user asked, as understood
  Predicate predicate;
  std::optional<CountingUnit> unit{};  // an event's; none for a predicate
};

Target resolve_target(const std::string& text) {
  const auto found = find_events(text);
  if (!found.empty()) {
    const EventEntry& e = *found.front();
    if (!has_op_predicate(e))
      throw Error(fmt::format("{} ({}) counts occurrences, not ops: it has no predicate to compare", e.name, e.backend));
    return {fmt::format("{} {} ({}), counting {}", e.code, e.name, e.backend, counting_unit_name(e.unit)),
            effective_predicate(e), e.unit};
  }
  Predicate p;
  try {
    p = Predicate::parse(text);
  } catch (const Error& error) {
    std::string close;
    for (const std::string& n : closest_event_names(text)) close += (close.empty() ? "" : ", ") + n;
    throw Error(fmt::format("'{}' is neither an event (did you mean {}?) nor a predicate ({})", text, close, error.what()));
  }
  if (!mentions_kind(p)) {
    bool fetch = false;
    for (Condition c : p.used().members()) fetch = fetch || is_fetch_condition(c.name());
    p = Predicate::parse(fetch ? "fetch" : "op") & p;
  }
  return {p.to_string(), p};
}

ConditionSet ibs_observable(SampleKind kind) {
  ConditionSet all;
  // The union over every family with IBS, at models where fields come and
  // go (15h 30h+, 19h's Zen 4 models): a condition that some IBS
  // processor reports.
  for (const amd_ibs::IbsFamily& f : amd_ibs::ibs_families())
    for (unsigned model : {0x00u, 0x11u, 0x30u, 0x60u})
      all |= amd_ibs::IbsDecoder(f.family, model).observable(kind == SampleKind::fetch ? amd_ibs::IbsUnit::fetch
                                                                                          : amd_ibs::IbsUnit::op);
  return all;
}

bool ibs_observes(const Predicate& p) {
  static const ConditionSet observable = ibs_observable(SampleKind::op) | ibs_observable(SampleKind::fetch) |
                                         ConditionSet{condition("op"), condition("fetch")};
  return observable.contains_all(p.used());
}

// The IBS sampling filters whose population relates to the target, and
// whether a capture made with one answers it: every sample is one of the
// population, so what the filter's population says need not be observed.
struct FilterMatch {
  const amd_ibs::SamplingFilterSpec* spec;
  Relation relation;
  bool answers;
};

std::vector<FilterMatch> filter_matches(const Predicate& target) {
  static const ConditionSet observable = ibs_observable(SampleKind::op) | ibs_observable(SampleKind::fetch) |
                                         ConditionSet{condition("op"), condition("fetch")};
  std::vector<FilterMatch> out;
  for (const amd_ibs::SamplingFilterSpec& spec : amd_ibs::sampling_filter_table()) {
    const Predicate population = Predicate::parse(spec.population);
    const Relation r = relation(population, target);
    if (r != Relation::same && r != Relation::narrower && r != Relation::wider) continue;
    // Under the filter, the population's conditions hold of every sample.
    const bool within = implies(target, population) && spec.kind != amd_ibs::SamplingFilterKind::load_latency;
    out.push_back({&spec, r, within && (observable | population.used()).contains_all(target.used())});
  }
  return out;
}

// How an event relates to the target, as compare groups them: the same
// condition in another unit is not the same count.
enum class Group { same, same_condition, narrower, wider };
constexpr Group groups[] = {Group::same, Group::same_condition, Group::narrower, Group::wider};

std::string_view group_name(Group g) {
  switch (g) {
    case Group::same: return "same";
    case Group::same_condition: return "same condition, different unit";
    case Group::narrower: return "narrower";
    case Group::wider: return "wider";
  }
  return "?";
}
// The key of the group's list, and each match's "relation".
static_assert(RelationNames::values.size() == std::size(groups), "a key for each Group, in its order");
std::string_view group_key(Group g) { return RelationNames::values[static_cast<std::size_t>(g)]; }

std::vector<CompareMatch>& list_of(CompareBackend& b, Group g) {
  switch (g) {
    case Group::same: return b.same;
    case Group::same_condition: return b.same_condition_different_unit;
    case Group::narrower: return b.narrower;
    case Group::wider: return b.wider;
  }
  return b.same;
}

struct Match {
  const EventEntry* entry;
  Group group;
  std::optional<double> overlap;  // with the target's truth table (narrower, wider)
  std::size_t distance = 0;       // conditions added or dropped
};

CompareMatch match_record(const Match& m) {
  CompareMatch out{{event_row(*m.entry)}, {group_key(m.group)}, {}, {}, address_precision(*m.entry),
                   sample_meaning(*m.entry)};
  if (m.overlap) out.overlap.emplace(*m.overlap);
  if (m.group == Group::narrower || m.group == Group::wider) out.conditions_apart.emplace(m.distance);
  return out;
}

// The events of a backend that relate to the target, each group's nearest
// first: the largest share of the truth table, then the fewest conditions
// apart, then table order.
std::map<Group, std::vector<Match>> neighbours(const BackendInfo& b, const Target& target) {
  std::map<Group, std::vector<Match>> out;
  for (const EventEntry& e : b.events()) {
    if (!has_op_predicate(e)) continue;
    const Predicate p = effective_predicate(e);
    const Relation r = relation(p, target.predicate);
    Group g;
    // A predicate asks for a count of ops, in any unit of ops; a latency
    // event sums cycles over them instead.
    const bool other_unit = target.unit ? *target.unit != e.unit : e.unit == CountingUnit::cycles;
    if (r == Relation::same) g = other_unit ? Group::same_condition : Group::same;
    else if (r == Relation::narrower) g = Group::narrower;
    else if (r == Relation::wider) g = Group::wider;
    else continue;
    Match m{&e, g, std::nullopt, 0};
    if (g == Group::narrower || g == Group::wider) {
      m.overlap = truth_table_overlap(p, target.predicate);
      m.distance = condition_distance(p, target.predicate);
    }
    out[g].push_back(m);
  }
  for (auto& [g, list] : out)
    std::stable_sort(list.begin(), list.end(), [](const Match& a, const Match& b) {
      if (a.overlap && b.overlap && *a.overlap != *b.overlap) return *a.overlap > *b.overlap;
      return a.distance < b.distance;
    });
  return out;
}

void compare(const std::string& text, bool all, Format format, const std::string& counts) {
  const Target target = resolve_target(text);
  if (const std::string why = contradiction_text(target.predicate); !why.empty())
    throw Error(fmt::format("'{}' meets no op, by the vocabulary's implications: {}", text, why));
  const std::string simplest_text = simplest(target.predicate).to_string();
  const std::size_t width = terminal_width();
  CompareRecord out{target.label, target.predicate.to_string(), simplest_text, {}, {}, {}, {}, never_mix_caveat};
  std::vector<std::string> cannot;
  if (format == Format::csv)
    fmt::print("{}", csv_row({"backend", "relation", "name", "code", "mechanism", "precise", "predicate", "unit",
                              "address", "sample"}));
  if (format == Format::text) {
    fmt::print("{}\n", fit(fmt::format("compare: {}", target.label), width));
    fmt::print("{}\n", fit(fmt::format("predicate: {}", target.predicate.to_string()), width));
    if (simplest_text != target.predicate.to_string())
      fmt::print("{}\n", fit(fmt::format("same as:   {} (what the others imply left out)", simplest_text), width));
    fmt::print("\n");
    if (!counts.empty()) print_measured_counts(target.predicate, counts, width);
  }
  for (const BackendInfo& b : Registry::builtin().backends()) {
    std::map<Group, std::vector<Match>> by_group = neighbours(b, target);
    // IBS answers any predicate over the conditions its samples observe,
    // whether or not a derived event asks exactly that, and, with a
    // sampling filter, some that only the filter tells.
    const bool sampling = b.mechanism == Mechanism::instruction_sampling;
    const std::vector<FilterMatch> filters = sampling ? filter_matches(target.predicate) : std::vector<FilterMatch>{};
    const bool by_filter = std::any_of(filters.begin(), filters.end(), [](const FilterMatch& f) { return f.answers; });
    const bool measurable = !by_group[Group::same].empty() || (sampling && (ibs_observes(target.predicate) || by_filter));
    if (format == Format::json) {
      CompareBackend jb{std::string(b.name), std::string(b.title), std::string(mechanism_name(b.mechanism)),
                        measurable, {}, {}, {}, {}, {}};
      for (Group g : groups)
        for (const Match& m : by_group[g]) list_of(jb, g).push_back(match_record(m));
      for (const FilterMatch& f : filters)
        jb.filters.push_back({std::string(f.spec->name), std::string(f.spec->perf_event),
                              std::string(f.spec->population), std::string(f.spec->processors),
                              {relation_name(f.relation)}});
      out.backends.push_back(std::move(jb));
    } else if (format == Format::csv) {
      for (Group g : groups)
        for (const Match& m : by_group[g])
          fmt::print("{}", csv_row({std::string(b.name), std::string(group_key(g)), std::string(m.entry->name),
                                    std::string(m.entry->code), std::string(mechanism_name(m.entry->mechanism)),
                                    m.entry->precise ? "yes" : "no", std::string(m.entry->predicate),
                                    std::string(counting_unit_name(m.entry->unit)), address_precision(*m.entry),
                                    sample_meaning(*m.entry)}));
    } else {
      fmt::print("{}\n", fit(fmt::format("{} ({})", b.name, b.title), width));
      if (by_group[Group::same].empty() && measurable && ibs_observes(target.predicate))
        fmt::print("{}\n", fit("  no table event says exactly this, but every sample observes the conditions: "
                               "ask the samples (tagop report --where)", width));
      else if (by_group[Group::same].empty() && by_filter)
        fmt::print("{}\n", fit("  no table event says exactly this, but a capture with the sampling filter below "
                               "observes it: ask its samples (tagop report --where)", width));
      for (Group g : groups) {
        const auto& list = by_group[g];
        const std::size_t shown = all ? list.size() : std::min<std::size_t>(list.size(), g == Group::same ? 8 : 4);
        const bool long_name = g == Group::same_condition;
        if (long_name && !list.empty()) fmt::print("  {}:\n", group_name(g));
        for (std::size_t i = 0; i < shown; ++i) {
          const EventEntry& e = *list[i].entry;
          fmt::print("{}\n", fit(fmt::format("  {:<9} {:<10} {:<36} {}", long_name ? "" : group_name(g), e.code, e.name,
                                             predicate_text(e)),
                                 width));
          if (g == Group::same || g == Group::same_condition) {
            const std::string unlike =
                !long_name ? "" : target.unit ? fmt::format(", not {}", counting_unit_name(*target.unit)) : " over the ops, not a count of them";
            fmt::print("{}\n", fit(fmt::format("            counts:  {}{}", counting_unit_name(e.unit), unlike), width));
            fmt::print("{}\n", fit(fmt::format("            address: {}", address_precision(e)), width));
            fmt::print("{}\n", fit(fmt::format("            sample:  {}", sample_meaning(e)), width));
          }
        }
        if (shown < list.size())
          fmt::print("  {:<9} (+{} more; --all lists them)\n", long_name ? "" : group_name(g), list.size() - shown);
      }
      for (const FilterMatch& f : filters)
        fmt::print("{}\n", fit(fmt::format("  {:<9} {:<22} samples only {} ({}; {})", relation_name(f.relation),
                                           f.spec->perf_event, f.spec->population, f.spec->keeps, f.spec->processors),
                               width));
      if (by_group.empty() && filters.empty()) fmt::print("  - cannot measure it\n");
      fmt::print("\n");
    }
    if (!measurable) cannot.emplace_back(b.name);
  }
  if (format == Format::json) {
    if (target.unit) out.unit.emplace(counting_unit_name(*target.unit));
    out.cannot_measure_exactly = cannot;
    if (!counts.empty()) out.measured.emplace(measured_counts(target.predicate, counts));
    print_json(record::to_json(out), compare_contract.schema);
  } else if (format == Format::text) {
    std::string names;
    for (const auto& n : cannot) names += (names.empty() ? "" : ", ") + n;
    fmt::print("{}\n", fit(fmt::format("no exact equivalent: {}", names.empty() ? "(every backend has one)" : names), width));
    fmt::print("caveat: {}\n", wrap(never_mix_caveat, width, 8));
  }
}

// ---- the matrix ----

bool requires_condition(const EventEntry& e, Condition c) {
  if (e.predicate.empty()) return false;
  const Predicate p = Predicate::parse(e.predicate);
  for (const Term& t : p.terms())
    if (t.require.contains(c)) return true;
  return false;
}

std::string event_cell(const BackendInfo& b, Condition c) {
  const EventEntry* best = nullptr;
  std::size_t best_size = 0;
  for (const EventEntry& e : b.events()) {
    if (!requires_condition(e, c)) continue;
    const std::size_t size = Predicate::parse(e.predicate).used().members().size();
    // Prefer a precise event, then the one that asks for least else.
    if (!best || (e.precise && !best->precise) || (e.precise == best->precise && size < best_size)) {
      best = &e;
      best_size = size;
    }
  }
  if (!best) return "-";
  if (best->mechanism == Mechanism::at_retirement_tagging) {
    const intel_p4::MetricSpec* metric = intel_p4::find_metric(best->name);
    return fmt::format("tag ({}): {}", metric ? intel_p4::tagging_name(metric->tagging) : "?", best->name);
  }
  return fmt::format("{} {}", best->precise ? "precise event" : "event", best->name);
}

std::string matrix_cell(const BackendInfo& b, Condition c, const ConditionSet& ibs_op, const ConditionSet& ibs_fetch) {
  if (b.mechanism == Mechanism::instruction_sampling) {
    if (c == condition("op") || c == condition("fetch")) return "IBS: the sample's unit";
    if (ibs_op.contains(c)) return "IBS: observed on every op sample";
    if (ibs_fetch.contains(c)) return "IBS: observed on every fetch sample";
    return "-";
  }
  return event_cell(b, c);
}

void matrix(Format format) {
  const ConditionSet ibs_op = ibs_observable(SampleKind::op);
  const ConditionSet ibs_fetch = ibs_observable(SampleKind::fetch);
  const auto backends = Registry::builtin().backends();
  CompareMatrix out{{}, {}, never_mix_caveat};
  for (const BackendInfo& b : backends) out.backends.emplace_back(b.name);
  const std::size_t width = terminal_width();
  const std::size_t first = 22;
  const std::size_t column = width == 0 ? 40 : std::max<std::size_t>(12, (width - first) / backends.size());
  if (format == Format::csv) {
    std::vector<std::string> header{"condition"};
    for (const BackendInfo& b : backends) header.emplace_back(b.name);
    fmt::print("{}", csv_row(header));
  } else if (format == Format::text) {
    std::string line = fmt::format("{:<{}}", "condition", first);
    for (const BackendInfo& b : backends) line += fmt::format("{:<{}}", fit(b.name, column - 1), column);
    fmt::print("{}\n", fit(line, width));
  }
  for (std::size_t i = 0; i < condition_count; ++i) {
    const Condition c{static_cast<std::uint8_t>(i)};
    std::vector<std::string> cells;
    for (const BackendInfo& b : backends) cells.push_back(matrix_cell(b, c, ibs_op, ibs_fetch));
    if (format == Format::json) {
      MatrixRow row{std::string(c.name()), {}};
      for (std::size_t k = 0; k < backends.size(); ++k) row.measured.emplace_back(backends[k].name, cells[k]);
      out.rows.push_back(std::move(row));
    } else if (format == Format::csv) {
      cells.insert(cells.begin(), std::string(c.name()));
      fmt::print("{}", csv_row(cells));
    } else {
      std::string line = fmt::format("{:<{}}", fit(c.name(), first - 1), first);
      for (const std::string& cell : cells) line += fmt::format("{:<{}}", fit(cell, column - 1), column);
      fmt::print("{}\n", fit(line, width));
    }
  }
  if (format == Format::json) {
    print_json(record::to_json(out), compare_matrix_contract.schema);
  } else if (format == Format::text) {
    fmt::print("caveat: {}\n", wrap(never_mix_caveat, width, 8));
  }
}

}  // namespace

void add_compare_command(CLI::App& app) {
  struct Options {
    std::string target;
    bool matrix = false;
    bool all = false;
    std::string counts;
    OutputOptions output;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("compare", "How each vendor measures an event or a predicate, side by side");
  cmd->add_option("target", o->target, "An event of any backend, or a predicate such as 'load & dc.miss'");
  cmd->add_flag("--matrix", o->matrix, "Every condition against every backend");
  cmd->add_flag("--all", o->all, "List every narrower and wider event, not only the first few");
  cmd->add_option("--counts", o->counts, "Also show one program's measured numbers under each model, from tagop "
                                         "emulate --counts FILE");
  add_output_options(*cmd, o->output, true);
  cmd->footer("Examples:\n  tagop compare 0xF219\n  tagop compare 'load & dc.miss & !l2.miss'\n  tagop compare --matrix\n  tagop compare 'load & dc.miss' --counts counts.json   # from tagop emulate --counts");
  cmd->callback([o] {
    if (o->matrix) {
      if (!o->target.empty()) usage_error("--matrix takes no event or predicate");
      matrix(o->output.resolved());
    } else {
      if (o->target.empty()) usage_error("compare needs an event or a predicate (or --matrix)");
      if (!o->counts.empty() && o->output.resolved() == Format::csv) usage_error("--counts works with text and JSON");
      compare(o->target, o->all, o->output.resolved(), o->counts);
    }
  });
}

}  // namespace tagop::cli
