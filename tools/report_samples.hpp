#pragma once
// `tagop report` of a file without IBS events (cpu-clock, cycles, any
// event perf or `tagop record` sampled): samples counted by row, since
// there is nothing to decode or derive.

#include <cstddef>  // std::size_t
#include <string>   // std::string

#include <tagop/perf_data_reader.hpp>  // PerfDataReader, FileInfo

#include "output.hpp"          // Format
#include "report_builder.hpp"  // RowKind, ReportFilters

namespace tagop::cli {

/// Whether IbsCapture would find an IBS event in the file: an event of the
/// ibs_op or ibs_fetch PMU, or (without PMU mappings) a raw-sampling event
/// of a dynamic PMU.
bool holds_ibs_events(const perf_data::FileInfo& info);

/// Reads every sample and prints the rows with their sample counts, and
/// the reader's warnings; returns what the reader met.
perf_data::ReadSummary report_plain_samples(perf_data::PerfDataReader& reader, const std::string& file, RowKind by,
                          ReportFilters filters, std::size_t top, Format format);

}  // namespace tagop::cli
