#pragma once
// The vocabulary of the tagged-op model: every named boolean fact that any
// vendor's precise-sampling hardware can report about one sampled operation.
// It is written once, here; decoders, predicates and event tables refer to
// it by name, checked at compile time with `condition("dc.miss")`.
//
// Thread safety: the condition tables are constants and Condition/ConditionSet are values: safe to
// share.

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t, std::uint64_t
#include <initializer_list>  // ConditionSet{a, b}
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

struct ConditionInfo {
  std::string_view name;
  std::string_view description;
};

// The order is part of the ABI: compiled code holds a condition as its
// position here (condition("dc.miss") is an index, ConditionSet a bit set
// of them). New conditions go at the end, never between; none is moved or
// removed (tests/lib/abi/conditions-0.1.txt, README "ABI").
inline constexpr ConditionInfo condition_table[] = {
    // What was sampled. Every sample carries exactly one of these.
    {"fetch", "the sample is an instruction fetch (IBS fetch sampling)"},
    {"op", "the sample is an operation that retired (IBS op, PEBS, P4 at-retirement tagging)"},

    // Instruction fetch.
    {"fetch.killed", "the fetch was abandoned before it reached the ITLB or instruction cache"},
    {"fetch.completed", "the fetch delivered instruction data to the decoder"},
    {"ic.miss", "the fetch missed in the instruction cache"},
    {"fetch.l2_miss", "the fetch missed in the L2 cache as well"},
    {"fetch.l3_miss", "the fetch missed in the L3 cache as well"},
    {"fetch.oc_miss", "the fetch missed in the op cache"},
    {"itlb.translated", "the fetch address was translated (a valid physical address)"},
    {"itlb.l1_miss", "the fetch missed in the L1 ITLB"},
    {"itlb.l2_miss", "the fetch missed in the L2 ITLB"},
    {"itlb.page_4k", "the fetch was translated by a 4 KiB page entry of the L1 ITLB"},
    {"itlb.page_2m", "the fetch was translated by a 2 MiB page entry of the L1 ITLB"},
    {"itlb.page_1g", "the fetch was translated by a 1 GiB page entry of the L1 ITLB"},

    // Control flow.
    {"branch", "the op is a retired branch (conditional, unconditional, call or return)"},
    {"branch.mispredicted", "the branch was mispredicted"},
    {"branch.taken", "the branch was taken"},
    {"branch.fused", "the branch was fused with the op before it"},
    {"branch.conditional", "the branch is a conditional jump (Jcc)"},
    {"branch.call", "the branch is a call"},
    {"branch.indirect", "the branch target comes from a register or memory"},
    {"branch.far", "the branch is a far transfer (interrupt, exception, far call or return)"},
    {"return", "the op is a subroutine return"},
    {"return.mispredicted", "the return was mispredicted, as a separate hardware flag (AMD Family 10h-15h)"},
    {"resync", "the op is a resync op: a microcoded flow that flushes the whole pipeline"},
    {"op.microcoded", "the op came from the microcode sequencer"},
    {"op.rip_invalid", "the hardware says the op's instruction address is not valid"},
    {"op.int_divide", "the op is an integer divide (Goldmont UOPS_RETIRED.IDIV)"},
    {"op.fp_divide", "the op is a floating-point divide (Goldmont UOPS_RETIRED.FPDIV)"},

    // Memory access.
    {"load", "the op reads memory"},
    {"store", "the op writes memory"},
    {"mem.sw_prefetch", "the access is a software prefetch"},
    {"dc.lin_addr_valid", "the data linear address is known"},
    {"dc.phys_addr_valid", "the data physical address is known"},
    {"dtlb.l1_miss", "the access missed in the L1 DTLB"},
    {"dtlb.l2_miss", "the access missed in the L2 DTLB (a page walk was needed)"},
    {"dtlb.l1_page_2m", "the L1 DTLB held the access's translation as a 2 MiB page"},
    {"dtlb.l1_page_1g", "the L1 DTLB held the access's translation as a 1 GiB page"},
    {"dtlb.l2_page_2m", "the L2 DTLB hit on a 2 MiB page entry"},
    {"dtlb.l2_page_1g", "the L2 DTLB hit on a 1 GiB page entry"},
    {"dc.miss", "the access missed in the L1 data cache"},
    {"dc.mab_hit", "the miss hit an already allocated miss address buffer entry"},
    {"dc.miss_no_mab", "the miss could not allocate a miss address buffer entry"},
    {"dc.bank_conflict_load", "the access had a data-cache bank conflict with a load"},
    {"dc.bank_conflict_store", "the access had a data-cache bank conflict with a store"},
    {"l2.miss", "the access missed in the L2 cache"},
    {"l3.miss", "the access missed in the L3 cache: its data came from beyond the L3 of its core complex (IBS knows it only from a capture of L3MissOnly)"},
    {"l2.miss_fast_detected", "the L2 miss was found by the Pentium 4's fast detection logic, which replay tagging sees (not every L2 miss)"},
    {"mem.misaligned", "the access was misaligned (crossed a 128-bit boundary on AMD)"},
    {"mem.split_line", "the access was split across two cache lines"},
    {"mem.locked", "the access was a locked (atomic) operation"},
    {"mem.uncacheable", "the access was to uncacheable (UC) memory"},
    {"mem.write_combining", "the access was to write-combining (WC) memory"},
    {"stlf.forwarded", "the load's data was forwarded from an earlier store"},
    {"stlf.cancelled", "forwarding from a store to the load was cancelled"},
    {"stlf.blocked", "the load was blocked: it could not take its data from an earlier store"},
    {"stlf.data_not_ready", "forwarding from an earlier store was possible, but the store's data was not ready in time"},
    {"stlf.4k_alias", "the load was blocked by an earlier store whose address matches it modulo 4 KiB (a false dependence)"},
    {"store.sab_full", "the store was delayed because no store address buffer entry was free"},
    {"mem.split_page", "the access was split across two pages"},

    // Where a missing load's data came from (AMD northbridge / data source).
    {"nb.valid", "the hardware reported where the data of this miss came from"},
    {"src.l3", "the data came from an L3 cache"},
    {"src.cache", "the data came from another core's cache"},
    {"src.dram", "the data came from DRAM"},
    {"src.io", "the data came from MMIO, configuration or PCI space, or the APIC"},
    {"src.pmem", "the data came from long-latency memory (persistent memory, NVDIMM)"},
    {"src.cxl", "the data came from extension memory (CXL and the like)"},
    {"src.remote", "the data came from another node (socket)"},
    {"src.cache_modified", "the supplying cache (the L3 or another core's) held the line Modified, where the hardware reports the line's state (perf's HITM)"},
    {"src.cache_owned", "the supplying cache held the line Owned, where the hardware reports the line's state"},

    // Execution class of the op (Pentium 4 execution tagging).
    {"uop.packed_sp", "the uop is packed single-precision SIMD"},
    {"uop.packed_dp", "the uop is packed double-precision SIMD"},
    {"uop.scalar_sp", "the uop is scalar single-precision SIMD"},
    {"uop.scalar_dp", "the uop is scalar double-precision SIMD"},
    {"uop.mmx_64", "the uop is a 64-bit MMX uop"},
    {"uop.mmx_128", "the uop is a 128-bit integer SIMD uop"},
    {"uop.x87_fp", "the uop is an x87 floating-point uop"},
    {"uop.x87_simd_move", "the uop is an x87, SIMD or MMX register move (load, store or copy)"},

    // Speculation (Arm SPE samples ops that never retired, and says so).
    {"op.not_retired", "the op was executed but did not retire: it was discarded after speculation (Arm SPE's Retired event was clear)"},
};

