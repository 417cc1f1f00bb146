#pragma once
// Call graphs of the store's call chains (tagop report --source
// --call-graph), as call_graphs() draws a local report's: the rows of a
// store report by call chain merged frame by frame, each frame a function
// named as the local report's row of it.
//
//   const auto chains = report::store_report(server, {.keys = {report::GroupBy::callchain}});
//   const report::StoreCallGraphs g = report::store_call_graphs(chains, {.order = report::CallOrder::callee});
//   for (const report::CallGraph& graph : g.graphs)
//     fmt::print("{:.2f}% {}\n", graph.percent, g.frames[graph.function].name);
//
// Thread safety: reads its arguments only.

#include <vector>  // std::vector

#include <tagop/api.hpp>                  // TAGOP_API
#include <tagop/report/call_graph.hpp>    // CallGraph, CallGraphOptions
#include <tagop/report/store_report.hpp>  // StoreReport, StoreFrameName

namespace tagop TAGOP_API {
namespace report {

/// The call graphs of a store report and the names of their frames.
struct StoreCallGraphs {
  /// As call_graphs() of a local report by call chain: highest percent
  /// first, ties by the function's name.
  std::vector<CallGraph> graphs;
  /// By frame id (CallGraph::function, CallGraphNode::frames): the function
  /// and its module ([kernel] or [unknown] where no mapping holds it).
  std::vector<StoreFrameName> frames;
};

/// The call graphs of `chains`, a store report by call chain
/// (store_chain_report()): its rows in the local report's order
/// (store_row_order() by samples), each row's share as store_overhead()
/// counts it, a frame per distinct function and module. Throws
/// tagop::Error for a report whose rows are not by call chain.
StoreCallGraphs store_call_graphs(const StoreReport& chains, const CallGraphOptions& options = {});

}  // namespace report
}  // namespace tagop
