#pragma once
// The IbsDecoder's result, fast: a capture holds millions of samples but
// only a few hundred distinct combinations of the bits that decide
// conditions. Those bits (taken from the field table) key a small cache of
// decoded conditions; measures and addresses are extracted per sample.
// decode() returns exactly what IbsDecoder::decode() does, and
// decode_perf_raw() what IbsDecoder::decode(parse_perf_raw(...)) does,
// reading the registers straight from the payload. key_of(), kind_of()
// and add_measures() give the same without building a Sample at all, for
// callers that only tally (and may keep their own cache by key). A
// payload is decoded with the layout its own caps word picks (a capture's
// samples carry the processor's CPUID 8000_001B): Zen 4's five-bit data
// source needs capability bit 11, Zen 5's DTLB page size bit 19.
//
// Thread safety: a FastIbsDecoder is not thread-safe, not even decode() (it caches layouts): one per
// thread.

#include <array>     // std::array
#include <cstdint>   // std::uint64_t
#include <cstring>   // std::memcpy
#include <memory>    // std::unique_ptr
#include <optional>  // std::optional
#include <span>      // std::span
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/amd_ibs/decoder.hpp>    // IbsDecoder
#include <tagop/amd_ibs/registers.hpp>  // IbsRegisters

namespace tagop TAGOP_API {
namespace amd_ibs {

class FastIbsDecoder {
 public:
  /// `caps` as IbsDecoder takes it: the layout of registers given without
  /// a caps word (decode(IbsRegisters)).
  explicit FastIbsDecoder(unsigned family, unsigned model = 0, std::optional<std::uint32_t> caps = std::nullopt);
  ~FastIbsDecoder();
  FastIbsDecoder(FastIbsDecoder&&) noexcept;

  /// The decoder of registers given without a caps word.
  const IbsDecoder& decoder() const { return variants_[0]->decoder; }
  /// IbsDecoder::assume() for every layout; before the first decode.
  void assume(IbsUnit unit, const ConditionSet& hold);
  const ConditionSet& assumed(IbsUnit unit) const { return assumed_[static_cast<std::size_t>(unit)]; }
  /// The decoder of payloads whose caps word is `caps`.
  const IbsDecoder& decoder_for(std::uint32_t caps) const { return variants_[variant_of(caps)]->decoder; }

  Sample decode(const IbsRegisters& regs) const {
    Sample s;
    decode(regs, s);
    return s;
  }
  /// The same into `out`, which must be a default-constructed Sample.
  void decode(const IbsRegisters& regs, Sample& out) const;

  /// Decodes a PERF_SAMPLE_RAW payload of `unit` (after its u32 size) into
  /// `out` (default-constructed), and returns its first register
  /// (IbsFetchCtl or IbsOpCtl). Throws tagop::Error as parse_perf_raw does.
  std::uint64_t decode_perf_raw(IbsUnit unit, std::span<const std::byte> payload, Sample& out) const;

  /// The bits of a payload that decide its kind: payloads with the same
  /// key are of the same kind (they share conditions, observed conditions
  /// and the measures they report).
  static constexpr std::size_t key_registers = 4;
  struct Key {
    /// The unit (bit 0), the registers the payload has (a bit each by
    /// IbsRegister, from bit 1) and the layout its caps word picks (from
    /// bit 24), in one word to compare.
    // No initializers: key_of() writes every field, and a key is made per
    // sample (zeroing it first cost 4 instructions of 266). Key{} for zeros.
    std::uint64_t head;
    std::array<std::uint64_t, key_registers> bits;
    static_assert(register_count < 23, "a head has bits 1-23 for the registers");
    static std::uint64_t head_of(IbsUnit unit, std::uint32_t present, std::uint32_t variant = 0) {
      return std::uint64_t{variant} << 24 | std::uint64_t{present} << 1 | static_cast<std::uint64_t>(unit);
    }
    IbsUnit unit() const { return static_cast<IbsUnit>(head & 1); }
    std::uint32_t variant() const { return static_cast<std::uint32_t>(head >> 24) & 0xFF; }
    bool same(const Key& o) const {
      return ((head ^ o.head) | (bits[0] ^ o.bits[0]) | (bits[1] ^ o.bits[1]) | (bits[2] ^ o.bits[2]) |
              (bits[3] ^ o.bits[3])) == 0;
    }
    /// Mixed in all bits, with `row` (a caller's: IbsTally keys tallies
    /// by row and key) if given.
    std::uint64_t hash(std::uint32_t row = 0) const;
  };

