#pragma once
// The processor model: caches, TLBs and branch predictor sized by one
// MicroarchSpec, fed one retired instruction at a time. Each instruction is
// one op; what happened to it (and to the fetches it needed) comes out as
// model Samples, the same form every decoder of the project produces, so
// that every vendor's events are answered by their predicates.
//
// What it leaves out, and so what its numbers mean: no out-of-order
// overlap (a miss adds its whole latency), no prefetchers but the L1D's
// next-line and stride ones of the Zen models (CacheBehaviour), no SMT or other cores (nothing is served by
// another core's cache), no memory controller (DRAM is one latency), no
// wrong-path fetches (no fetch is killed or aborted), and no physical
// addresses (the captures mark them invalid).
// Not thread-safe: a CoreModel is one processor's state, fed from one thread;
// models are independent of each other.

#include <array>    // std::array
#include <cstdint>  // std::uint64_t

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/emulate/branch_predictor.hpp>   // BranchPredictor
#include <tagop/emulate/cache.hpp>              // BlockCache
#include <tagop/emulate/instruction.hpp>        // InstructionInfo
#include <tagop/emulate/lackey_trace.hpp>       // TraceInstruction
#include <tagop/emulate/microarchitecture.hpp>  // MicroarchSpec
#include <tagop/sample.hpp>                     // Sample

namespace tagop TAGOP_API {
namespace emulate {

/// The page size of data: the model does not see the page tables.
enum class PageSize : std::uint8_t { small_4k, large_2m };

/// The fetches one instruction needed (a new fetch block, or two when it
/// crosses into the next); their samples are in `fetch[0..count)`.
struct Fetches {
  unsigned count = 0;
  Sample fetch[2];
};

/// What the model does beyond Cachegrind's simulation, where the part has
/// it (MicroarchSpec::l1d_prefetchers, victim_l3). Both off, the caches
/// are Cachegrind's: every miss fills every level, nothing is fetched
/// ahead, so its miss counts can be compared exactly.
struct CacheBehaviour {
  /// The L1D's next-line and stride prefetchers: a demand miss brings the
  /// next line in as well; a load whose address moved by the same stride
  /// twice running brings in its next address's line.
  bool prefetchers = true;
  /// The L3 filled with the L2's victims, not with every miss.
  bool victim_l3 = true;
  /// Branches predicted as Cachegrind's simulator predicts them
  /// (cg_branchpred.c): 16K 2-bit counters, all 0 at the start, indexed by
  /// 7 bits of global history above the branch address's low 7 bits; a
  /// 512-entry last-target table, indexed by the address's low 9 bits, for
  /// indirect jumps and calls; returns always predicted; and, as
  /// conditional branches, the conditional exits of Valgrind's translation
  /// that are not branches on the hardware (InstructionInfo::valgrind_exits).
  /// Off, the part's own predictor (PredictorSpec).
  bool cachegrind_branches = false;
};

/// What one core model counted, as Cachegrind counts a process's events
/// (its cachegrind.out file's Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm
/// Bi Bim). "LL", the last level, is the L3 where the part has one, else
/// the L2: its misses are the accesses served by memory. An instruction
/// misses the L1I (or the LL) once however many of its fetches missed; a
/// modify (a read and a write of one location, `add [m], r`) is one read,
/// as Cachegrind counts it (the write cannot miss after the read). The
/// counts are of the model's accesses: with the prefetchers or the victim
/// L3 on, they differ from Cachegrind's; CacheBehaviour{false, false, true}
/// and fast strings off (`--exact-cachegrind`) count what Cachegrind does.
struct CoreCounts {
  std::uint64_t instructions = 0;  ///< Ir: instructions retired (ops: a fast-string chunk is one)
  std::uint64_t i1_misses = 0;     ///< I1mr: instructions whose fetch missed the L1I
  std::uint64_t il_misses = 0;     ///< ILmr: ... and the last level
  std::uint64_t data_reads = 0;    ///< Dr: loads and modifies, each access
  std::uint64_t d1_read_misses = 0;   ///< D1mr
  std::uint64_t ll_read_misses = 0;   ///< DLmr: served by memory
  std::uint64_t data_writes = 0;      ///< Dw: stores
  std::uint64_t d1_write_misses = 0;  ///< D1mw
  std::uint64_t ll_write_misses = 0;  ///< DLmw
  std::uint64_t conditional_branches = 0;     ///< Bc (with cachegrind_branches, Valgrind's conditional exits too)
  std::uint64_t conditional_mispredicts = 0;  ///< Bcm
  std::uint64_t indirect_branches = 0;        ///< Bi: indirect jumps and calls (not returns)
  std::uint64_t indirect_mispredicts = 0;     ///< Bim
};

/// Field by field: the counts added while a thread ran are the difference
/// of the core's counts at its start and at its end.
CoreCounts operator-(const CoreCounts& a, const CoreCounts& b);
/// Field by field.
CoreCounts& operator+=(CoreCounts& a, const CoreCounts& b);

class CoreModel {
 public:
  explicit CoreModel(const MicroarchSpec& spec, PageSize data_pages = PageSize::small_4k,
                     CacheBehaviour behaviour = {});

