#pragma once
// The IbsDecoder's result, fast: a capture holds millions of samples but
// only a few hundred distinct combinations of the bits that decide
// conditions. Those bits (taken from the field table) key a small cache of
// decoded conditions; measures and addresses are extracted per sample.
// decode() returns exactly what IbsDecoder::decode() does.

#include <algorithm>  // std::find_if
#include <array>    // std::array
#include <cstdint>  // std::uint64_t
#include <vector>   // std::vector

#include <tagop/amd_ibs/decoder.hpp>    // IbsDecoder
#include <tagop/amd_ibs/registers.hpp>  // IbsRegisters

namespace tagop::amd_ibs {

class FastIbsDecoder {
 public:
  explicit FastIbsDecoder(unsigned family, unsigned model = 0);

  const IbsDecoder& decoder() const { return decoder_; }
  Sample decode(const IbsRegisters& regs) const;

 private:
  static constexpr std::size_t key_registers = 4;
  struct Key {
    std::uint32_t present = 0;
    IbsUnit unit = IbsUnit::op;
    std::array<std::uint64_t, key_registers> bits{};
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct Decided {
    Key key;
    ConditionSet conditions, observed;
    std::uint32_t measured = 0;
  };
  struct UnitPlan {
    std::vector<std::pair<IbsRegister, std::uint64_t>> condition_bits;  // register, mask
    std::vector<const FieldSpec*> values;  // measure and address fields
    bool cacheable = true;
  };

  Key key_of(const IbsRegisters& regs) const;
  const Decided& decided(const IbsRegisters& regs) const;

  IbsDecoder decoder_;
  std::array<UnitPlan, 2> plans_;
  // Open addressing, index + 1 into entries_; bounded, so memory never grows
  // with the samples (past the bound every sample takes the full decode).
  mutable std::vector<Decided> entries_;
  mutable std::vector<std::uint32_t> slots_;
  mutable Decided scratch_;
};

}  // namespace tagop::amd_ibs
