#pragma once
// Raw IBS registers -> a model sample, for one processor family, model and
// set of IBS capabilities. Everything the decoder knows comes from the
// field table (layout.hpp).
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <array>     // std::array
#include <cstdint>   // std::uint32_t, std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/amd_ibs/layout.hpp>     // FieldSpec
#include <tagop/amd_ibs/registers.hpp>  // IbsRegisters
#include <tagop/cpu.hpp>                // CpuId
#include <tagop/sample.hpp>             // Sample

namespace tagop TAGOP_API {
namespace amd_ibs {

/// One field of one sample, for printing.
struct DecodedField {
  const FieldSpec* spec;
  std::uint64_t value;
  std::string meaning;  ///< the encoded value's meaning, when it has one
  bool ignored;         ///< its only_if gate does not hold, or another field overrides its value: it means nothing here
  bool invalid;         ///< its valid_if gate or a rule (UndecidedRule) says the hardware's value cannot be trusted
};

class IbsDecoder {
 public:
  /// The layouts of this processor. `caps` (CPUID 8000_001B EAX, the first
  /// word of perf's raw samples) picks the fields that come with a
  /// capability (Zen 4's DataSrcHi, Zen 5's DTLB page size); without it,
  /// what capabilities_of(family, model) says. Throws tagop::Error for a
  /// family that has no IBS layout (see require_ibs_family).
  IbsDecoder(unsigned family, unsigned model = 0, std::optional<std::uint32_t> caps = std::nullopt);
  explicit IbsDecoder(const CpuId& cpu) : IbsDecoder(cpu.family, cpu.model) {}

  unsigned family() const { return family_; }
  unsigned model() const { return model_; }
  std::uint32_t caps() const { return caps_; }

  /// The model sample. Registers that are absent leave their conditions
  /// unobserved (not false) and their measures unreported; so do fields the
  /// hardware reports invalid for this sample (valid_if), and values that
  /// leave a condition undecided.
  Sample decode(const IbsRegisters& regs) const;

  /// Every field this processor has in the registers given, in order.
  std::vector<DecodedField> explain(const IbsRegisters& regs) const;

  /// The conditions a sample of this unit can observe on this processor
  /// when every register is present (some samples may still leave one
  /// undecided: see FieldSpec::valid_if and ValueMeaning::unknown).
  ConditionSet observable(IbsUnit unit) const;
  /// The fields of this unit that exist on this processor.
  const std::vector<const FieldSpec*>& fields(IbsUnit unit) const { return plan(unit).fields; }

  /// Conditions every sample of `unit` meets, whatever its bits: what a
  /// capture's sampling filter says of them (L3MissOnly: l3.miss). decode()
  /// and observable() add them.
  void assume(IbsUnit unit, const ConditionSet& hold) { (unit == IbsUnit::fetch ? fetch_ : op_).assumed = hold; }

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
    std::vector<const FieldSpec*> fields;     ///< every field, for explain
    std::vector<FlagByte> flag_bytes;         ///< one-bit flags without gates
    // Encoded fields and gated flags, each after the fields its gates read.
    std::vector<const FieldSpec*> gated;
    std::vector<const FieldSpec*> measures;
    std::vector<const FieldSpec*> addresses;
    std::vector<const DerivedCondition*> derived;
    std::vector<const UndecidedRule*> rules;
    std::array<ConditionSet, register_count> observed_by_register{};
    std::array<std::uint32_t, register_count> measured_by_register{};
    ConditionSet assumed;  ///< assume()
  };
  static Plan compile(IbsUnit unit, unsigned family, unsigned model, std::uint32_t caps);
  const Plan& plan(IbsUnit unit) const { return unit == IbsUnit::fetch ? fetch_ : op_; }

  unsigned family_, model_;
  std::uint32_t caps_;
  Plan fetch_, op_;
};

/// Puts an address field's value where the model sample keeps it.
void store_address(Sample& sample, AddressSlot slot, std::uint64_t value);

/// The conditions a field can decide true or false: its flag, its values'
/// conditions and exclusions, its nonzero.
ConditionSet decidable_by(const FieldSpec& field);
/// Those and the ones its values leave undecided: every condition the
/// field's bits have a say in.
ConditionSet conditions_of(const FieldSpec& field);

/// The field's bits as the manuals write them: "[5]", "[47:32]", "[7:6,2:0]".
std::string bits_text(const FieldSpec& field);

/// Whether a field means something, and can be trusted, for a sample with
/// these conditions (its only_if and valid_if gates).
inline bool gates_pass(const FieldSpec& f, const ConditionSet& conditions) {
  return f.only_if.matches(conditions) && f.valid_if.matches(conditions);
}

}  // namespace amd_ibs
}  // namespace tagop
