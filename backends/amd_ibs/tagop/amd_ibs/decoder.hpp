#pragma once
// Raw IBS registers -> a model sample, for one processor family and model.
// Everything the decoder knows comes from the field table (layout.hpp).

#include <array>    // std::array
#include <cstdint>  // std::uint64_t
#include <string>   // std::string
#include <vector>   // std::vector

#include <tagop/amd_ibs/layout.hpp>     // FieldSpec
#include <tagop/amd_ibs/registers.hpp>  // IbsRegisters
#include <tagop/cpu.hpp>                // CpuId
#include <tagop/sample.hpp>             // Sample

namespace tagop::amd_ibs {

/// One field of one sample, for printing.
struct DecodedField {
  const FieldSpec* spec;
  std::uint64_t value;
  std::string meaning;  // the encoded value's meaning, when it has one
  bool ignored;         // its only_if condition does not hold
};

class IbsDecoder {
 public:
  /// The layouts of this processor. Throws tagop::Error for a family that
  /// has no IBS (before 10h, and 14h).
  IbsDecoder(unsigned family, unsigned model = 0);
  explicit IbsDecoder(const CpuId& cpu) : IbsDecoder(cpu.family, cpu.model) {}

  unsigned family() const { return family_; }
  unsigned model() const { return model_; }

  /// The model sample. Registers that are absent leave their conditions
  /// unobserved (not false) and their measures unreported.
  Sample decode(const IbsRegisters& regs) const;

  /// Every field this processor has in the registers given, in order.
  std::vector<DecodedField> explain(const IbsRegisters& regs) const;

  /// The conditions a sample of this unit can observe on this processor
  /// when every register is present.
  ConditionSet observable(IbsUnit unit) const;
  /// The fields of this unit that exist on this processor.
  const std::vector<const FieldSpec*>& fields(IbsUnit unit) const { return plan(unit).fields; }

 private:
  // The table compiled for this processor, so that a decode is a handful
  // of table look-ups: each byte of a register that holds one-bit flags
  // maps, through 256 precomputed sets, straight to its conditions.
  struct FlagByte {
    IbsRegister reg;
    unsigned shift;
    std::array<ConditionSet, 256> conditions;
  };
  struct Plan {
    std::vector<const FieldSpec*> fields;     // every field, for explain
    std::vector<FlagByte> flag_bytes;
    std::vector<const FieldSpec*> encoded;    // multi-bit fields with meanings
    std::vector<const FieldSpec*> measures;
    std::vector<const FieldSpec*> addresses;
    std::array<ConditionSet, register_count> observed_by_register{};
    std::array<std::uint32_t, register_count> measured_by_register{};
  };
  static Plan compile(IbsUnit unit, unsigned family, unsigned model);
  const Plan& plan(IbsUnit unit) const { return unit == IbsUnit::fetch ? fetch_ : op_; }

  unsigned family_, model_;
  Plan fetch_, op_;
};

/// Puts an address field's value where the model sample keeps it.
void store_address(Sample& sample, AddressSlot slot, std::uint64_t value);

/// The conditions a field can set (its flag, its values, its nonzero).
ConditionSet conditions_of(const FieldSpec& field);

}  // namespace tagop::amd_ibs
