#include "flame_tree.hpp"

#include <algorithm>      // std::sort
#include <numeric>        // std::iota
#include <span>           // std::span
#include <unordered_map>  // name ids

#include "frame_names.hpp"

namespace tagop::profiles::detail {

namespace {

// Names get ids in sorted order, so that sorting stacks by their ids sorts
// them by name: the tree then comes out depth first with each node's
// children by name (as flamegraph.pl lays them out), built in one linear
// pass over the sorted stacks with no lookups.
struct NamedLocations {
  std::vector<std::string> names;                     // by id; [0] is "all"
  std::vector<std::vector<std::uint32_t>> locations;  // each location's name ids, caller first
};

NamedLocations name_locations(const Profile& profile) {
  NamedLocations out;
  const auto frame_names = all_frame_names(profile);
  std::vector<std::string> sorted;
  for (const auto& names : frame_names) sorted.insert(sorted.end(), names.begin(), names.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::unordered_map<std::string_view, std::uint32_t> ids;
  for (std::size_t i = 0; i < sorted.size(); ++i) ids.emplace(sorted[i], static_cast<std::uint32_t>(i + 1));
  for (const auto& names : frame_names) {
    std::vector<std::uint32_t>& location = out.locations.emplace_back();
    for (const std::string& name : names) location.push_back(ids.at(name));
  }
  out.names.push_back("all");
  out.names.insert(out.names.end(), std::make_move_iterator(sorted.begin()), std::make_move_iterator(sorted.end()));
  return out;
}

}  // namespace

FlameTree build_flame_tree(const Profile& profile, double min_fraction, std::size_t max_nodes) {
  const std::size_t types = profile.sample_types().size();
  NamedLocations named = name_locations(profile);

  // Every sample's path of name ids, root first, in one pool; the totals.
  std::vector<std::uint32_t> pool;
  std::vector<std::size_t> start{0};
  std::vector<std::int64_t> totals(types, 0);
  for (std::size_t s = 0; s < profile.sample_count(); ++s) {
    for (std::size_t t = 0; t < types; ++t) totals[t] = saturating_add(totals[t], profile.exported_value(s, t));
    const SampleView sample = profile.sample(s);
    for (auto location = sample.stack.rbegin(); location != sample.stack.rend(); ++location)
      pool.insert(pool.end(), named.locations[*location].begin(), named.locations[*location].end());
    start.push_back(pool.size());
  }
  auto path = [&](std::size_t s) { return std::span<const std::uint32_t>(pool.data() + start[s], start[s + 1] - start[s]); };
  std::vector<std::size_t> order(profile.sample_count());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto pa = path(a), pb = path(b);
    return std::lexicographical_compare(pa.begin(), pa.end(), pb.begin(), pb.end());
  });

  // Nodes under min_fraction of every type's total are dropped when their
  // subtree is complete: a dropped node's subtree is the array's tail.
  auto too_small = [&](const FlameNode& node) {
    for (std::size_t t = 0; t < types; ++t)
      if (totals[t] > 0 && static_cast<double>(node.values[t]) >= min_fraction * static_cast<double>(totals[t]))
        return false;
    return true;
  };
  FlameTree out;
  std::size_t dropped = 0;
  out.nodes.push_back({-1, 0, std::vector<std::int64_t>(types, 0)});
  std::vector<std::int32_t> open{0};  // the path of the last sample, root first
  auto close = [&] {
    const auto index = static_cast<std::size_t>(open.back());
    open.pop_back();
    if (too_small(out.nodes[index])) {
      dropped += out.nodes.size() - index;
      out.nodes.resize(index);
    }
  };
  std::vector<std::int64_t> values(types);
  for (std::size_t s : order) {
    bool any = false;
    for (std::size_t t = 0; t < types; ++t) any |= (values[t] = profile.exported_value(s, t)) != 0;
    if (!any) continue;
    const auto names = path(s);
    // Keep the open nodes this path shares, close the rest, open its own.
    std::size_t shared = 0;
    while (shared < names.size() && shared + 1 < open.size() &&
           out.nodes[static_cast<std::size_t>(open[shared + 1])].name == names[shared])
      ++shared;
    while (open.size() > shared + 1) close();
    for (std::size_t d = shared; d < names.size(); ++d) {
      open.push_back(static_cast<std::int32_t>(out.nodes.size()));
      out.nodes.push_back({open[open.size() - 2], names[d], std::vector<std::int64_t>(types, 0)});
    }
    for (std::int32_t node : open)
      for (std::size_t t = 0; t < types; ++t) {
        std::int64_t& value = out.nodes[static_cast<std::size_t>(node)].values[t];
        value = saturating_add(value, values[t]);
      }
  }
  while (open.size() > 1) close();

  // Still too many: raise the threshold, by doubling, until few enough remain.
  double fraction = min_fraction;
  std::vector<double> share(out.nodes.size(), 1.0);  // a node's largest share of a total, at most its parent's
  for (std::size_t i = 1; i < out.nodes.size(); ++i) {
    double largest = 0;
    for (std::size_t t = 0; t < types; ++t)
      if (totals[t] > 0) largest = std::max(largest, static_cast<double>(out.nodes[i].values[t]) / static_cast<double>(totals[t]));
    share[i] = std::min(largest, share[static_cast<std::size_t>(out.nodes[i].parent)]);
  }
  auto count_at = [&](double f) { return static_cast<std::size_t>(std::count_if(share.begin(), share.end(), [&](double x) { return x >= f; })); };
  while (count_at(fraction) > max_nodes && fraction < 1) fraction *= 2;
  if (fraction != min_fraction) {
    std::vector<std::int32_t> renumbered(out.nodes.size(), -1);
    std::vector<FlameNode> kept;
    for (std::size_t i = 0; i < out.nodes.size(); ++i) {
      if (i != 0 && share[i] < fraction) continue;
      renumbered[i] = static_cast<std::int32_t>(kept.size());
      FlameNode node = std::move(out.nodes[i]);
      if (node.parent >= 0) node.parent = renumbered[static_cast<std::size_t>(node.parent)];
      kept.push_back(std::move(node));
    }
    dropped += out.nodes.size() - kept.size();
    out.nodes = std::move(kept);
  }
  out.omitted = dropped;
  out.min_fraction = fraction;

  // Only the names the kept nodes use.
  std::vector<std::uint32_t> renamed(named.names.size(), 0);
  out.names.push_back("all");
  for (FlameNode& node : out.nodes) {
    if (node.name != 0 && renamed[node.name] == 0) {
      renamed[node.name] = static_cast<std::uint32_t>(out.names.size());
      out.names.push_back(std::move(named.names[node.name]));
    }
    node.name = renamed[node.name];
  }
  return out;
}

}  // namespace tagop::profiles::detail
