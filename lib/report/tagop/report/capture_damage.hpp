#pragma once
// What a damaged capture's reading met, in words: what `tagop report
// --strict` refuses a capture for, and what ingest keeps of each capture
// (the captures' table's `damage`) for `report --source --strict`.
//
//   const perf_data::ReadSummary summary = reader.read(handler);
//   if (auto d = report::capture_damage(reader.info(), summary, summary.skipped.count); !d.empty())
//     fmt::print("damaged: {}\n", d);   // "3 records skipped, the file truncated"
//
// Thread safety: reads its arguments only.

#include <cstdint>  // std::uint64_t
#include <string>   // std::string

#include <tagop/api.hpp>               // TAGOP_API
#include <tagop/perf_data_reader.hpp>  // FileInfo, ReadSummary

namespace tagop TAGOP_API {
namespace report {

/// The damage the reader and the decoder met, joined by commas: records
/// skipped (`skipped`: the reader's and the decoder's), bytes of the data
/// section not read, the file truncated or shrunk while it was read, its
/// feature sections damaged; "" for an intact capture.
std::string capture_damage(const perf_data::FileInfo& info, const perf_data::ReadSummary& summary,
                           std::uint64_t skipped);

}  // namespace report
}  // namespace tagop
