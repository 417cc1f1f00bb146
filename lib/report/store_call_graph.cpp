#include <tagop/report/store_call_graph.hpp>

#include <algorithm>      // std::stable_sort
#include <string>         // std::string
#include <unordered_map>  // frame ids by name and module

#include <tagop/error.hpp>           // Error
#include <tagop/report/columns.hpp>  // resolve_event_column

namespace tagop::report {

StoreCallGraphs store_call_graphs(const StoreReport& chains, const CallGraphOptions& options) {
  StoreCallGraphs out;
  if (chains.rows.empty()) return out;
  // A function is its name in its module, as a local report's row by function.
  std::unordered_map<std::string, std::uint32_t> ids;
  std::vector<WeightedChain> weighted;
  const Column all = chains.ibs ? resolve_column("samples") : resolve_event_column(chains.query_names, "samples");
  for (const std::size_t i : store_row_order(chains, all)) {
    const StoreRow& row = chains.rows[i];
    if (row.frames.empty()) throw Error("store_call_graphs: the report's rows are not by call chain");
    WeightedChain& chain = weighted.emplace_back();
    chain.percent = store_overhead(chains, row.results);
    for (const StoreFrameName& frame : row.frames) {
      const auto [it, fresh] = ids.try_emplace(frame.name + '\x1E' + frame.module, static_cast<std::uint32_t>(out.frames.size()));
      if (fresh) out.frames.push_back(frame);
      chain.frames.push_back(it->second);
    }
  }
  out.graphs = call_graphs(weighted, options);
  // Ties by name, as the local report's graphs.
  std::stable_sort(out.graphs.begin(), out.graphs.end(), [&](const CallGraph& a, const CallGraph& b) {
    return a.percent != b.percent ? a.percent > b.percent : out.frames[a.function].name < out.frames[b.function].name;
  });
  return out;
}

}  // namespace tagop::report
