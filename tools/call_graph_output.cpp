#include "call_graph_output.hpp"

#include <charconv>  // std::from_chars

#include <fmt/format.h>  // fmt::format, fmt::print

#include "output.hpp"  // printable

namespace tagop::cli {

namespace {

using report::CallGraphNode;

// perf's drawing, with its names: the depth mask has a bit per level whose
// branches go on below (a '|' in that column), a node's first frame
// carries its percent ("--66.94%--"), the frames after it line up under it.
class Drawing {
 public:
  explicit Drawing(const GraphFrames& frames) : frames_(frames) {}

  std::string text;

  std::string name(std::uint32_t frame) const { return printable(frames_(frame).drawn); }

  void margin(int left) { text.append(12 + static_cast<std::size_t>(left), ' '); }

  // ipchain__fprintf_graph_line
  void graph_line(int depth, unsigned mask, int left) {
    margin(left);
    for (int i = 0; i < depth; ++i) text += mask & (1u << i) ? "|          " : "           ";
    text += '\n';
  }

  // ipchain__fprintf_graph
  void frame_line(const CallGraphNode& node, std::uint32_t frame, bool first, int depth, unsigned mask, int left) {
    margin(left);
    for (int i = 0; i < depth; ++i) {
      text += mask & (1u << i) ? '|' : ' ';
      if (first && i == depth - 1) text += fmt::format("--{:.2f}%--", node.percent);
      else text += "          ";
    }
    text += name(frame);
    text += '\n';
  }

  // __callchain__fprintf_graph (graph mode, percentages of the total)
  void branches(const std::vector<CallGraphNode>& nodes, int depth, unsigned mask, int left) {
    unsigned new_mask = mask;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      const CallGraphNode& child = nodes[k];
      if (k + 1 == nodes.size()) new_mask &= ~(1u << (depth - 1));
      graph_line(depth, mask, left);
      for (std::size_t f = 0; f < child.frames.size(); ++f)
        frame_line(child, child.frames[f], f == 0, depth, new_mask, left);
      branches(child.children, depth + 1, new_mask | (1u << depth), left);
    }
  }

 private:
  const GraphFrames& frames_;
};

// A frame no module holds is its address, as perf prints it ("%#lx").
std::string unknown_address(std::uint64_t address) { return address ? fmt::format("{:#x}", address) : "0"; }

}  // namespace

GraphFrames frames_of(const report::Report& chains) {
  return [&chains](std::uint32_t frame) {
    report::Row row = chains.row(frame);
    std::string drawn = row.module == "[unknown]" && row.has_offset ? unknown_address(row.offset) : row.name;
    return GraphFrame{std::move(row.name), std::move(row.module), std::move(drawn)};
  };
}

GraphFrames frames_of(const report::StoreCallGraphs& graphs) {
  return [&graphs](std::uint32_t frame) {
    const report::StoreFrameName& f = graphs.frames.at(frame);
    // Named "[unknown]+0x<address>", as the local row.
    constexpr std::string_view unknown = "[unknown]+0x";
    std::string drawn = f.name;
    std::uint64_t address = 0;
    const char* end = f.name.data() + f.name.size();
    if (f.module == "[unknown]" && f.name.starts_with(unknown) &&
        std::from_chars(f.name.data() + unknown.size(), end, address, 16).ptr == end)
      drawn = unknown_address(address);
    return GraphFrame{f.name, f.module, std::move(drawn)};
  };
}

std::string draw_call_graph(const GraphFrames& frames, const report::CallGraph& graph) {
  Drawing d(frames);
  int left = 0;
  const std::vector<CallGraphNode>* rest = &graph.roots;
  // One root with all of the function's samples: drawn as a stem ("---"),
  // without a percent (callchain__fprintf_graph's need_percent_display).
  if (graph.roots.size() == 1 && graph.roots.front().percent == graph.percent) {
    const CallGraphNode& root = graph.roots.front();
    for (std::size_t f = 0; f < root.frames.size(); ++f) {
      if (f == 0) {
        d.margin(left);
        d.text += "|\n";
        d.margin(left);
        d.text += "---";
        left += 3;
      } else {
        d.margin(left);
      }
      d.text += d.name(root.frames[f]);
      d.text += '\n';
    }
    rest = &root.children;
  }
  d.branches(*rest, 1, 1, left);
  return d.text;
}

void print_call_graphs(const GraphFrames& frames, const std::vector<report::CallGraph>& graphs, std::size_t top,
                       double percent_limit, bool children, const std::string& title) {
  fmt::print("{}\n\n", title);
  std::size_t shown = 0;
  for (const report::CallGraph& g : graphs) {
    if (g.percent < percent_limit || (top && shown == top)) break;
    ++shown;
    const GraphFrame row = frames(g.function);
    // perf's columns: with children, the children's share, then the self.
    fmt::print("{:>9.2f}%  {}{}{}\n", g.percent, children ? fmt::format("{:>6.2f}%  ", g.self) : "",
               printable(row.name), row.module.empty() ? "" : fmt::format("  ({})", printable(row.module)));
    const std::string drawn = draw_call_graph(frames, g);
    // perf ends a drawn graph with an empty line.
    if (!drawn.empty()) fmt::print("{}\n", drawn);
  }
}

}  // namespace tagop::cli
