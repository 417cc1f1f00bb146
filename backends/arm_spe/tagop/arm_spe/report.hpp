#pragma once
// An SPE capture's derived events: totals over the capture and rows by
// instruction address, as `tagop spe` prints them (IBS captures go through
// `tagop report`, whose engine reads IBS samples only).
//
//   SpeReport r = report_spe_capture("spe.data", {.where = Predicate::parse("load")});
//   for (std::size_t i = 0; i < r.events.size(); ++i) ... derived_event_table()[i], r.totals[i]
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint64_t
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/arm_spe/perf_capture.hpp>  // decode_spe_capture
#include <tagop/engine.hpp>                // QueryResult
#include <tagop/predicate.hpp>             // Predicate

namespace tagop TAGOP_API {
namespace arm_spe {

/// What to report.
struct SpeReportOptions {
  Predicate where{};            ///< only the samples this selects (decided true)
  std::size_t max_rows = 20;    ///< instruction addresses, most samples first; 0: none
  std::optional<DataSourceEncoding> encoding{};  ///< as decode_spe_capture
};

/// One instruction address's samples and its derived events.
struct SpeReportRow {
  std::uint64_t ip = 0;       ///< the instruction address
  std::uint64_t samples = 0;  ///< samples there (that `where` selects)
  std::vector<QueryResult> events;  ///< by derived_event_table() index
};

/// An SPE capture's derived events.
struct SpeReport {
  std::uint64_t records = 0;   ///< SPE records in the capture
  std::uint64_t selected = 0;  ///< of them, those `where` selects
  std::uint32_t pmu_type = 0;  ///< the arm_spe PMU's type, from AUXTRACE_INFO
  std::optional<std::uint64_t> midr;  ///< the recording processor's MIDR_EL1, where the file says
  DataSourceEncoding encoding = DataSourceEncoding::unknown;  ///< how data sources were read
  std::vector<QueryResult> totals;  ///< by derived_event_table() index, over the selected samples
  std::vector<SpeReportRow> rows;   ///< most samples first
  std::vector<std::string> problems;  ///< damaged packets (decode_spe_capture's)
};

/// Decodes the capture and counts every derived event over the samples
/// `where` selects. Throws tagop::Error as decode_spe_capture does.
SpeReport report_spe_capture(const std::string& path, const SpeReportOptions& options = {});

}  // namespace arm_spe
}  // namespace tagop
