#include <tagop/report/call_graph.hpp>

#include <algorithm>  // std::stable_sort, std::reverse
#include <map>        // std::map
#include <memory>     // std::unique_ptr

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
  // One trie per function, by the chains' last frame.
  std::map<std::uint32_t, Trie> by_function;
  for (const std::uint32_t id : chains.select(all, 0)) {
    std::vector<std::uint32_t> frames = chains.frames(id);  // root first
    if (frames.empty()) continue;
    const double percent = chains.overhead(chains.row(id).results);
    Trie& top = by_function[frames.back()];
    top.through += percent;
    if (options.order == CallOrder::callee) std::reverse(frames.begin(), frames.end());
    Trie* at = &top;
    for (const std::uint32_t f : frames) {
      at = &at->child(f);
      at->through += percent;
    }
    at->own += percent;
  }
  std::vector<CallGraph> graphs;
  for (const auto& [function, top] : by_function) {
    CallGraph g{.function = function, .percent = top.through, .roots = {}};
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
