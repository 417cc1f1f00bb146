#pragma once
// The progress bar of a command that reads a large capture.

#include <cstdint>     // std::uint64_t
#include <functional>  // std::function
#include <string>      // std::string

#include <tagop/perf_data_reader.hpp>  // PerfDataReader

namespace tagop::cli {

/// A progress bar on stderr for reading `reader`'s data (drawn only on a
/// terminal): a callback for report::Options::progress, or none when
/// stderr is not a terminal.
std::function<void(std::uint64_t, std::uint64_t)> progress_of(const perf_data::PerfDataReader& reader,
                                                               const std::string& label);

}  // namespace tagop::cli