  const MicroarchSpec& spec() const { return spec_; }

  /// Retires one instruction: `op` gets its conditions, measures and
  /// addresses (pid/tid/time are the caller's), `fetches` the fetches
  /// it started.
  void retire(const TraceInstruction& ins, const InstructionInfo& info, Sample& op, Fetches& fetches);

  /// Everything this core retired so far (a copy of a CoreModel, a
  /// forked child's, goes on from its parent's counts, as Cachegrind's do).
  const CoreCounts& counts() const { return counts_; }

  /// The conditions the model decides for ops and for fetches: each is
  /// known true or false on every sample (Sample::observed). An event
  /// whose predicate needs any other is not modelled.
  static ConditionSet modelled(SampleKind kind);

 private:
  struct Served {
    unsigned level = 1;      ///< 1 L1, 2 L2, 3 L3, 4 memory
    unsigned latency = 0;    ///< cycles
  };
  struct Translation {
    bool l1_miss = false, l2_miss = false;
    unsigned latency = 0;    ///< cycles beyond an L1 TLB hit
  };
  Served data(std::uint64_t address);
  Served code(std::uint64_t address);
  Served below_l1(std::uint64_t address);
  Translation translate(BlockCache& l1_small, BlockCache& l1_large, BlockCache& l2_small, BlockCache& l2_large,
                        const TlbSpec& l1, const TlbSpec& l2, std::uint64_t address, bool large);
  unsigned fetch_block(std::uint64_t address, Sample& out);  ///< the level that served it
  void prefetch(std::uint64_t address);
  void train_stride(std::uint64_t ip, std::uint64_t address);
  void memory(const TraceInstruction& ins, const InstructionInfo& info, Sample& op, unsigned& cycles);
  void branch(const TraceInstruction& ins, const InstructionInfo& info, Sample& op, unsigned& cycles);
  void valgrind_exits(const TraceInstruction& ins, const InstructionInfo& info);

  // One entry of the stride prefetcher's table, indexed by the load's address.
  struct StrideEntry {
    std::uint64_t ip = 0, last = 0;
    std::int64_t stride = 0;
    bool confirmed = false;
  };

  const MicroarchSpec& spec_;
  bool large_data_pages_;
  bool prefetchers_, victim_l3_;
  std::array<StrideEntry, 256> strides_{};
  BlockCache l1i_, l1d_, l2_, l3_;
  BlockCache itlb_l1_, itlb_l1_large_, itlb_l2_, itlb_l2_large_;
  BlockCache dtlb_l1_, dtlb_l1_large_, dtlb_l2_, dtlb_l2_large_;
  BranchPredictor predictor_;
  std::uint64_t fetch_block_ = ~std::uint64_t{0};  ///< the block being fetched from
  unsigned fetch_shift_;
  ConditionSet op_observed_, fetch_observed_;
  bool cachegrind_branches_;
  CoreCounts counts_;
};

}  // namespace emulate
}  // namespace tagop
