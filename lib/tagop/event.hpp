#pragma once
// The vendor-neutral view of one event of one backend's table: what the
// lookup tool lists and what `compare` matches across vendors. Each backend
// keeps its own richer table and publishes these views of it.
//
// Thread safety: EventEntry rows live in static constant tables: immutable, safe to share.

#include <cstdint>      // std::uint8_t
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/sample.hpp>  // SampleKind

namespace tagop TAGOP_API {

enum class Mechanism {
  instruction_sampling,    ///< AMD IBS: one op or fetch in N, every flag at once
  at_retirement_tagging,   ///< Pentium 4: tagged uops counted when they retire
  precise_event,           ///< PEBS: the event's own condition, a precise sample
  count_only,              ///< a counter, no op predicate
};

std::string_view mechanism_name(Mechanism m);

/// What an event counts one of. Two events with the same condition but
/// different units do not count the same thing: an x86 instruction may be
/// one AMD macro-op or several, and one Intel uop or several.
enum class CountingUnit : std::uint8_t {
  instructions,  ///< architectural instructions (INST_RETIRED, BR_INST_RETIRED)
  uops,          ///< Intel micro-ops (UOPS_RETIRED, MEM_UOPS_RETIRED, Pentium 4 tagged uops)
  macro_ops,     ///< AMD macro-ops: what IBS op sampling tags
  fetches,       ///< instruction fetches: what IBS fetch sampling tags
  cycles,        ///< a sum of cycles over the selected samples (latency events)
  occurrences,   ///< events, not ops (a load may be blocked twice; BACLEARS)
  operations,    ///< Arm operations: what SPE samples (an instruction is one or several, as the core splits it)
};

/// "instructions", "uops", "macro-ops", "fetches", "cycles", "occurrences", "operations".
std::string_view counting_unit_name(CountingUnit u);

struct EventEntry {
  std::string_view backend;       ///< "amd-ibs", "p4", "silvermont", "goldmont"
  std::string_view name;          ///< as the vendor spells it
  std::string_view code;          ///< "0xF206", "0xC4:0x00", the vendor's own selector
  std::string_view abbreviation;  ///< short form where the vendor has one
  std::string_view description;
  std::string_view predicate;     ///< over the condition vocabulary; "" = count-only
  std::string_view sums;          ///< measure a latency event sums, or ""
  SampleKind kind = SampleKind::op;
  Mechanism mechanism = Mechanism::count_only;
  bool precise = false;           ///< gives a precise sample address
  std::string_view event_code{};  ///< Intel event select, "0xC4"; "" where the vendor has none
  std::string_view umask{};       ///< Intel unit mask, "0x7E"; "" where the vendor has none
  CountingUnit unit = CountingUnit::occurrences;  ///< what one count is
};

}  // namespace tagop
