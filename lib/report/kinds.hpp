#pragma once
// The kinds of a capture's samples: what every sample of a kind shares for
// the report (its event, its conditions, what it observed and measured,
// its verdict on --where) and which measures its tallies sum. A non-IBS
// event is one kind, summing its samples' periods, or, where its samples
// carry a data source (perf mem), a kind per reading of it; an IBS unit has a kind
// per signature (conditions, observed, measured), found from the bits of
// a payload that decide them (FastIbsDecoder::Key) in one probe.

#include <array>          // std::array
#include <bit>            // std::rotl
#include <cstddef>        // std::byte
#include <cstdint>        // std::uint32_t, std::uint64_t
#include <cstring>        // std::memcpy
#include <deque>          // std::deque
#include <optional>       // std::optional
#include <span>           // std::span
#include <unordered_map>  // kinds by signature
#include <vector>         // std::vector

#include <tagop/amd_ibs/fast_decoder.hpp>  // FastIbsDecoder
#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/conditions.hpp>            // ConditionSet
#include <tagop/engine.hpp>                // Query
#include <tagop/predicate.hpp>             // Predicate

#include "entry_table.hpp"  // max_sums


namespace tagop::report {

enum class Verdict : std::uint8_t { passes, fails, undecided };


struct Kind {
  bool ibs = false;
  amd_ibs::IbsUnit unit = amd_ibs::IbsUnit::op;
  std::uint32_t event = 0;  // non-IBS: the event (FileInfo::attrs index)
  ConditionSet conditions, observed;
  std::uint32_t measured = 0;
  Verdict verdict = Verdict::passes;
  bool rip_invalid = false;  // IBS op: IbsRipInvalid, the sample's ip is the record's
  /// What each of a tally's sums adds up: a measure's index, or
  /// period_sum for a non-IBS event's periods.
  std::uint8_t sum_count = 0;
  std::array<std::uint8_t, max_sums> sums{};
  std::uint64_t samples = 0;  // that passed the other filters, whatever the verdict
};
inline constexpr std::uint8_t period_sum = 0xFF;

/// What makes a kind one: kinds with equal keys are the same kind.
struct KindKey {
  bool ibs = false;
  amd_ibs::IbsUnit unit = amd_ibs::IbsUnit::op;
  std::uint32_t event = 0, measured = 0;
  ConditionSet conditions, observed;
  bool operator==(const KindKey&) const = default;
  static KindKey of(const Kind& k) { return {k.ibs, k.unit, k.event, k.measured, k.conditions, k.observed}; }
};
struct KindKeyHash {
  std::size_t operator()(const KindKey& k) const;
};

/// The kinds of several shards' tables as one list.
class KindUnion {
 public:
  /// Adds a table's kinds (their samples to those of the same key) and
  /// returns each one's index in kinds().
  std::vector<std::uint32_t> add(const std::vector<Kind>& kinds);
  std::vector<Kind>& kinds() { return kinds_; }

 private:
  std::vector<Kind> kinds_;
  std::unordered_map<KindKey, std::uint32_t, KindKeyHash> index_;
};

/// Where a payload of one IBS key keeps what the tally reads.
struct KeyKind {
  std::uint32_t kind = 0;
  std::uint16_t ip_at = 0;  // the payload's instruction address
  // Where sum i's measure is: spots[i] (mask 0 where the kind has none).
  struct Spot {
    std::uint16_t at = 0;  // byte offset in the payload
    std::uint8_t lsb = 0;
    std::uint32_t mask = 0;
  };
  std::array<Spot, max_sums> spots{};
  bool rip_invalid = false;
  Verdict verdict = Verdict::passes;  // its kind's
  /// Samples of this key that passed the other filters: added to its
  /// kind's by settle(), so that a sample touches only its KeyKind.
  mutable std::uint64_t samples = 0;

