#include "flame_tree.hpp"

#include <algorithm>      // std::sort
#include <unordered_map>  // children by (parent, name)

#include "frame_names.hpp"

namespace tagop::profiles::detail {

namespace {

/// The whole tree, flat: node i's values are values[i * types ...].
struct FullTree {
  std::vector<std::int32_t> parent{-1};
  std::vector<std::uint32_t> name{0};
  std::vector<std::int64_t> values;
};

std::vector<bool> kept_nodes(const FullTree& tree, std::size_t types, double fraction, std::size_t& count) {
  const std::size_t n = tree.parent.size();
  std::vector<bool> keep(n, false);
  keep[0] = true;
  count = 1;
  for (std::size_t i = 1; i < n; ++i) {
    if (!keep[static_cast<std::size_t>(tree.parent[i])]) continue;
    for (std::size_t t = 0; t < types && !keep[i]; ++t) {
      const double total = static_cast<double>(tree.values[t]);
      keep[i] = total > 0 && static_cast<double>(tree.values[i * types + t]) >= fraction * total;
    }
    count += keep[i];
  }
  return keep;
}

}  // namespace

FlameTree build_flame_tree(const Profile& profile, double min_fraction, std::size_t max_nodes) {
  const std::size_t types = profile.sample_types().size();
  FlameTree out;
  out.names.push_back("all");

  // Each location's frame names as ids, caller first.
  std::unordered_map<std::string, std::uint32_t> name_ids{{"all", 0}};
  std::vector<std::vector<std::uint32_t>> location_names;
  for (const auto& names : all_frame_names(profile)) {
    std::vector<std::uint32_t>& ids = location_names.emplace_back();
    for (const std::string& name : names) {
      auto [it, added] = name_ids.try_emplace(name, static_cast<std::uint32_t>(out.names.size()));
      if (added) out.names.push_back(name);
      ids.push_back(it->second);
    }
  }

  FullTree tree;
  tree.values.assign(types, 0);
  std::unordered_map<std::uint64_t, std::int32_t> child_of;  // (parent << 32 | name) -> node
  std::vector<std::int64_t> values(types);
  for (std::size_t s = 0; s < profile.sample_count(); ++s) {
    bool any = false;
    for (std::size_t t = 0; t < types; ++t) any |= (values[t] = profile.exported_value(s, t)) != 0;
    if (!any) continue;
    const SampleView sample = profile.sample(s);
    std::int32_t node = 0;
    auto add = [&](std::int32_t n) {
      for (std::size_t t = 0; t < types; ++t) tree.values[static_cast<std::size_t>(n) * types + t] += values[t];
    };
    add(0);
    for (auto location = sample.stack.rbegin(); location != sample.stack.rend(); ++location)
      for (std::uint32_t name : location_names[*location]) {
        const std::uint64_t key = (static_cast<std::uint64_t>(node) << 32) | name;
        auto [it, added] = child_of.try_emplace(key, static_cast<std::int32_t>(tree.parent.size()));
        if (added) {
          tree.parent.push_back(node);
          tree.name.push_back(name);
          tree.values.resize(tree.values.size() + types, 0);
        }
        node = it->second;
        add(node);
      }
  }

  // Leave out what is too small to see, more if there is still too much.
  std::size_t count = 0;
  double fraction = min_fraction;
  std::vector<bool> keep = kept_nodes(tree, types, fraction, count);
  while (count > max_nodes && fraction < 1) keep = kept_nodes(tree, types, fraction *= 2, count);
  out.omitted = tree.parent.size() - count;
  out.min_fraction = fraction;

  // Depth first, children by name, so that the page lays them out as
  // flamegraph.pl does and every parent comes before its children.
  std::vector<std::vector<std::int32_t>> children(tree.parent.size());
  for (std::size_t i = 1; i < tree.parent.size(); ++i)
    if (keep[i]) children[static_cast<std::size_t>(tree.parent[i])].push_back(static_cast<std::int32_t>(i));
  std::vector<std::pair<std::int32_t, std::int32_t>> stack{{0, -1}};  // (full-tree node, its parent's new index)
  while (!stack.empty()) {
    const auto [node, parent] = stack.back();
    stack.pop_back();
    const auto n = static_cast<std::size_t>(node);
    const auto index = static_cast<std::int32_t>(out.nodes.size());
    out.nodes.push_back({parent, tree.name[n],
                         {tree.values.begin() + static_cast<std::ptrdiff_t>(n * types),
                          tree.values.begin() + static_cast<std::ptrdiff_t>((n + 1) * types)}});
    auto& kids = children[n];
    std::sort(kids.begin(), kids.end(), [&](std::int32_t a, std::int32_t b) {
      return out.names[tree.name[static_cast<std::size_t>(a)]] > out.names[tree.name[static_cast<std::size_t>(b)]];
    });  // reversed: the stack pops the first name first
    for (std::int32_t kid : kids) stack.emplace_back(kid, index);
  }

  // Only the names the kept nodes use.
  std::vector<std::string> used{"all"};
  std::vector<std::uint32_t> renamed(out.names.size(), 0);
  std::vector<bool> seen(out.names.size(), false);
  for (FlameNode& node : out.nodes) {
    if (node.name != 0 && !seen[node.name]) {
      seen[node.name] = true;
      renamed[node.name] = static_cast<std::uint32_t>(used.size());
      used.push_back(std::move(out.names[node.name]));
    }
    node.name = renamed[node.name];
  }
  out.names = std::move(used);
  return out;
}

}  // namespace tagop::profiles::detail
