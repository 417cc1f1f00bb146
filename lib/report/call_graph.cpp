#include <tagop/report/call_graph.hpp>

#include <algorithm>  // std::stable_sort, std::reverse
#include <map>        // std::map
#include <memory>     // std::unique_ptr
#include <span>       // std::span
#include <string>     // std::string
#include <unordered_map>  // the graphs' names

#include <tagop/error.hpp>           // Error
#include <tagop/report/columns.hpp>  // resolve_column, resolve_event_column

namespace tagop::report {

namespace {

// A frame of the merged chains, before runs are joined into nodes.
struct Trie {
  std::uint32_t frame = 0;
  double own = 0, through = 0;  // chains that end here; that pass here (own included)
  std::vector<std::unique_ptr<Trie>> children;  // in the order they were met, as perf's list

  Trie& child(std::uint32_t f) {
    for (auto& c : children)
      if (c->frame == f) return *c;
    children.push_back(std::make_unique<Trie>());
    children.back()->frame = f;
    return *children.back();
  }
};

// perf's callchain_node: a frame and the frames after it while exactly one
// chain goes on and none ends; then its branches, those below `min`
// left out.
CallGraphNode node_of(const Trie* t, double min) {
  CallGraphNode n;
  n.percent = t->through;
  n.frames.push_back(t->frame);
  while (t->children.size() == 1 && t->own == 0) {
    t = t->children.front().get();
    n.frames.push_back(t->frame);
  }
  for (const auto& c : t->children)
    if (c->through >= min) n.children.push_back(node_of(c.get(), min));
  std::stable_sort(n.children.begin(), n.children.end(),
                   [](const CallGraphNode& a, const CallGraphNode& b) { return a.percent > b.percent; });
  return n;
}

}  // namespace

std::vector<CallGraph> call_graphs(const Report& chains, const CallGraphOptions& options) {
  if (chains.by() != GroupBy::callchain) throw Error("call graphs are made from a report by call chain");
  const Column all = chains.ibs() ? resolve_column("samples") : resolve_event_column(chains.query_names(), "samples");
  std::vector<WeightedChain> weighted;
  for (const std::uint32_t id : chains.select(all, 0))
    weighted.push_back({chains.frames(id), chains.overhead(chains.row(id).results)});  // frames root first
  std::vector<CallGraph> graphs = call_graphs(weighted, options);
  // Ties by name, as the report's rows (the ids' order is the capture's).
  std::unordered_map<std::uint32_t, std::string> names;
  for (const CallGraph& g : graphs) names.emplace(g.function, chains.row(g.function).name);
  std::stable_sort(graphs.begin(), graphs.end(), [&](const CallGraph& a, const CallGraph& b) {
    return a.percent != b.percent ? a.percent > b.percent : names[a.function] < names[b.function];
  });
  return graphs;
}

std::vector<CallGraph> call_graphs(std::span<const WeightedChain> chains, const CallGraphOptions& options) {
  // One trie per function, by the chains' last frame.
  std::map<std::uint32_t, Trie> by_function;
  // Adds a chain (root first) to `function`'s graph, in the order asked.
  const auto add = [&](std::uint32_t function, std::span<const std::uint32_t> frames, double percent) {
    Trie* at = &by_function[function];
    at->through += percent;
    const auto step = [&](std::uint32_t f) {
      at = &at->child(f);
      at->through += percent;
    };
    if (options.order == CallOrder::caller) std::for_each(frames.begin(), frames.end(), step);
    else std::for_each(frames.rbegin(), frames.rend(), step);
    at->own += percent;
  };
  std::map<std::uint32_t, double> self;
  std::vector<std::uint32_t> seen;
  for (const WeightedChain& weighted : chains) {
    const std::vector<std::uint32_t>& frames = weighted.frames;
    if (frames.empty()) continue;
    const double percent = weighted.percent;
    add(frames.back(), frames, percent);
    self[frames.back()] += percent;
    if (!options.children) continue;
    // Each caller once, with the rest of the chain from it on in the
    // order asked (perf's snapshot of its cursor there): in caller order
    // down to the sample, in callee order up to the root. The chain is
    // walked in that order too, and a function met again is left out (as
    // perf's entry cache does): the outermost call of a recursion in
    // caller order, the innermost in callee order.
    seen.assign(1, frames.back());
    const std::span<const std::uint32_t> chain(frames);
    const auto take = [&](std::size_t i) {
      if (std::find(seen.begin(), seen.end(), frames[i]) != seen.end()) return;
      seen.push_back(frames[i]);
      add(frames[i], options.order == CallOrder::caller ? chain.subspan(i) : chain.first(i + 1), percent);
    };
    if (options.order == CallOrder::caller)
      for (std::size_t i = 0; i + 1 < frames.size(); ++i) take(i);
    else
      for (std::size_t i = frames.size() - 1; i-- > 0;) take(i);
  }
  std::vector<CallGraph> graphs;
  for (const auto& [function, top] : by_function) {
    CallGraph g{.function = function, .percent = top.through, .self = self[function], .roots = {}};
    for (const auto& c : top.children)
      if (c->through >= options.min_percent) g.roots.push_back(node_of(c.get(), options.min_percent));
    std::stable_sort(g.roots.begin(), g.roots.end(),
                     [](const CallGraphNode& a, const CallGraphNode& b) { return a.percent > b.percent; });
    graphs.push_back(std::move(g));
  }
  std::stable_sort(graphs.begin(), graphs.end(),
                   [](const CallGraph& a, const CallGraph& b) { return a.percent > b.percent; });
  return graphs;
}

}  // namespace tagop::report