  /// The key of a PERF_SAMPLE_RAW payload of `unit` (after its u32 size),
  /// and its first register (IbsFetchCtl or IbsOpCtl) in `control`. False
  /// when the unit's conditions cannot be cached (decode_perf_raw() then).
  /// Throws tagop::Error as parse_perf_raw does. Once per sample: inline.
  bool key_of(IbsUnit unit, std::span<const std::byte> payload, Key& key, std::uint64_t& control) const;
  /// How many times a payload has come in a layout (unit, caps word, size)
  /// other than its unit's last: a caller that checks each new layout
  /// (IbsCapture::check_payload) compares this before and after key_of(),
  /// rather than comparing each payload's caps word and size again.
  std::uint64_t layout_changes() const { return layout_changes_; }

  /// The kind of a payload: an id that payloads of the same key share; and
  /// its first register in `control`. no_kind when the kind cache is full
  /// or the unit's conditions cannot be cached: decode_perf_raw() then.
  /// Throws tagop::Error as parse_perf_raw does.
  std::uint32_t kind_of(IbsUnit unit, std::span<const std::byte> payload, std::uint64_t& control) const;
  /// The same for a payload whose key_of() is `key`.
  std::uint32_t kind_of(const Key& key, std::span<const std::byte> payload) const;
  static constexpr std::uint32_t no_kind = 0xFFFFFFFFu;

  /// Where the payloads of a kind keep the measures they report: a copy
  /// beside a caller's tally saves a load per sample.
  struct MeasureField {
    std::uint16_t at = 0;  ///< byte offset in the payload
    std::uint8_t lsb = 0, measure = 0;
    std::uint32_t mask = 0;  ///< after the shift; a measure is a u32, as fill() stores it
  };
  struct MeasureFields {
    std::array<MeasureField, measure_count> fields{};
    std::uint8_t count = 0;
  };
  const MeasureFields& measure_fields(std::uint32_t kind) const { return entries_[kind].measures; }
  /// Adds the measures that `fields` (measure_fields(kind)) locate in
  /// `payload` (kind_of's last payload, or one of the same size and
  /// capabilities) to `totals`.
  static void add_measures(const MeasureFields& fields, std::span<const std::byte> payload,
                           std::array<std::uint64_t, measure_count>& totals);

  /// What every sample of a kind shares.
  struct KindFacts {
    ConditionSet conditions, observed;
    std::uint32_t measured = 0;
  };
  const KindFacts& facts(std::uint32_t kind) const { return entries_[kind].facts; }

 private:
  struct Decided {
    Key key;
    KindFacts facts;
    MeasureFields measures;
  };
  struct UnitPlan {
    std::vector<std::pair<IbsRegister, std::uint64_t>> condition_bits;  ///< register, mask
    std::vector<const FieldSpec*> values;  ///< measure and address fields
    bool cacheable = true;
  };
  // The decoder of one layout (capability bits that change the fields).
  struct Variant {
    std::uint32_t layout_caps;
    IbsDecoder decoder;
    std::array<UnitPlan, 2> plans;
  };
  const UnitPlan& plan_of(const Key& key) const { return variants_[key.variant()]->plans[static_cast<std::size_t>(key.unit())]; }
  std::uint32_t variant_of(std::uint32_t caps) const;
  std::unique_ptr<Variant> make_variant(unsigned family, unsigned model, std::uint32_t caps) const;
  std::array<ConditionSet, 2> assumed_{};  ///< by unit
  // Where a payload of one unit, caps word and size has each register, and
  // the key's registers: a register the payload lacks reads the caps word
  // through a mask of 0, so that the key is read without a branch.
  struct RawLayout {
    std::uint32_t caps = 0;
    std::uint32_t variant = 0;
    std::size_t size = ~std::size_t{0};  ///< no payload has it: the first one fills the layout
    std::uint64_t head = 0;              ///< Key::head
    bool cacheable = true;
    std::array<std::int16_t, register_count> offsets{};
    std::uint16_t control_at = 0;
    std::array<std::uint16_t, key_registers> key_at{};
    std::array<std::uint64_t, key_registers> key_mask{};
  };

