#pragma once
// The records that `tagop compare` and `tagop compare --matrix` print,
// declared once: their JSON and schemas/compare.schema.json and
// compare.matrix.schema.json come from these declarations (record.hpp);
// tests/contract checks that the files are what they make.

#include <array>        // std::array
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "output_records.hpp"  // EventRow
#include "record.hpp"

namespace tagop::cli {

/// How an event relates to the target: the keys of a backend's lists, in order.
struct RelationNames {
  static constexpr std::array<std::string_view, 4> values{"same", "same_condition_different_unit", "narrower",
                                                          "wider"};
};

/// An event of a backend's table that relates to the target.
struct CompareMatch {
  BOOST_HANA_DEFINE_STRUCT(CompareMatch,
    (record::Merged<EventRow>, event),
    (record::Choice<RelationNames>, relation),
    (record::Maybe<double>, overlap),           // narrower, wider: the share of the target's truth table
    (record::Maybe<std::uint64_t>, conditions_apart),  // narrower, wider: conditions added or dropped
    (std::string, address),                     // how precise a sample's address is
    (std::string, sample));                     // what one sample means
};

/// One backend's events that relate to the target, each list's nearest first.
/// A way to program the backend to sample only some ops (IBS L3MissOnly),
/// whose population relates to the target.
struct CompareFilter {
  BOOST_HANA_DEFINE_STRUCT(CompareFilter,
    (std::string, name),
    (std::string, perf_event),                  // "ibs_op/l3missonly=1/"
    (std::string, population),                  // what every sample then meets
    (std::string, processors),
    (record::Choice<RelationNames>, relation));
};

struct CompareBackend {
  BOOST_HANA_DEFINE_STRUCT(CompareBackend,
    (std::string, backend),
    (std::string, title),
    (std::string, mechanism),
    (bool, measurable),                         // an event says exactly this, or IBS samples observe it, filtered or not
    (std::vector<CompareMatch>, same),
    (std::vector<CompareMatch>, same_condition_different_unit),
    (std::vector<CompareMatch>, narrower),
    (std::vector<CompareMatch>, wider),
    (std::vector<CompareFilter>, filters));    // sampling filters whose population relates to the target
};

/// An event of a model's vendor that measures the target, as the counts file has it.
struct MeasuredEvent {
  BOOST_HANA_DEFINE_STRUCT(MeasuredEvent,
    (std::string, name),
    (std::string, code),
    (std::optional<std::uint64_t>, count));     // null: not modelled
};

struct MeasuredModel {
  BOOST_HANA_DEFINE_STRUCT(MeasuredModel,
    (std::string, model),
    (std::string, backend),
    (std::optional<std::uint64_t>, count),      // ops (or fetches) that meet the target; null: not decided
    (std::uint64_t, of),                        // ops (or fetches) of the run
    (std::vector<MeasuredEvent>, same_events));
};

struct EmulatedCounts {
  static constexpr bool value = true;
};

/// `--counts FILE`: one program's numbers, from `tagop emulate --counts FILE`.
struct MeasuredCounts {
  BOOST_HANA_DEFINE_STRUCT(MeasuredCounts,
    (std::string, file),
    (std::string, command),
    (record::Const<EmulatedCounts>, emulated),  // the numbers are a model's
    (std::vector<MeasuredModel>, models));
};

/// `tagop compare EVENT-or-PREDICATE --json`.
struct CompareRecord {
  BOOST_HANA_DEFINE_STRUCT(CompareRecord,
    (std::string, target),                      // what was asked, as understood
    (std::string, predicate),
    (std::string, simplest),                    // the predicate with what the vocabulary's implications say dropped
    (record::Maybe<std::string>, unit),         // an event's counting unit
    (std::vector<CompareBackend>, backends),
    (std::vector<std::string>, cannot_measure_exactly),
    (record::Maybe<MeasuredCounts>, measured),  // with --counts
    (std::string, caveat));
};
inline constexpr record::Contract compare_contract{
    "tagop.compare/1", "tagop compare",
    "One event or predicate against every backend's tables: the same, narrower, wider and overlapping events of "
    "each, and optionally one program's emulated counts (tagop compare TARGET --json)."};

struct MatrixRow {
  BOOST_HANA_DEFINE_STRUCT(MatrixRow,
    (std::string, condition),
    (record::Entries<std::string>, measured));  // by backend: how it measures the condition, or "-"
};

/// `tagop compare --matrix --json`.
struct CompareMatrix {
  BOOST_HANA_DEFINE_STRUCT(CompareMatrix,
    (std::vector<std::string>, backends),
    (std::vector<MatrixRow>, rows),             // one per condition
    (std::string, caveat));
};
inline constexpr record::Contract compare_matrix_contract{
    "tagop.compare.matrix/1", "tagop compare --matrix",
    "Every condition of tagop's vocabulary against every backend: how each measures it "
    "(tagop compare --matrix --json)."};

}  // namespace tagop::cli
