#pragma once
// The vendor-neutral view of one event of one backend's table: what the
// lookup tool lists and what `compare` matches across vendors. Each backend
// keeps its own richer table and publishes these views of it.

#include <string_view>  // std::string_view

#include <tagop/sample.hpp>  // SampleKind

namespace tagop {

enum class Mechanism {
  instruction_sampling,    // AMD IBS: one op or fetch in N, every flag at once
  at_retirement_tagging,   // Pentium 4: tagged uops counted when they retire
  precise_event,           // PEBS: the event's own condition, a precise sample
  count_only,              // a counter, no op predicate
};

std::string_view mechanism_name(Mechanism m);

struct EventEntry {
  std::string_view backend;       // "amd-ibs", "p4", "silvermont", "goldmont"
  std::string_view name;          // as the vendor spells it
  std::string_view code;          // "0xF206", "0xC4:0x00", the vendor's own selector
  std::string_view abbreviation;  // short form where the vendor has one
  std::string_view description;
  std::string_view predicate;     // over the condition vocabulary; "" = count-only
  std::string_view sums;          // measure a latency event sums, or ""
  SampleKind kind = SampleKind::op;
  Mechanism mechanism = Mechanism::count_only;
  bool precise = false;           // gives a precise sample address
  std::string_view event_code{};  // Intel event select, "0xC4"; "" where the vendor has none
  std::string_view umask{};       // Intel unit mask, "0x7E"; "" where the vendor has none
};

}  // namespace tagop