inline constexpr std::size_t condition_count = std::size(condition_table);
static_assert(condition_count <= 128, "ConditionSet holds 128 conditions");

/// One condition of the vocabulary: an index into `condition_table`.
struct Condition {
  std::uint8_t index;
  friend constexpr bool operator==(Condition, Condition) = default;
  constexpr std::string_view name() const { return condition_table[index].name; }
};

/// The condition with this name; in a constant expression an unknown name
/// is a compile error, so tables cannot refer to a condition that is not in
/// the vocabulary.
consteval Condition condition(std::string_view name) {
  for (std::size_t i = 0; i < condition_count; ++i)
    if (condition_table[i].name == name) return Condition{static_cast<std::uint8_t>(i)};
  throw "unknown condition name";  // not a constant expression: compile error
}

/// A set of conditions, as 128 bits: the hot path of every report tests
/// these with a few ANDs.
struct ConditionSet {
  std::array<std::uint64_t, 2> words{};

  constexpr ConditionSet() = default;
  constexpr ConditionSet(std::initializer_list<Condition> conditions) {
    for (Condition c : conditions) insert(c);
  }
  constexpr void insert(Condition c) { words[c.index >> 6] |= std::uint64_t{1} << (c.index & 63); }
  constexpr void erase(Condition c) { words[c.index >> 6] &= ~(std::uint64_t{1} << (c.index & 63)); }
  /// Removes every member of `o`.
  constexpr void erase(const ConditionSet& o) {
    words[0] &= ~o.words[0];
    words[1] &= ~o.words[1];
  }
  constexpr void set(Condition c, bool on) { on ? insert(c) : erase(c); }
  constexpr bool contains(Condition c) const {
    return (words[c.index >> 6] >> (c.index & 63)) & 1;
  }
  constexpr bool contains_all(const ConditionSet& o) const {
    return (words[0] & o.words[0]) == o.words[0] && (words[1] & o.words[1]) == o.words[1];
  }
  constexpr bool intersects(const ConditionSet& o) const {
    return ((words[0] & o.words[0]) | (words[1] & o.words[1])) != 0;
  }
  constexpr bool empty() const { return (words[0] | words[1]) == 0; }
  constexpr ConditionSet& operator|=(const ConditionSet& o) {
    words[0] |= o.words[0];
    words[1] |= o.words[1];
    return *this;
  }
  friend constexpr ConditionSet operator|(ConditionSet a, const ConditionSet& b) { return a |= b; }
  friend constexpr ConditionSet operator&(ConditionSet a, const ConditionSet& b) {
    a.words[0] &= b.words[0];
    a.words[1] &= b.words[1];
    return a;
  }
  friend constexpr bool operator==(const ConditionSet&, const ConditionSet&) = default;

