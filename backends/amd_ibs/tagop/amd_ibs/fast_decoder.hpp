#pragma once
// The IbsDecoder's result, fast: a capture holds millions of samples but
// only a few hundred distinct combinations of the bits that decide
// conditions. Those bits (taken from the field table) key a small cache of
// decoded conditions; measures and addresses are extracted per sample.
// decode() returns exactly what IbsDecoder::decode() does, and
// decode_perf_raw() what IbsDecoder::decode(parse_perf_raw(...)) does,
// reading the registers straight from the payload. kind_of() and
// add_measures() give the same without building a Sample at all, for
// callers that only tally.

#include <array>    // std::array
#include <cstdint>  // std::uint64_t
#include <span>     // std::span
#include <vector>   // std::vector

#include <tagop/amd_ibs/decoder.hpp>    // IbsDecoder
#include <tagop/amd_ibs/registers.hpp>  // IbsRegisters

namespace tagop::amd_ibs {

class FastIbsDecoder {
 public:
  explicit FastIbsDecoder(unsigned family, unsigned model = 0);

  const IbsDecoder& decoder() const { return decoder_; }

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

  /// The kind of a PERF_SAMPLE_RAW payload: an id that payloads with the
  /// same conditions, observed conditions and reported measures share; and
  /// its first register in `control`. no_kind when the kind cache is full
  /// or the unit's conditions cannot be cached: decode_perf_raw() then.
  /// Throws tagop::Error as parse_perf_raw does.
  std::uint32_t kind_of(IbsUnit unit, std::span<const std::byte> payload, std::uint64_t& control) const;
  static constexpr std::uint32_t no_kind = 0xFFFFFFFFu;
  /// Adds the measures a payload of `kind` reports (kind_of's last payload
  /// or one of the same size and capabilities) to `totals`.
  void add_measures(std::uint32_t kind, std::span<const std::byte> payload,
                    std::array<std::uint64_t, measure_count>& totals) const;

  /// What every sample of a kind shares.
  struct KindFacts {
    ConditionSet conditions, observed;
    std::uint32_t measured = 0;
  };
  const KindFacts& facts(std::uint32_t kind) const { return entries_[kind].facts; }

 private:
  static constexpr std::size_t key_registers = 4;
  struct Key {
    std::uint32_t present = 0;
    IbsUnit unit = IbsUnit::op;
    std::array<std::uint64_t, key_registers> bits{};
    bool same(const Key& o) const {
      return ((present ^ o.present) | (static_cast<unsigned>(unit) ^ static_cast<unsigned>(o.unit)) |
              (bits[0] ^ o.bits[0]) | (bits[1] ^ o.bits[1]) | (bits[2] ^ o.bits[2]) | (bits[3] ^ o.bits[3])) == 0;
    }
  };
  // A measure field of one kind: where it is in the payload.
  struct MeasureField {
    std::uint16_t at = 0;  // byte offset in the payload
    std::uint8_t lsb = 0, measure = 0;
    std::uint64_t mask = 0;  // after the shift
  };
  struct Decided {
    Key key;
    KindFacts facts;
    std::array<MeasureField, measure_count> measure_fields{};
    std::uint8_t measure_field_count = 0;
  };
  struct UnitPlan {
    std::vector<std::pair<IbsRegister, std::uint64_t>> condition_bits;  // register, mask
    std::vector<const FieldSpec*> values;  // measure and address fields
    bool cacheable = true;
  };
  // Where a payload of one unit, caps word and size has each register.
  struct RawLayout {
    bool valid = false;
    IbsUnit unit = IbsUnit::op;
    std::uint32_t caps = 0;
    std::size_t size = 0;
    std::uint32_t present = 0;
    std::array<std::int16_t, register_count> offsets{};
  };

  template <typename Registers>
  void fill(const Decided& d, const UnitPlan& plan, const Registers& regs, Sample& s) const;
  const Decided* find(const Key& key, std::size_t& slot) const;
  const Decided& insert(const Key& key, std::size_t slot, const Sample& decoded,
                        const std::array<std::int16_t, register_count>* offsets) const;
  // The cached entry of a raw payload (nullptr when uncacheable).
  const Decided* raw_entry(IbsUnit unit, std::span<const std::byte> payload, std::uint64_t& control) const;
  const RawLayout& raw_layout(IbsUnit unit, std::uint32_t caps, std::size_t size) const;

  IbsDecoder decoder_;
  std::array<UnitPlan, 2> plans_;
  // Open addressing, index + 1 into entries_; bounded, so memory never grows
  // with the samples (past the bound every new key takes the full decode).
  mutable std::vector<Decided> entries_;
  mutable std::vector<std::uint32_t> slots_;
  mutable Decided scratch_;
  mutable std::array<RawLayout, 2> layouts_;  // by unit: the last one seen
};

}  // namespace tagop::amd_ibs
