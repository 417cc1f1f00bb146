#include "allocation.hpp"

#include <algorithm>  // std::fill
#include <span>       // std::span

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::intel_p4::detail {

namespace {

// Bipartite matching of demands to resources (Kuhn's augmenting paths).
// A demand that finds no augmenting path proves the resources it could
// reach are too few for the demands holding them (Hall's condition), which
// is exactly what a refusal should name.
class Matcher {
 public:
  Matcher(const std::vector<std::vector<int>>& options, std::size_t resources)
      : options_(options), owner_(resources, -1), visited_(resources, false) {}

  /// True when demand `d` got a resource; else visited() holds the
  /// resources that are all taken by demands with no other choice.
  bool place(int d) {
    std::fill(visited_.begin(), visited_.end(), false);
    return augment(d);
  }
  const std::vector<bool>& visited() const { return visited_; }
  const std::vector<int>& owner() const { return owner_; }

 private:
  bool augment(int d) {
    const std::vector<int>& options = options_[static_cast<std::size_t>(d)];
    // A free resource first, so that earlier demands keep their first
    // choice whenever the later ones fit around them.
    for (int r : options) {
      const auto ri = static_cast<std::size_t>(r);
      if (owner_[ri] < 0 && !visited_[ri]) {
        visited_[ri] = true;
        owner_[ri] = d;
        return true;
      }
    }
    for (int r : options) {
      const auto ri = static_cast<std::size_t>(r);
      if (visited_[ri]) continue;
      visited_[ri] = true;
      if (augment(owner_[ri])) {
        owner_[ri] = d;
        return true;
      }
    }
    return false;
  }

  const std::vector<std::vector<int>>& options_;
  std::vector<int> owner_;
  std::vector<bool> visited_;
};

template <class Name>
[[noreturn]] void refuse(const std::vector<Demand>& demands, int failed, const Matcher& m, const char* what,
                         Name resource_name) {
  std::string labels = demands[static_cast<std::size_t>(failed)].label;
  std::string resources;
  std::size_t count = 0;
  for (std::size_t r = 0; r < m.visited().size(); ++r) {
    if (!m.visited()[r]) continue;
    ++count;
    resources += (resources.empty() ? "" : ", ") + resource_name(r);
    if (m.owner()[r] >= 0) labels += "; " + demands[static_cast<std::size_t>(m.owner()[r])].label;
  }
  if (count == 0)
    throw Error(fmt::format("cannot place {}: no {} is left that it may use", labels, what));
  throw Error(fmt::format("cannot fit these events together: {} ({} events, but only {} {}{} they may use: {})",
                          labels, count + 1, count, what, count == 1 ? "" : "s", resources));
}

}  // namespace

std::vector<Placement> allocate(const std::vector<Demand>& demands) {
  const std::span<const EscrSpec> escrs = escr_table();
  auto escr_index = [&](const EscrSpec* x) { return static_cast<int>(x - escrs.data()); };

  // ESCRs first. Counters cannot then run short except where PEBS pins
  // counter 16: every ESCR pair reaches counters of its own, and at most
  // two of the ESCRs sharing a counter group need a counter (the third is
  // the tag-only RAT ESCR), so matching ESCRs, then counters, finds a
  // placement whenever one exists.
  std::vector<std::vector<int>> escr_options;
  for (const Demand& d : demands) {
    std::vector<int> options;
    for (const EscrSpec* x : d.escrs)
      if (!d.pebs || x->name == "CRU_ESCR2") options.push_back(escr_index(x));
    escr_options.push_back(std::move(options));
  }
  Matcher escr_matcher(escr_options, escrs.size());
  for (std::size_t d = 0; d < demands.size(); ++d)
    if (!escr_matcher.place(static_cast<int>(d)))
      refuse(demands, static_cast<int>(d), escr_matcher, "ESCR",
             [&](std::size_t r) { return std::string(escrs[r].name); });

  std::vector<Placement> out(demands.size());
  for (std::size_t r = 0; r < escrs.size(); ++r)
    if (escr_matcher.owner()[r] >= 0) out[static_cast<std::size_t>(escr_matcher.owner()[r])].escr = &escrs[r];

  const std::size_t counter_count = counter_table().size();
  std::vector<std::vector<int>> counter_options(demands.size());
  for (std::size_t d = 0; d < demands.size(); ++d) {
    if (!demands[d].needs_counter) continue;
    for (unsigned c = 0; c < counter_count; ++c) {
      if (!((out[d].escr->counters >> c) & 1) || c == unusable_counter) continue;
      if (demands[d].pebs && c != pebs_counter) continue;
      counter_options[d].push_back(static_cast<int>(c));
    }
  }
  Matcher counter_matcher(counter_options, counter_count);
  for (std::size_t d = 0; d < demands.size(); ++d)
    if (demands[d].needs_counter && !counter_matcher.place(static_cast<int>(d)))
      refuse(demands, static_cast<int>(d), counter_matcher, "counter",
             [](std::size_t r) { return std::string(counter_table()[r].counter_name); });
  for (std::size_t c = 0; c < counter_count; ++c)
    if (counter_matcher.owner()[c] >= 0) out[static_cast<std::size_t>(counter_matcher.owner()[c])].counter = static_cast<int>(c);
  return out;
}

}  // namespace tagop::intel_p4::detail