  /// The members, in vocabulary order.
  std::vector<Condition> members() const;
  /// "a & b & c", or "(none)".
  std::string to_string() const;
};

/// A fact of every processor that the vocabulary's names carry: an op
/// that meets `premise` meets `conclusion` too (an L2 miss is a DC miss).
/// The relations between predicates (`tagop compare`) and the reasoning
/// about which samples can decide an event use these; the engine does
/// not: it counts what each sample's bits say, contradictions included.
struct Implication {
  Condition premise, conclusion;
  std::string_view why;
};

inline constexpr Implication implication_table[] = {
    // A miss at one level of a hierarchy was a miss at the levels before it.
    {condition("l2.miss"), condition("dc.miss"), "an access that missed the L2 missed the L1 data cache first"},
    {condition("l3.miss"), condition("l2.miss"), "an access that missed the L3 missed the L2 first"},
    {condition("dc.miss_no_mab"), condition("dc.miss"), "only a miss allocates a miss address buffer"},
    {condition("dc.mab_hit"), condition("dc.miss"), "only a miss looks for a miss address buffer"},
    {condition("fetch.l2_miss"), condition("ic.miss"), "a fetch that missed the L2 missed the instruction cache first"},
    {condition("fetch.l3_miss"), condition("fetch.l2_miss"), "a fetch that missed the L3 missed the L2 first"},
    {condition("dtlb.l2_miss"), condition("dtlb.l1_miss"), "an access that missed the L2 DTLB missed the L1 DTLB first"},
    {condition("itlb.l2_miss"), condition("itlb.l1_miss"), "a fetch that missed the L2 ITLB missed the L1 ITLB first"},
    // A data source is reported for a miss past the L2, and each source,
    // and the state of the line it gave, is a reported one.
    {condition("nb.valid"), condition("l2.miss"), "a data source is reported for an access that missed the L2"},
    {condition("src.l3"), condition("nb.valid"), "the L3 as the source is a reported source"},
    {condition("src.cache"), condition("nb.valid"), "another core's cache as the source is a reported source"},
    {condition("src.dram"), condition("nb.valid"), "DRAM as the source is a reported source"},
    {condition("src.io"), condition("nb.valid"), "I/O as the source is a reported source"},
    {condition("src.pmem"), condition("nb.valid"), "long-latency memory as the source is a reported source"},
    {condition("src.cxl"), condition("nb.valid"), "extension memory as the source is a reported source"},
    // Memory is beyond every cache.
    {condition("src.dram"), condition("l3.miss"), "data from DRAM missed every cache"},
    {condition("src.pmem"), condition("l3.miss"), "data from long-latency memory missed every cache"},
    {condition("src.cxl"), condition("l3.miss"), "data from extension memory missed every cache"},
    {condition("src.cache_modified"), condition("nb.valid"), "a line's state is reported with its source"},
    {condition("src.cache_owned"), condition("nb.valid"), "a line's state is reported with its source"},
    // The kinds of branch are branches.
    {condition("branch.mispredicted"), condition("branch"), "only a branch is mispredicted"},
    {condition("branch.taken"), condition("branch"), "only a branch is taken"},
    {condition("branch.fused"), condition("branch"), "a fused branch is a branch"},
    {condition("branch.conditional"), condition("branch"), "a conditional jump is a branch"},
    {condition("branch.call"), condition("branch"), "a call is a branch"},
    {condition("branch.indirect"), condition("branch"), "an indirect branch is a branch"},
    {condition("return"), condition("branch"), "a return is a branch"},
    {condition("return.mispredicted"), condition("return"), "only a return is a mispredicted return"},
    // Store-to-load forwarding happens to loads; a store address buffer is a store's.
    {condition("stlf.forwarded"), condition("load"), "only a load takes data from a store"},
    {condition("stlf.cancelled"), condition("load"), "only a load takes data from a store"},
    {condition("stlf.blocked"), condition("load"), "only a load waits for a store's data"},
    {condition("stlf.data_not_ready"), condition("load"), "only a load waits for a store's data"},
    {condition("stlf.4k_alias"), condition("load"), "only a load waits for a store's data"},
    {condition("store.sab_full"), condition("store"), "only a store needs a store address buffer"},
};

/// Every condition that `c` implies, directly or through others (not `c`).
ConditionSet implied_by(Condition c);
/// Every condition that implies `c`, directly or through others (not `c`).
ConditionSet implying(Condition c);
/// Whether some op can meet every condition of `hold` and none of `fail`
/// under the implications: false when one is in both, when a condition
/// that holds implies one that fails.
bool consistent(const ConditionSet& hold, const ConditionSet& fail);
/// The implication (direct or through others) by which `premise` implies
/// `conclusion`, as a sentence ("an access that missed the L2 missed the L1
/// data cache first"); empty when it does not.
std::string implication_text(Condition premise, Condition conclusion);

/// Looks a name up at run time.
std::optional<Condition> find_condition(std::string_view name);

/// Up to `max` vocabulary names closest to `name` (by edit distance, and
/// names that contain it), best first: for "did you mean" messages.
std::vector<std::string_view> closest_condition_names(std::string_view name, std::size_t max = 3);

}  // namespace tagop
