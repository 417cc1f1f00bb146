#pragma once
// An SPE record in the model's terms: a Sample of kind op with the
// conditions its packets prove true or false (and only those observed),
// its latencies as measures and its addresses.
//
// What the packets say, and how it maps (each choice is explained in
// model.cpp):
//   op type  -> load, store, branch, branch.conditional, branch.indirect
//   events   -> op.not_retired (Retired clear), dc.miss (L1D refill),
//               dtlb.l1_miss and dtlb.l2_miss (TLB walk), branch.taken (Not
//               taken clear), branch.mispredicted, l3.miss (LLC refill),
//               src.remote (remote access), mem.misaligned (alignment)
//   data source (Neoverse encoding only) -> l2.miss, nb.valid, src.l3,
//               src.cache, src.remote, src.dram
//   counters -> op.total_latency, op.issue_latency, mem.translation_latency;
//               a load's total latency also as mem.load_latency (perf mem's weight)
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstdint>      // std::uint16_t, std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/arm_spe/records.hpp>  // SpeRecord
#include <tagop/conditions.hpp>       // ConditionSet
#include <tagop/sample.hpp>           // Sample

namespace tagop TAGOP_API {
namespace arm_spe {

/// How the data source packet's value reads: the Arm ARM leaves it to the
/// implementation.
enum class DataSourceEncoding : std::uint8_t {
  unknown,   ///< not read (the model gets no src.* condition)
  neoverse,  ///< Arm Neoverse N1, N2 and V1 (their TRMs; perf's arm_spe_neoverse_data_source)
};

/// One value of an encoding, with the conditions it proves.
struct DataSourceRow {
  std::uint16_t value;           ///< the data source packet's payload
  std::string_view name;         ///< "DRAM"
  std::string_view description;  ///< where the data came from, in words
  bool beyond_l2;                ///< the data came from past the core's own L2 (l2.miss, nb.valid)
  ConditionSet sources;          ///< the src.* conditions it proves
  ConditionSet undecided{};      ///< the src.* conditions it leaves open (REMOTE: a cache or memory)
};

/// The Neoverse encoding's rows.
std::span<const DataSourceRow> neoverse_data_sources();

/// The row for `value` in `encoding`, or nullptr (unknown encoding or value).
const DataSourceRow* find_data_source(DataSourceEncoding encoding, std::uint64_t value);

/// The encoding perf 6.1 uses for a processor with this MIDR_EL1
/// (implementer 0x41, part 0xD0C N1, 0xD49 N2, 0xD40 V1: neoverse;
/// anything else: unknown).
DataSourceEncoding data_source_encoding_for_midr(std::uint64_t midr);

/// The conditions SPE op samples decide (with Neoverse data sources for
/// loads): a predicate over these can be asked of the samples. Not
/// dtlb.l1_miss, which only a walk decides.
ConditionSet observable_conditions();

/// What the mapping needs to know besides the record.
struct MappingOptions {
  DataSourceEncoding data_source = DataSourceEncoding::unknown;  ///< how to read data source packets
};

/// The record as a model sample (kind op). Conditions outside `observed`
/// are unknown: e.g. dtlb.l1_miss is observed only when a walk proves it.
/// pid, tid, cpu and time are left 0: the capture knows them
/// (see perf_capture.hpp), except that a Context packet's value is taken as
/// the thread id, as perf takes it.
Sample to_sample(const SpeRecord& record, const MappingOptions& options = {});

}  // namespace arm_spe
}  // namespace tagop
