#pragma once
// The bit layout of every IBS register field, declared once. The decoder,
// the `explain` printout and the tests all iterate this table; nothing else
// knows a bit position. A field exists on a span of processors and, where
// the hardware says so in CPUID 8000_001B, only with some capabilities; the
// errata of a processor are fields of their own, with the rule that says
// when the hardware's bits are not to be believed.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <array>        // std::array
#include <cstdint>      // std::uint8_t, std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/amd_ibs/registers.hpp>  // IbsRegister
#include <tagop/conditions.hpp>         // Condition
#include <tagop/measures.hpp>           // Measure
#include <tagop/predicate.hpp>          // Term

namespace tagop TAGOP_API {
namespace amd_ibs {

/// A span of processors, (family, model) to (family, model) inclusive,
/// ordered by family then model. IBS fields come and go with models inside
/// a family (Family 15h models 30h+ added several), so a family alone is
/// not enough.
struct CpuRange {
  std::uint8_t first_family = 0, first_model = 0;
  std::uint8_t last_family = 0, last_model = 0;
  constexpr bool empty() const { return first_family == 0; }
  constexpr bool contains(unsigned family, unsigned model) const {
    const unsigned at = family << 8 | model;
    return !empty() && at >= (unsigned{first_family} << 8 | first_model) &&
           at <= (unsigned{last_family} << 8 | last_model);
  }
};

inline constexpr CpuRange every_family{0x10, 0x00, 0xFF, 0xFF};

/// Where a field's value goes in the model sample, when it is an address.
enum class AddressSlot : std::uint8_t { none, ip, ip_physical, data_linear, data_physical, branch_target };

/// A value of a multi-bit field and what it means.
struct ValueMeaning {
  std::uint8_t value = 0;
  /// The conditions that hold when the field has this value.
  ConditionSet conditions{};
  /// The conditions this value leaves undecided for the sample (Zen 1-3's
  /// "local node cache" is the L3 or another core's cache, and says not
  /// which): they are neither true nor false.
  ConditionSet unknown{};
  /// The conditions this value makes false whatever other fields say (a
  /// "local node cache" is local even if RmtNode is set).
  ConditionSet excludes{};
  /// The value means this only when the gate holds; otherwise the field is
  /// ignored (an uncacheable access's data source is valid only when it
  /// names I/O).
  Term only_if{};
  std::string_view text{};
};

/// Whether a gate is set at all.
constexpr bool gated(const Term& t) { return !t.require.empty() || !t.forbid.empty(); }

struct FieldSpec {
  std::string_view name{};  ///< as the AMD manuals (and Linux's amd-ibs.h) spell it
  IbsRegister reg{};
  std::uint8_t lsb = 0;
  std::uint8_t width = 1;
  /// The field's upper bits, where the hardware put them elsewhere in the
  /// register (Zen 4's DataSrcHi, IbsOpData2 7:6, above DataSrc 2:0); the
  /// value is (high << width) | low.
  std::uint8_t high_lsb = 0, high_width = 0;
  /// Where the field exists (up to three spans: Zen 3 models interleave
  /// with Zen 4's in Family 19h).
  std::array<CpuRange, 3> cpus{every_family, CpuRange{}, CpuRange{}};
  /// It exists only when the capabilities (CPUID 8000_001B EAX, the first
  /// word of perf's raw sample) have all of `needs_caps` and none of
  /// `unless_caps`.
  std::uint32_t needs_caps = 0, unless_caps = 0;
  /// A one-bit field that sets this condition when it is 1.
  std::optional<Condition> flag{};
  /// A counter field that reports this measure.
  std::optional<Measure> measure{};
  /// An address field and where it goes.
  AddressSlot address = AddressSlot::none;
  /// For encoded fields: each value's meaning.
  std::span<const ValueMeaning> values{};
  /// For encoded fields: the condition that holds when the field is not 0.
  std::optional<Condition> nonzero{};
  /// The field means something only when this holds (the fetch page size
  /// needs a translation; a data source needs a load that missed the L2);
  /// otherwise it is ignored: it sets nothing, as if it were 0.
  Term only_if{};
  /// The hardware's value is valid only when this holds (an erratum, or a
  /// bit that Zen 5 reports only with a physical address); otherwise what
  /// the field decides is unknown for the sample, neither true nor false.
  Term valid_if{};
  /// The erratum or source that `valid_if` or the field's existence comes
  /// from, for explain and the per-family decisions.
  std::string_view why{};
  std::string_view description{};

