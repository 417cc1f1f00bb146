#pragma once
// `tagop report --call-graph`: each function with the graph of its call
// chains, drawn as perf report --stdio draws it (ui/stdio/hist.c).

#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint32_t
#include <functional>  // std::function
#include <string>      // std::string
#include <vector>      // std::vector

#include <tagop/report/call_graph.hpp>  // CallGraph
#include <tagop/report/report.hpp>      // Report
#include <tagop/report/store_call_graph.hpp>  // StoreCallGraphs

namespace tagop::cli {

/// A frame of the graphs, as the report's row of its function names it.
struct GraphFrame {
  std::string name;    ///< the function (the row's name)
  std::string module;  ///< its module; "" where the row has none
  std::string drawn;   ///< in a graph: the name, or the address where no module holds it ("0x4005d0", as perf)
};

/// The frames of a report's graphs by id (CallGraph::function, the nodes'
/// frames).
using GraphFrames = std::function<GraphFrame(std::uint32_t)>;

/// A local report's frames: its rows (Report::row).
GraphFrames frames_of(const report::Report& chains);

/// A store report's frames (report::store_call_graphs()).
GraphFrames frames_of(const report::StoreCallGraphs& graphs);

/// The graph of one function as perf prints it under its row (left margin
/// 12), each line ending in '\n'; nothing when no branch is shown.
std::string draw_call_graph(const GraphFrames& frames, const report::CallGraph& graph);

/// The first `top` graphs (0: all) of at least `percent_limit`, each under
/// its function's row (with `children`, its children's and self shares).
void print_call_graphs(const GraphFrames& frames, const std::vector<report::CallGraph>& graphs, std::size_t top,
                       double percent_limit, bool children, const std::string& title);

}  // namespace tagop::cli