  template <typename Registers>
  void fill(const Decided& d, const UnitPlan& plan, const Registers& regs, Sample& s) const;
  const Decided* find(const Key& key, std::size_t& slot) const;
  const Decided& insert(const Key& key, std::size_t slot, const Sample& decoded,
                        const std::array<std::int16_t, register_count>* offsets) const;
  // The cached entry of a raw payload (nullptr when uncacheable).
  const Decided* raw_entry(IbsUnit unit, std::span<const std::byte> payload, std::uint64_t& control) const;
  const Decided* entry_of(const Key& key, std::span<const std::byte> payload) const;
  const RawLayout& raw_layout(IbsUnit unit, std::span<const std::byte> payload) const;
  const RawLayout& new_raw_layout(IbsUnit unit, std::uint32_t caps, std::size_t size) const;
  static IbsRegisters registers_at(std::span<const std::byte> payload, const RawLayout& layout);

  unsigned family_, model_;
  // [0]: the constructor's caps; others as payloads bring them (at most
  // 2^k for the k bits of layout_caps_mask()).
  mutable std::vector<std::unique_ptr<Variant>> variants_;
  // Open addressing, index + 1 into entries_; bounded, so memory never grows
  // with the samples (past the bound every new key takes the full decode).
  mutable std::vector<Decided> entries_;
  mutable std::vector<std::uint32_t> slots_;
  mutable Decided scratch_;
  mutable std::array<RawLayout, 2> layouts_;  ///< by unit: the last one seen
  mutable std::uint64_t layout_changes_ = 0;
};

/// Whether a caps word can be Linux's: it always has IBSFFV and the unit's
/// sampling bit. Payloads whose word cannot are decoded with the layout of
/// the decoder's own capabilities.
bool plausible_caps(IbsUnit unit, std::uint32_t caps_word);

// Once per sample: inline.

inline const FastIbsDecoder::RawLayout& FastIbsDecoder::raw_layout(IbsUnit unit,
                                                                  std::span<const std::byte> payload) const {
  std::uint32_t caps = 0;
  if (payload.size() >= 4) std::memcpy(&caps, payload.data(), 4);
  const RawLayout& l = layouts_[static_cast<std::size_t>(unit)];
  if (l.caps == caps && l.size == payload.size()) return l;
  return new_raw_layout(unit, caps, payload.size());
}

inline bool FastIbsDecoder::key_of(IbsUnit unit, std::span<const std::byte> payload, Key& key,
                                   std::uint64_t& control) const {
  const RawLayout& l = raw_layout(unit, payload);
  const std::byte* p = payload.data();
  std::memcpy(&control, p + l.control_at, 8);
  if (!l.cacheable) return false;
  key.head = l.head;
#pragma GCC unroll 4
  for (std::size_t i = 0; i < key_registers; ++i) {
    std::uint64_t v;
    std::memcpy(&v, p + l.key_at[i], 8);
    key.bits[i] = v & l.key_mask[i];
  }
  return true;
}

inline void FastIbsDecoder::add_measures(const MeasureFields& fields, std::span<const std::byte> payload,
                                         std::array<std::uint64_t, measure_count>& totals) {
  for (const MeasureField *m = fields.fields.data(), *end = m + fields.count; m != end; ++m) {
    std::uint64_t v;
    std::memcpy(&v, payload.data() + m->at, 8);
    totals[m->measure] += static_cast<std::uint32_t>(v >> m->lsb) & m->mask;
  }
}

inline std::uint64_t FastIbsDecoder::Key::hash(std::uint32_t row) const {
  // Independent multiplies, so that they overlap; the keys differ in few
  // bits. The row goes above the head's 32 bits.
  std::uint64_t h = (head | std::uint64_t{row} << 32) * 0x9E3779B97F4A7C15ull;
  h ^= bits[0] * 0xBF58476D1CE4E5B9ull;
  h ^= bits[1] * 0x94D049BB133111EBull;
  h ^= bits[2] * 0xD6E8FEB86659FD93ull;
  h ^= bits[3] * 0xC2B2AE3D27D4EB4Full;
  return h ^ (h >> 29);
}

}  // namespace amd_ibs
}  // namespace tagop
