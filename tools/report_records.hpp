#pragma once
// The records that `tagop report --json` prints, declared once: its JSON
// (tools/report_output.cpp fills these) and schemas/report.schema.json
// both come from these declarations (record.hpp); tests/contract checks
// that the file is what they make. An IBS capture's report and any other
// capture's share ReportCommon and the row's names (ReportRowName); "ibs"
// says which of the two the document is.

#include <array>        // std::array
#include <cstdint>      // std::uint64_t, std::uint32_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <variant>      // std::variant
#include <vector>       // std::vector

#include <tagop/report/report.hpp>  // GroupBy, name_of

#include "output_records.hpp"  // FetchAndOp
#include "record.hpp"

namespace tagop::cli {

/// The values of "by": report::name_of's, of every GroupBy.
struct GroupByNames {
  static inline const std::array<std::string_view, 10> values = [] {
    using report::GroupBy;
    std::array<std::string_view, 10> names;
    std::size_t i = 0;
    for (GroupBy by : {GroupBy::function, GroupBy::module, GroupBy::process, GroupBy::address, GroupBy::line,
                       GroupBy::callchain, GroupBy::thread, GroupBy::cpu, GroupBy::data, GroupBy::cacheline})
      names[i++] = report::name_of(by);
    return names;
  }();
};

struct ReportSchemaName {
  static constexpr std::string_view value = "tagop.report/1";
};
struct IsIbs {
  static constexpr bool value = true;
};
struct IsNotIbs {
  static constexpr bool value = false;
};

/// Samples read and kept (by the filters).
struct ReadAndKept {
  BOOST_HANA_DEFINE_STRUCT(ReadAndKept,
    (std::uint64_t, read),
    (std::uint64_t, kept));
};

/// Records the reader passed over: how many, and the first's offset and why.
struct SkippedRecords {
  BOOST_HANA_DEFINE_STRUCT(SkippedRecords,
    (std::uint64_t, count),
    (std::optional<std::uint64_t>, first_offset),  // null when count is 0
    (std::optional<std::string>, first_reason));
};

/// What IBS and other captures' reports share: the capture, the grouping,
/// the filters, how many samples were read and kept, what was damaged or lost.
struct ReportCommon {
  BOOST_HANA_DEFINE_STRUCT(ReportCommon,
    (record::Const<ReportSchemaName>, schema),
    (std::string, file),
    (std::vector<std::string>, filters),      // "cpu 3", "comm prog"
    (std::optional<std::string>, where),
    (ReadAndKept, sample_counts),             // IBS: fetch and op together
    (std::optional<std::string>, emulated),   // a capture of tagop emulate: its model
    (record::Choice<GroupByNames>, by),       // the main key (report::main_key)
    (record::Maybe<std::vector<std::string>>, keys),  // with several keys (--by a,b): all, in order
    (std::string, sort),                      // the column rows are sorted by
    (std::uint64_t, row_count),               // all rows, also those not printed
    (bool, children),                         // values include the callees'
    (bool, callchains),                       // the samples carry call chains
    (SkippedRecords, skipped),
    (bool, truncated),
    (std::uint64_t, unread_bytes),
    (std::uint64_t, resyncs),
    (std::optional<std::uint64_t>, shrunk_to),  // the size the file shrank to while read
    (std::vector<unsigned>, damaged_features),  // HEADER_* feature bits not read
    (std::uint64_t, lost),                    // samples the kernel lost
    (std::vector<std::string>, warnings));
};

/// A cache line's counts (--by cacheline: report::LineDetail), as perf c2c
/// report counts a line's records.
struct CacheLineRecord {
  BOOST_HANA_DEFINE_STRUCT(CacheLineRecord,
    (record::Hex, address),                   // the line's first byte
    (std::uint64_t, samples),                 // perf c2c's Total records
    (std::uint64_t, loads),
    (std::uint64_t, stores),
    (std::uint64_t, l1_misses),               // loads served past the L1, stores that missed it
    (std::uint64_t, local_hitm),
    (std::uint64_t, remote_hitm),
    (std::vector<unsigned>, offsets),         // the bytes touched, 0 to 63
    (std::vector<record::Hex>, code_addresses),  // where the samples' instructions were (16 at most)
    (std::vector<std::string>, functions));   // their functions, the most samples first (16 at most)
};

/// What names a row: by process its pid, by call chain nothing more, else its module.
struct ReportRowName {
  BOOST_HANA_DEFINE_STRUCT(ReportRowName,
    (std::string, name),
    (record::Maybe<std::uint32_t>, pid),      // by process (or thread, with several keys)
    (record::Maybe<std::string>, module),
    (record::Maybe<record::Hex>, offset),     // the name is module+offset
    (record::Maybe<std::string>, comm),       // with several keys, of process or thread: the process's name
    (record::Maybe<std::uint32_t>, tid),      // by thread
    (record::Maybe<std::uint32_t>, cpu),      // by cpu
    (record::Maybe<std::vector<std::string>>, parts),  // with several keys: the name's, one per key
    (record::Maybe<CacheLineRecord>, cache_line));  // by cacheline
};

// IBS captures.

struct ReportCpu {
  BOOST_HANA_DEFINE_STRUCT(ReportCpu,
    (std::string, vendor),
    (unsigned, family),
    (unsigned, model),
    (unsigned, stepping),
    (std::string, source));                   // "HEADER_CPUID" or "--family/--model"
};

struct IbsSamplesRead {
  BOOST_HANA_DEFINE_STRUCT(IbsSamplesRead,
    (std::uint64_t, fetch),
    (std::uint64_t, op),
    (std::uint64_t, not_ibs));                // samples of events that are not IBS
};

/// A unit's sampling period: one sample stands for `value` of `unit`.
struct UnitPeriodRecord {
  BOOST_HANA_DEFINE_STRUCT(UnitPeriodRecord,
    (double, value),
    (std::string, unit),
    (std::string, source));                   // where the period came from
};

/// What a unit's event asked to be sampled, where not every op or fetch.
struct SamplingFilterRecord {
  BOOST_HANA_DEFINE_STRUCT(SamplingFilterRecord,
    (bool, l3_miss_only),                     // L3MissOnly
    (std::optional<std::uint32_t>, load_latency),  // ldlat, cycles
    (std::string, population),                // the predicate every sample meets
    (std::string, text));
};

struct IbsFilters {
  BOOST_HANA_DEFINE_STRUCT(IbsFilters,
    (std::optional<SamplingFilterRecord>, fetch),  // null: every fetch sampled
    (std::optional<SamplingFilterRecord>, op));
};

struct IbsPeriods {
  BOOST_HANA_DEFINE_STRUCT(IbsPeriods,
    (std::optional<UnitPeriodRecord>, fetch),  // null: no samples of the unit
    (std::optional<UnitPeriodRecord>, op));
};

/// An estimate from samples: samples times the period, with a 95% interval.
struct EstimateRecord {
  BOOST_HANA_DEFINE_STRUCT(EstimateRecord,
    (std::uint64_t, samples),
    (double, estimate),
    (double, low),
    (double, high),
    (std::string, unit));
};

/// A derived event that some samples left undecided: how many (they are in
/// neither its count nor its sum), and why a sample of this processor can.
struct UndecidedRecord {
  BOOST_HANA_DEFINE_STRUCT(UndecidedRecord,
    (std::uint64_t, samples),
    (std::vector<std::string>, reasons));
};

struct ColumnRecord {
  BOOST_HANA_DEFINE_STRUCT(ColumnRecord,
    (std::string, id),
    (std::string, title));
};

/// A row of an IBS capture's report.
struct IbsReportRow {
  BOOST_HANA_DEFINE_STRUCT(IbsReportRow,
    (record::Merged<ReportRowName>, row),
    (double, overhead),                       // percent of the samples
    (record::Maybe<double>, children),        // with --children: percent with the callees'
    (record::Entries<std::optional<record::Number>>, values),  // by column id; null: not available
    (record::Entries<std::optional<EstimateRecord>>, estimates));  // of the count columns
};

/// `tagop report --json` of an IBS capture: derived events, ratios, estimates.
struct IbsReport {
  BOOST_HANA_DEFINE_STRUCT(IbsReport,
    (record::Const<IsIbs>, ibs),
    (ReportCpu, cpu),
    (FetchAndOp, samples),                    // kept
    (IbsSamplesRead, samples_read),
    (std::uint64_t, inexact_ip),              // op samples at the record's ip (IbsRipInvalid)
    (IbsPeriods, period),
    (IbsFilters, sampling_filters),
    (record::Maybe<std::uint64_t>, where_undecided),  // with --where
    (record::Entries<std::optional<std::uint64_t>>, events),  // by select: counts, or sums of latency events
    (record::Entries<std::optional<std::uint64_t>>, event_samples),
    (record::Entries<UndecidedRecord>, undecided),  // by select: events some samples left undecided
    (record::Entries<std::optional<double>>, ratios),
    (record::Entries<std::optional<EstimateRecord>>, estimates),
    (record::Entries<std::string>, estimates_biased),  // by select: why its estimate is null under the filter
    (std::string, estimate_note),
    (std::vector<ColumnRecord>, columns),
    (record::Merged<ReportCommon>, common),
    (std::vector<IbsReportRow>, rows));       // last: printed one at a time
};

// Other captures: each event's samples, weighted by their periods.

/// An event's samples in a row (or all), their periods summed, and its percent of the event's total period.
struct EventShare {
  BOOST_HANA_DEFINE_STRUCT(EventShare,
    (std::uint64_t, samples),
    (std::uint64_t, period),
    (double, percent),
    (record::Maybe<double>, load_latency));  // perf mem: the average load latency (cycles) of the loads with one
};

struct EventsReportRow {
  BOOST_HANA_DEFINE_STRUCT(EventsReportRow,
    (record::Merged<ReportRowName>, row),
    (std::uint64_t, samples),                 // of all events
    (record::Entries<EventShare>, events),    // by event name
    (record::Maybe<record::Entries<EventShare>>, children));  // with --children
};

/// `tagop report --json` of a capture without IBS.
struct EventsReport {
  BOOST_HANA_DEFINE_STRUCT(EventsReport,
    (record::Const<IsNotIbs>, ibs),
    (std::vector<std::string>, events),
    (std::uint64_t, samples),                 // read
    (std::uint64_t, kept),
    (record::Maybe<std::uint64_t>, where_undecided),  // with --where (perf mem: samples with data sources)
    (record::Maybe<std::vector<std::string>>, data_src_decides),  // the conditions the samples' data sources decide
    (record::Entries<EventShare>, event_totals),
    (record::Merged<ReportCommon>, common),
    (std::vector<EventsReportRow>, rows));    // last: printed one at a time
};

using ReportRecord = std::variant<IbsReport, EventsReport>;
inline constexpr record::Contract report_contract{
    "tagop.report/1", "tagop report",
    "A capture's samples by function, module, process, line, address or call chain (tagop report FILE --json). "
    "IBS and other captures share the keys of ReportCommon and each row's name/pid/module/offset; \"ibs\" says "
    "which of the two sets of further keys the document has. \"rows\" comes last."};

}  // namespace tagop::cli
