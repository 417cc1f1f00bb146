#pragma once
// The names of call chains' frames from the store's frames' table, as a
// local report's rows by call chain name them: shared by the reports of
// captures without IBS (store_chains.cpp) and of IBS captures
// (store_report.cpp).

#include <cstdint>  // std::uint64_t
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

#include <tagop/profiles/clickhouse.hpp>  // ClickHouseServer
#include <tagop/report/store_report.hpp>  // StoreFrameName, StoreReportOptions

namespace tagop::report::detail {

/// Where a sample was taken: what its row by call chain is made of.
struct ChainPlace {
  std::uint64_t capture = 0;
  std::uint32_t pid = 0;
  std::uint64_t ip = 0;
  std::vector<std::uint64_t> chain;  ///< the chain's addresses, as the store keeps them
};

/// "[1,2,3]": an Array(UInt64) as TabSeparated writes it; throws
/// tagop::Error naming the server for anything else.
std::vector<std::uint64_t> chain_addresses(const profiles::ClickHouseServer& server, const std::string& text);

/// Each place's row by call chain, as store_chain_report() makes it (the
/// sample's own frame, then its chain's, at most `options.max_stack` of
/// them), its frames root first: named as rows by function name them, or
/// (`by_module`) as rows by module. Throws tagop::Error naming a capture the
/// frames' table has no names of.
std::vector<std::vector<StoreFrameName>> chain_rows(const profiles::ClickHouseServer& server,
                                                    const StoreReportOptions& options,
                                                    std::span<const ChainPlace> places, bool by_module = false);

}  // namespace tagop::report::detail