  /// Adds the measures of `payload` to a tally's sums (max_sums of them).
  /// All four spots, without a branch: an unused one has mask 0, and adds
  /// 0 to its own sum. Each sum its own spot, so that the four adds are
  /// independent (unused spots that all added 0 to the first sum made a
  /// chain through memory: 9% of a report at 10 k addresses).
  [[gnu::always_inline]] void add_measures(const std::byte* payload, std::uint64_t* sums) const {
#pragma GCC unroll 4
    for (std::size_t i = 0; i < max_sums; ++i) {
      std::uint64_t v;
      std::memcpy(&v, payload + spots[i].at, 8);
      sums[i] += static_cast<std::uint32_t>(v >> spots[i].lsb) & spots[i].mask;
    }
  }
};

class KindTable {
 public:
  /// `where` (may be null) must outlive the table; `needed`: the measures
  /// the queries sum (no other is kept).
  KindTable(const Predicate* where, std::uint32_t needed_measures);

  std::vector<Kind>& kinds() { return kinds_; }
  const std::vector<Kind>& kinds() const { return kinds_; }
  /// Adds the key kinds' samples to their kinds' (after the walk).
  void settle();

  /// The kind of a non-IBS event's samples.
  std::uint32_t event_kind(std::uint32_t event);
  /// The kind of a non-IBS event's samples with this PERF_SAMPLE_DATA_SRC
  /// value: the conditions read_data_src() reads in it. A load of an
  /// event whose samples carry a weight (`weighted`) sums its latency
  /// (mem.load_latency) beside its period.
  std::uint32_t data_src_kind(std::uint32_t event, std::uint64_t data_src, bool weighted);

  /// IBS: the kinds of payloads, found by key. `decoder` decodes new keys.
  void use_ibs(const amd_ibs::IbsCapture& capture);
  /// IBS: reads payloads' keys (FastIbsDecoder::key_of).
  const amd_ibs::FastIbsDecoder& decoder() const { return *decoder_; }
  const amd_ibs::IbsCapture& capture() const { return *capture_; }
  /// The key kind of a payload whose key is `key` (it stays valid), or
  /// nullptr when its kind cannot be cached (decode() it then). Once per
  /// sample: inline.
  const KeyKind* find(const amd_ibs::FastIbsDecoder::Key& key, std::span<const std::byte> payload) {
    for (std::size_t i = slot_of(key);; i = (i + 1) & key_mask_) {
      const KeySlot& slot = key_slots_[i];
      if (!slot.kind) return add_key(key, payload);
      if (slot.key.same(key)) return slot.kind;
    }
  }
  /// A payload decoded in full: its kind, and its measures in `sums` (by the kind's sums).
  std::uint32_t decode(amd_ibs::IbsUnit unit, std::span<const std::byte> payload, std::uint64_t& ip,
                       std::array<std::uint64_t, max_sums>& sums);

 private:
  std::uint32_t kind_of(const KindKey& key);
  const KeyKind* add_key(const amd_ibs::FastIbsDecoder::Key& key, std::span<const std::byte> payload);

  const Predicate* where_;
  std::uint32_t needed_;
  std::vector<Kind> kinds_;
  std::unordered_map<KindKey, std::uint32_t, KindKeyHash> by_key_;
  const amd_ibs::IbsCapture* capture_ = nullptr;
  std::optional<amd_ibs::FastIbsDecoder> decoder_;
  // Key -> KeyKind by open addressing, the keys inline; at most half full.
  struct KeySlot {
    amd_ibs::FastIbsDecoder::Key key{};
    const KeyKind* kind = nullptr;  // nullptr: empty
  };
  std::size_t slot_of(const amd_ibs::FastIbsDecoder::Key& k) const {
    // The keys' bits are few and scattered: rotations keep them apart,
    // one multiply mixes them into the high bits, which pick the slot.
    const std::uint64_t x = k.head ^ std::rotl(k.bits[0], 7) ^ std::rotl(k.bits[1], 19) ^ std::rotl(k.bits[2], 31) ^
                            std::rotl(k.bits[3], 47);
    return static_cast<std::size_t>((x * 0x9E3779B97F4A7C15ull) >> key_shift_);
  }
  void place(const KeySlot& s);
  std::vector<KeySlot> key_slots_ = std::vector<KeySlot>(64);
  std::size_t key_mask_ = 63;
  unsigned key_shift_ = 64 - 6;
  std::deque<KeyKind> key_kinds_;  // a KeyKind stays where it is: samples in flight point at it
};

}  // namespace tagop::report
