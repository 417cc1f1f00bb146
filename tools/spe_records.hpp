#pragma once
// The record that `tagop spe --json` prints, declared once: its JSON and
// schemas/spe.schema.json come from this declaration (record.hpp);
// tests/contract checks the file.

#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "record.hpp"

namespace tagop::cli {

/// Each derived event's value by its name: a count, or a latency event's
/// sum; null where the samples could not tell.
using SpeEventValues = record::Entries<std::optional<std::uint64_t>>;

/// One SPE derived event, as the table defines it.
struct SpeEventRecord {
  BOOST_HANA_DEFINE_STRUCT(SpeEventRecord,
    (std::string, name),                       // "SPE L1D refill loads"
    (record::Maybe<std::string>, perf_event),  // perf --itrace's event for the same samples ("l1d-miss")
    (std::string, predicate),
    (record::Maybe<std::string>, sums));       // the measure a latency event sums
};

/// One instruction address's samples.
struct SpeRowRecord {
  BOOST_HANA_DEFINE_STRUCT(SpeRowRecord,
    (record::Hex, ip),
    (std::uint64_t, samples),
    (SpeEventValues, values));
};

/// `tagop spe FILE --json`.
struct SpeRecord {
  BOOST_HANA_DEFINE_STRUCT(SpeRecord,
    (std::string, file),
    (std::uint64_t, records),                 // SPE records in the capture
    (std::uint64_t, selected),                // of them, those --where selects
    (record::Maybe<std::string>, where),
    (std::uint32_t, pmu_type),                // the arm_spe PMU's type, from AUXTRACE_INFO
    (std::optional<record::Hex>, midr),       // the recording processor's MIDR_EL1
    (std::string, data_sources),              // how data sources were read: "neoverse" or "unknown"
    (std::vector<SpeEventRecord>, events),
    (SpeEventValues, totals),                 // over the selected samples
    (std::vector<SpeRowRecord>, rows),        // most samples first
    (std::vector<std::string>, problems));    // damaged packets, with where
};
inline constexpr record::Contract spe_contract{
    "tagop.spe/1", "tagop spe",
    "An Arm SPE capture's derived events in total and by instruction address (tagop spe FILE --json)."};

}  // namespace tagop::cli
