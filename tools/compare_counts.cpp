#include "compare_counts.hpp"

#include <fmt/format.h>  // fmt::print

#include <tagop/emulate/counts_file.hpp>  // read_counts_file
#include <tagop/predicate_relation.hpp>   // relation
#include <tagop/text.hpp>                 // printable

#include "terminal.hpp"

namespace tagop::cli {

namespace {

// The model's events that measure exactly the target.
std::vector<const emulate::CountsFile::Event*> same_events(const emulate::CountsFile::Model& m, const Predicate& target) {
  std::vector<const emulate::CountsFile::Event*> out;
  for (const auto& e : m.events) {
    if (e.predicate.empty()) continue;
    const Predicate p = Predicate::parse(e.kind == SampleKind::fetch ? "fetch" : "op") & Predicate::parse(e.predicate);
    if (relation(p, target) == Relation::same) out.push_back(&e);
  }
  return out;
}

std::uint64_t of_kind(const emulate::CountsFile::Model& m, const Predicate& target) {
  return target.used().contains(condition("fetch")) ? m.fetches : m.ops;
}

}  // namespace

MeasuredCounts measured_counts(const Predicate& target, const std::string& counts_file) {
  const emulate::CountsFile file = emulate::read_counts_file(counts_file);
  MeasuredCounts out{counts_file, file.command, {}, {}};
  for (const auto& m : file.models) {
    MeasuredModel model{m.model, m.backend, m.count(target), of_kind(m, target), {}};
    for (const auto* e : same_events(m, target)) model.same_events.push_back({e->name, e->code, e->count});
    out.models.push_back(std::move(model));
  }
  return out;
}

void print_measured_counts(const Predicate& target, const std::string& counts_file, std::size_t width) {
  const emulate::CountsFile file = emulate::read_counts_file(counts_file);
  // Names from the file: printable, as every name a file gives.
  const auto say = [&](const std::string& line) { fmt::print("{}\n", fit(printable(line), width)); };
  say(fmt::format("measured, emulated: '{}' ({})", file.command, counts_file));
  for (const auto& m : file.models) {
    const auto count = m.count(target);
    const std::uint64_t of = of_kind(m, target);
    if (!count) {
      say(fmt::format("  {} ({}): not modelled (the model does not decide every condition)", m.model, m.backend));
      continue;
    }
    say(fmt::format("  {} ({}): {} of {} {} ({:.2f}%)", m.model, m.backend, *count, of,
                    target.used().contains(condition("fetch")) ? "fetches" : "ops",
                    of ? 100.0 * static_cast<double>(*count) / static_cast<double>(of) : 0.0));
    for (const auto* e : same_events(m, target))
      say(fmt::format("      {} {}: {}", e->code, e->name,
                      e->count ? fmt::format("{}", *e->count) : std::string("not modelled")));
  }
  fmt::print("\n");
}

}  // namespace tagop::cli
