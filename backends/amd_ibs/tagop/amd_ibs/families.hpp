#pragma once
// The processor families that have IBS, and what each generation's CPUID
// 8000_001B reports by default: the list every family given on the command
// line or read from HEADER_CPUID is checked against.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstdint>      // std::uint8_t, std::uint32_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {
namespace amd_ibs {

struct IbsFamily {
  std::uint8_t family;
  std::string_view parts;  ///< "Zen 3, Zen 4"
};

/// Every family with an IBS layout, in order.
std::span<const IbsFamily> ibs_families();

/// nullptr for a family without IBS (before 10h, 11h, 13h, 14h) or one this
/// table does not know (after 1Ah).
const IbsFamily* find_ibs_family(unsigned family);

/// Throws tagop::Error naming the known families when `family` is not one.
void require_ibs_family(unsigned family);

/// "10h (K10), 12h (Llano), ...": for messages.
std::string ibs_family_list();

/// The microarchitecture of a family and model as Linux's bsp_init_amd()
/// names it ("Zen 3" for Family 19h model 21h); "" where it has no Zen name.
std::string_view generation(unsigned family, unsigned model);

/// For a model of a Zen family that Linux's table of generations does not
/// list (a part newer than tagop, or a gap between spans): the nearest
/// model it lists, whose layout to decode with (Family 1Ah model 30h:
/// 2Fh, Zen 5). nullopt for a listed model, and for the families before
/// Zen, whose every model has its layout.
std::optional<unsigned> nearest_known_model(unsigned family, unsigned model);

/// The capabilities a processor of this family and model reports in CPUID
/// 8000_001B EAX (and perf in the first word of every raw IBS sample), as
/// Linux boot logs print them ("perf: AMD IBS detected (0x00000bff)"):
/// 0x3ff on Zen 1-3, 0xbff on Zen 4, 0x81bff on Zen 5.
std::uint32_t capabilities_of(unsigned family, unsigned model);

}  // namespace amd_ibs
}  // namespace tagop