  constexpr std::uint64_t low_mask() const { return width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1; }
  constexpr std::uint64_t extract(std::uint64_t reg_value) const {
    if (width == 64) return reg_value;
    std::uint64_t v = (reg_value >> lsb) & low_mask();
    if (high_width) v |= ((reg_value >> high_lsb) & ((std::uint64_t{1} << high_width) - 1)) << width;
    return v;
  }
  /// `reg_value` with the field set to `value` (the inverse of extract();
  /// bits of `value` past the field are dropped).
  constexpr std::uint64_t insert(std::uint64_t reg_value, std::uint64_t value) const {
    if (width == 64) return value;
    std::uint64_t bits = (value & low_mask()) << lsb;
    if (high_width) bits |= ((value >> width) & ((std::uint64_t{1} << high_width) - 1)) << high_lsb;
    return (reg_value & ~mask()) | bits;
  }
  /// The field's bits in its register.
  constexpr std::uint64_t mask() const {
    if (width == 64) return ~std::uint64_t{0};
    std::uint64_t m = low_mask() << lsb;
    if (high_width) m |= ((std::uint64_t{1} << high_width) - 1) << high_lsb;
    return m;
  }
  constexpr bool exists_on(unsigned family, unsigned model) const {
    for (const CpuRange& r : cpus)
      if (r.contains(family, model)) return true;
    return false;
  }
  constexpr bool exists_with(std::uint32_t caps) const {
    return (caps & needs_caps) == needs_caps && (caps & unless_caps) == 0;
  }
  constexpr bool exists(unsigned family, unsigned model, std::uint32_t caps) const {
    return exists_on(family, model) && exists_with(caps);
  }
  /// Its meaning of `value`, or nullptr.
  constexpr const ValueMeaning* meaning(std::uint64_t value) const {
    for (const ValueMeaning& v : values)
      if (v.value == value) return &v;
    return nullptr;
  }
};

/// A condition no single bit gives: it holds when `when` does.
struct DerivedCondition {
  IbsUnit unit;
  Condition condition;
  Term when;
  CpuRange cpus = every_family;
  CpuRange except{};  ///< where another entry for the same condition applies
  std::string_view why{};
  constexpr bool applies_to(unsigned family, unsigned model) const {
    return cpus.contains(family, model) && !except.contains(family, model);
  }
};

/// What the hardware's bits decide that a sample's other facts take back:
/// when `when` holds once the fields are read, the `unknown` conditions are
/// undecided for the sample and the `unmeasured` measures unreported. For
/// rules of Linux's and perf's reading that span fields (an uncacheable
/// access's DcMiss is not valid unless its data source is I/O), which no
/// one field's gate can state.
struct UndecidedRule {
  IbsUnit unit;
  Term when;
  ConditionSet unknown{};
  std::uint32_t unmeasured = 0;  ///< a bit per Measure::index
  std::array<CpuRange, 3> cpus{every_family, CpuRange{}, CpuRange{}};
  std::uint32_t needs_caps = 0;
  std::string_view why{};
  constexpr bool applies_to(unsigned family, unsigned model, std::uint32_t caps) const {
    bool on = false;
    for (const CpuRange& r : cpus) on = on || r.contains(family, model);
    return on && (caps & needs_caps) == needs_caps;
  }
};

/// Every field of every IBS register, fetch then op, in register order.
std::span<const FieldSpec> field_table();
/// Conditions computed from the decoded ones (e.g. fetch.killed).
std::span<const DerivedCondition> derived_condition_table();
/// The rules that leave a decided fact undecided for some samples.
std::span<const UndecidedRule> undecided_rule_table();

/// The capability bits that change which fields exist: a sample's caps
/// word matters to its layout only through these.
std::uint32_t layout_caps_mask();

}  // namespace amd_ibs
}  // namespace tagop
