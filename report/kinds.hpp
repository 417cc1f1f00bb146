#pragma once
// The kinds of a capture's samples: what every sample of a kind shares for
// the report (its event, its conditions, what it observed and measured,
// its verdict on --where) and which measures its tallies sum. A non-IBS
// event is one kind, summing its samples' periods; an IBS unit has a kind
// per signature (conditions, observed, measured), found from the bits of
// a payload that decide them (FastIbsDecoder::Key) in one probe.

#include <array>          // std::array
#include <cstddef>        // std::byte
#include <cstdint>        // std::uint32_t, std::uint64_t
#include <cstring>        // std::memcpy
#include <optional>       // std::optional
#include <span>           // std::span
#include <unordered_map>  // kinds by signature
#include <vector>         // std::vector

#include <tagop/amd_ibs/fast_decoder.hpp>  // FastIbsDecoder
#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/conditions.hpp>            // ConditionSet
#include <tagop/engine.hpp>                // Query
#include <tagop/predicate.hpp>             // Predicate

#include "flat_index.hpp"

namespace tagop::report {

enum class Verdict : std::uint8_t { passes, fails, undecided };

/// A kind's tallies keep up to this many sums.
inline constexpr std::size_t max_sums = 4;

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

/// Where a payload of one IBS key keeps what the tally reads.
struct KeyKind {
  std::uint32_t kind = 0;
  std::uint16_t ip_at = 0;  // the payload's instruction address
  struct Spot {
    std::uint16_t at = 0;  // byte offset in the payload
    std::uint8_t lsb = 0, sum = 0;
    std::uint32_t mask = 0;
  };
  std::uint8_t spot_count = 0;
  std::array<Spot, max_sums> spots{};
  bool rip_invalid = false;

  /// Adds the measures of `payload` to a tally's sums.
  void add_measures(const std::byte* payload, std::uint64_t* sums) const {
    for (std::size_t i = 0; i < spot_count; ++i) {
      std::uint64_t v;
      std::memcpy(&v, payload + spots[i].at, 8);
      sums[spots[i].sum] += static_cast<std::uint32_t>(v >> spots[i].lsb) & spots[i].mask;
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

  /// The kind of a non-IBS event's samples.
  std::uint32_t event_kind(std::uint32_t event);

  /// IBS: the kinds of payloads, found by key. `decoder` decodes new keys.
  void use_ibs(const amd_ibs::IbsCapture& capture);
  /// IBS: reads payloads' keys (FastIbsDecoder::key_of).
  const amd_ibs::FastIbsDecoder& decoder() const { return *decoder_; }
  /// The key kind of a payload whose key is `key`, or nullptr when its kind
  /// cannot be cached (take it by ibs_sample() then). Once per sample: inline.
  const KeyKind* find(const amd_ibs::FastIbsDecoder::Key& key, std::span<const std::byte> payload) {
    const std::uint32_t i = key_index_.find(IbsKey{key});
    if (i != FlatIndex<IbsKey>::none) return &key_kinds_[i];
    return add_key(key, payload);
  }
  /// A payload decoded in full: its kind, and its measures in `sums` (by the kind's sums).
  std::uint32_t decode(amd_ibs::IbsUnit unit, std::span<const std::byte> payload, std::uint64_t& ip,
                       std::array<std::uint64_t, max_sums>& sums);

 private:
  struct IbsKey {
    amd_ibs::FastIbsDecoder::Key key;
    bool operator==(const IbsKey& o) const { return key.same(o.key); }
    friend std::uint64_t flat_hash(const IbsKey& k) { return k.key.hash(); }
  };
  struct SignatureKey {
    bool ibs;
    amd_ibs::IbsUnit unit;
    std::uint32_t event, measured;
    ConditionSet conditions, observed;
    bool operator==(const SignatureKey&) const = default;
  };
  struct SignatureHash {
    std::size_t operator()(const SignatureKey& k) const;
  };
  std::uint32_t kind_of(const SignatureKey& key);
  const KeyKind* add_key(const amd_ibs::FastIbsDecoder::Key& key, std::span<const std::byte> payload);

  const Predicate* where_;
  std::uint32_t needed_;
  std::vector<Kind> kinds_;
  std::unordered_map<SignatureKey, std::uint32_t, SignatureHash> by_signature_;
  const amd_ibs::IbsCapture* capture_ = nullptr;
  std::optional<amd_ibs::FastIbsDecoder> decoder_;
  FlatIndex<IbsKey> key_index_;
  std::vector<KeyKind> key_kinds_;
};

}  // namespace tagop::report
