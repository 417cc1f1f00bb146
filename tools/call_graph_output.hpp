#pragma once
// `tagop report --call-graph`: each function with the graph of its call
// chains, drawn as perf report --stdio draws it (ui/stdio/hist.c).

#include <cstddef>  // std::size_t
#include <string>   // std::string
#include <vector>   // std::vector

#include <tagop/report/call_graph.hpp>  // CallGraph
#include <tagop/report/report.hpp>      // Report

namespace tagop::cli {

/// The graph of one function as perf prints it under its row (left margin
/// 12), each line ending in '\n'; nothing when no branch is shown.
std::string draw_call_graph(const report::Report& chains, const report::CallGraph& graph);

/// The first `top` graphs (0: all) of at least `percent_limit`, each under
/// its function's row (with `children`, its children's and self shares).
void print_call_graphs(const report::Report& chains, const std::vector<report::CallGraph>& graphs, std::size_t top,
                       double percent_limit, bool children, const std::string& title);

}  // namespace tagop::cli
