#pragma once
// A profile's stacks merged into one tree, root first, for the HTML flame
// graph: each node totals the exported values (x period) of every sample
// type over the samples whose stacks pass through it.

#include <cstdint>  // std::int64_t
#include <string>   // std::string
#include <vector>   // std::vector

#include <tagop/profiles/profile.hpp>  // Profile

namespace tagop::profiles::detail {

struct FlameNode {
  std::int32_t parent = -1;  // -1 for the root
  std::uint32_t name = 0;    // index into FlameTree::names
  std::vector<std::int64_t> values;  // one per sample type
};

struct FlameTree {
  std::vector<std::string> names;  // names[0] is "all", the root's
  std::vector<FlameNode> nodes;    // nodes[0] is the root; parents before their children
  std::size_t omitted = 0;         // nodes left out as too small
  double min_fraction = 0;         // what "too small" was in the end
};

/// The tree, without nodes under `min_fraction` of every sample type's
/// total; the fraction doubles until at most `max_nodes` remain.
FlameTree build_flame_tree(const Profile& profile, double min_fraction, std::size_t max_nodes);

}  // namespace tagop::profiles::detail
