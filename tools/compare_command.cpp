// tagop compare EVENT-or-PREDICATE: how each vendor measures the same ops;
// tagop compare --matrix: every condition against every backend.

#include <algorithm>  // std::min, std::max
#include <memory>     // std::make_shared

#include <fmt/format.h>       // fmt::print

#include <tagop/compare/nearest_events.hpp>  // nearest_events, ibs_observable
#include <tagop/compare/target.hpp>          // resolve_target
#include <tagop/arm_spe/model.hpp>             // observable_conditions
#include <tagop/compare/vendor_notes.hpp>    // address_precision, sample_meaning, never_mix_caveat
#include <tagop/conditions.hpp>           // condition_table
#include <tagop/error.hpp>                // Error
#include <tagop/intel_p4/tables.hpp>      // find_metric, tagging_name
#include <tagop/predicate.hpp>            // Predicate
#include <tagop/predicate_relation.hpp>   // relation_name, contradiction_text, simplest
#include <tagop/registry.hpp>             // Registry

#include "commands.hpp"
#include "compare_counts.hpp"
#include "compare_records.hpp"
#include "event_json.hpp"
#include "output.hpp"
#include "store_sql.hpp"
#include "terminal.hpp"

namespace tagop::cli {

namespace {

using compare::address_precision;
using compare::never_mix_caveat;
using compare::sample_meaning;

using compare::Closeness;
using compare::closenesses;
using compare::FilterMatch;
using compare::Neighbour;
using compare::Target;

std::string_view group_name(Closeness g) {
  switch (g) {
    case Closeness::same: return "same";
    case Closeness::same_condition: return "same condition, different unit";
    case Closeness::narrower: return "narrower";
    case Closeness::wider: return "wider";
  }
  return "?";
}
// The key of the group's list, and each match's "relation".
static_assert(RelationNames::values.size() == std::size(closenesses), "a key for each Closeness, in its order");
std::string_view group_key(Closeness g) { return RelationNames::values[static_cast<std::size_t>(g)]; }

std::vector<CompareMatch>& list_of(CompareBackend& b, Closeness g) {
  switch (g) {
    case Closeness::same: return b.same;
    case Closeness::same_condition: return b.same_condition_different_unit;
    case Closeness::narrower: return b.narrower;
    case Closeness::wider: return b.wider;
  }
  return b.same;
}

CompareMatch match_record(const Neighbour& m) {
  CompareMatch out{{event_row(*m.entry)}, {group_key(m.closeness)}, {}, {}, address_precision(*m.entry),
                   sample_meaning(*m.entry)};
  if (m.overlap) out.overlap.emplace(*m.overlap);
  if (m.closeness == Closeness::narrower || m.closeness == Closeness::wider)
    out.conditions_apart.emplace(m.conditions_apart);
  return out;
}

void print_comparison(const std::string& text, bool all, Format format, const std::string& counts) {
  const Target target = compare::resolve_target(text);
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
  for (const compare::BackendNeighbours& n : compare::nearest_events(target)) {
    const BackendInfo& b = *n.backend;
    const std::vector<FilterMatch>& filters = n.filters;
    const bool measurable = n.measurable();
    if (format == Format::json) {
      CompareBackend jb{std::string(b.name), std::string(b.title), std::string(mechanism_name(b.mechanism)),
                        measurable, {}, {}, {}, {}, {}};
      for (Closeness g : closenesses)
        for (const Neighbour& m : n.of(g)) list_of(jb, g).push_back(match_record(m));
      for (const FilterMatch& f : filters)
        jb.filters.push_back({std::string(f.spec->name), std::string(f.spec->perf_event),
                              std::string(f.spec->population), std::string(f.spec->processors),
                              {relation_name(f.relation)}});
      out.backends.push_back(std::move(jb));
    } else if (format == Format::csv) {
      for (Closeness g : closenesses)
        for (const Neighbour& m : n.of(g))
          fmt::print("{}", csv_row({std::string(b.name), std::string(group_key(g)), std::string(m.entry->name),
                                    std::string(m.entry->code), std::string(mechanism_name(m.entry->mechanism)),
                                    m.entry->precise ? "yes" : "no", std::string(m.entry->predicate),
                                    std::string(counting_unit_name(m.entry->unit)), address_precision(*m.entry),
                                    sample_meaning(*m.entry)}));
    } else {
      fmt::print("{}\n", fit(fmt::format("{} ({})", b.name, b.title), width));
      if (n.same.empty() && n.samples_observe)
        fmt::print("{}\n", fit(fmt::format("  no table event says exactly this, but every sample observes the "
                                           "conditions: ask the samples ({})",
                                           b.name == "arm-spe" ? "tagop spe FILE --where" : "tagop report --where"),
                               width));
      else if (n.same.empty() && n.filter_answers)
        fmt::print("{}\n", fit("  no table event says exactly this, but a capture with the sampling filter below "
                               "observes it: ask its samples (tagop report --where)", width));
      for (Closeness g : closenesses) {
        const auto& list = n.of(g);
        const std::size_t shown = all ? list.size() : std::min<std::size_t>(list.size(), g == Closeness::same ? 8 : 4);
        const bool long_name = g == Closeness::same_condition;
        if (long_name && !list.empty()) fmt::print("  {}:\n", group_name(g));
        for (std::size_t i = 0; i < shown; ++i) {
          const EventEntry& e = *list[i].entry;
          fmt::print("{}\n", fit(fmt::format("  {:<9} {:<10} {:<36} {}", long_name ? "" : group_name(g), e.code, e.name,
                                             predicate_text(e)),
                                 width));
          if (g == Closeness::same || g == Closeness::same_condition) {
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
  if (b.name == "arm-spe") {
    if (c == condition("op")) return "SPE: the sample's unit";
    return arm_spe::observable_conditions().contains(c) ? "SPE: observed on its op samples" : "-";
  }
  if (b.mechanism == Mechanism::instruction_sampling) {
    if (c == condition("op") || c == condition("fetch")) return "IBS: the sample's unit";
    if (ibs_op.contains(c)) return "IBS: observed on every op sample";
    if (ibs_fetch.contains(c)) return "IBS: observed on every fetch sample";
    return "-";
  }
  return event_cell(b, c);
}

void matrix(Format format) {
  const ConditionSet ibs_op = compare::ibs_observable(SampleKind::op);
  const ConditionSet ibs_fetch = compare::ibs_observable(SampleKind::fetch);
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
  add_output_options(*cmd, o->output, true, {"sql"});
  cmd->footer("Examples:\n  tagop compare 0xF219\n  tagop compare 'load & dc.miss & !l2.miss'\n  tagop compare --matrix\n  tagop compare 'load & dc.miss' --counts counts.json   # from tagop emulate --counts\n  tagop compare 'load & dc.miss' --format sql   # asked of the store, by processor");
  cmd->callback([o] {
    if (o->output.format == "sql") {
      // The question asked of every processor of the fleet's store at once.
      if (o->matrix || o->target.empty() || !o->counts.empty())
        usage_error("--format sql asks one event or predicate of the store (not --matrix or --counts)");
      const Target target = compare::resolve_target(o->target);
      fmt::print("{}", store_question_sql(target.label, Query{target.predicate, std::nullopt}, true));
    } else if (o->matrix) {
      if (!o->target.empty()) usage_error("--matrix takes no event or predicate");
      matrix(o->output.resolved());
    } else {
      if (o->target.empty()) usage_error("compare needs an event or a predicate (or --matrix)");
      if (!o->counts.empty() && o->output.resolved() == Format::csv) usage_error("--counts works with text and JSON");
      print_comparison(o->target, o->all, o->output.resolved(), o->counts);
    }
  });
}

}  // namespace tagop::cli
