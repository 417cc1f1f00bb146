#pragma once
// Raw IBS registers -> a model sample, for one processor family and model.
// Everything the decoder knows comes from the field table (layout.hpp).

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
  const std::vector<const FieldSpec*>& fields(IbsUnit unit) const {
    return unit == IbsUnit::fetch ? fetch_fields_ : op_fields_;
  }

 private:
  unsigned family_, model_;
  std::vector<const FieldSpec*> fetch_fields_, op_fields_;
};

/// The conditions a field can set (its flag, its values, its nonzero).
ConditionSet conditions_of(const FieldSpec& field);

}  // namespace tagop::amd_ibs
