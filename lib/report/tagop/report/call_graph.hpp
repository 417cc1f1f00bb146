#pragma once
// Call graphs as perf report prints them under each row (`perf report -g
// caller|callee`): the call chains of a function's samples merged into a
// tree frame by frame (frames are functions, perf's default key), a run of
// frames without a branch kept as one node (perf's callchain_node), each
// node with its samples' share of the report's total (perf's graph mode),
// and branches below a threshold left out.
//
//   report::Report chains(reader, {.by = report::GroupBy::callchain});
//   for (const report::CallGraph& g : report::call_graphs(chains, {.order = report::CallOrder::callee}))
//     fmt::print("{:.2f}% {}\n", g.percent, chains.row(g.function).name);
//
// Thread safety: call_graphs() names rows of the report (Report::row): one
// thread uses a Report at a time.

#include <cstdint>  // std::uint32_t
#include <span>     // std::span
#include <vector>   // std::vector

#include <tagop/api.hpp>            // TAGOP_API
#include <tagop/report/report.hpp>  // Report

namespace tagop TAGOP_API {
namespace report {

/// Which end of a call chain its graph starts from.
enum class CallOrder {
  caller,  ///< from the outermost caller down to the function (perf report -g caller, its default)
  callee,  ///< from the function out to its callers (perf report -g callee)
};

/// How call_graphs() merges the chains, and which branches it keeps.
struct CallGraphOptions {
  CallOrder order = CallOrder::caller;  ///< which end of the chains the tree starts from
  /// Nodes whose samples are below this share of the report's total, in
  /// percent, are left out (perf's -g graph,0.5: its default).
  double min_percent = 0.5;
  /// perf report --children's graphs: a graph for every function of the
  /// chains, of the samples whose chains hold it (once each): its own
  /// samples' whole chains, and of its callees' samples the chain from it
  /// on, as perf draws them: down to the sample in caller order, up to the
  /// root in callee order.
  bool children = false;
};

/// A run of frames that no chain leaves, then the branches after it.
struct CallGraphNode {
  std::vector<std::uint32_t> frames;    ///< rows of the report (functions, or addresses no symbol names): Report::row names them
  double percent = 0;                   ///< the samples whose chains pass here, in percent of the report's total
  std::vector<CallGraphNode> children;  ///< the branches, highest percent first
};

/// The call chains of one function's samples.
struct CallGraph {
  std::uint32_t function = 0;        ///< the row of the chains' last frame: the function the samples are in
  double percent = 0;                ///< its samples, in percent of the report's total (perf's --no-children overhead); with children, its callees' too
  double self = 0;                   ///< its own samples, in percent (the same as `percent` without children)
  std::vector<CallGraphNode> roots;  ///< highest percent first; one, with the function's percent, when every chain starts alike
};

/// A call chain and its samples' share, as call_graphs() merges them.
struct WeightedChain {
  /// Root first, the sampled function last; each id names one function
  /// (a report's row, or an index into the caller's names).
  std::vector<std::uint32_t> frames;
  double percent = 0;  ///< its samples, in percent of the report's total
};

/// The call graphs of chains given as they are, in the order given (a
/// report's rows: highest first, as Report::select() orders them; the
/// order breaks ties between branches of equal percent): what the Report
/// overload does with a report's chains, for chains of other sources (a
/// store's, store_call_graphs()). CallGraph::function and the nodes'
/// frames are the chains' ids.
std::vector<CallGraph> call_graphs(std::span<const WeightedChain> chains, const CallGraphOptions& options = {});

/// One call graph per function that samples are in (with children, per
/// function of their chains), highest percent first (ties by the
/// function's name) (percent as Report::overhead() counts: the first event's periods,
/// or an IBS capture's samples). `chains` is a report by
/// GroupBy::callchain (tagop::Error otherwise).
std::vector<CallGraph> call_graphs(const Report& chains, const CallGraphOptions& options = {});

}  // namespace report
}  // namespace tagop
