#pragma once
// The bit layout of every IBS register field, declared once. The decoder,
// the `explain` printout and the tests all iterate this table; nothing else
// knows a bit position.

#include <array>        // std::array
#include <cstdint>      // std::uint8_t, std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <tagop/amd_ibs/registers.hpp>  // IbsRegister
#include <tagop/conditions.hpp>         // Condition
#include <tagop/measures.hpp>           // Measure
#include <tagop/predicate.hpp>          // Term

namespace tagop::amd_ibs {

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

/// A value of a multi-bit field and the condition it means.
struct ValueMeaning {
  std::uint8_t value = 0;
  std::optional<Condition> condition{};
  std::string_view text{};
};

struct FieldSpec {
  std::string_view name{};  // as the AMD manuals spell it
  IbsRegister reg{};
  std::uint8_t lsb = 0;
  std::uint8_t width = 1;
  /// Where the field exists; a second range for fields with a gap.
  std::array<CpuRange, 2> cpus{every_family, CpuRange{}};
  /// A one-bit field that sets this condition when it is 1.
  std::optional<Condition> flag{};
  /// A counter field that reports this measure.
  std::optional<Measure> measure{};
  /// An address field and where it goes.
  AddressSlot address = AddressSlot::none;
  /// For encoded fields: each value's meaning.
  std::array<ValueMeaning, 6> values{};
  /// For encoded fields: the condition that holds when the field is not 0.
  std::optional<Condition> nonzero{};
  /// The field means something only when this condition holds (the fetch
  /// page size needs a translation); otherwise it is ignored.
  std::optional<Condition> only_if{};
  std::string_view description{};

  constexpr std::uint64_t extract(std::uint64_t reg_value) const {
    return width == 64 ? reg_value : (reg_value >> lsb) & ((std::uint64_t{1} << width) - 1);
  }
  /// The field's bits in its register.
  constexpr std::uint64_t mask() const {
    return width == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << width) - 1) << lsb;
  }
  constexpr bool exists_on(unsigned family, unsigned model) const {
    return cpus[0].contains(family, model) || cpus[1].contains(family, model);
  }
};

/// A condition no single bit gives: it holds when `when` does.
struct DerivedCondition {
  IbsUnit unit;
  Condition condition;
  Term when;
};

/// Every field of every IBS register, fetch then op, in register order.
std::span<const FieldSpec> field_table();
/// Conditions computed from the decoded ones (e.g. fetch.killed).
std::span<const DerivedCondition> derived_condition_table();

}  // namespace tagop::amd_ibs
