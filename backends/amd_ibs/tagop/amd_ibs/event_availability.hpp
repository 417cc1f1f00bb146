#pragma once
// Whether a derived event can be counted on a processor, and which bits
// decide it there: computed from the layout table (which fields exist, the
// gates and errata that leave a condition undecided for some samples), with
// the event table's readings for that processor beside it. What `tagop
// events show 0xF244 --family 17h` prints.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/amd_ibs/decoder.hpp>         // IbsDecoder
#include <tagop/amd_ibs/derived_events.hpp>  // IbsDerivedEventSpec, EventReading

namespace tagop TAGOP_API {
namespace amd_ibs {

struct EventAvailability {
  enum class Verdict : std::uint8_t {
    available,      ///< every sample decides the event
    depends,        ///< some samples leave it undecided: n/a on captures that have them
    not_available,  ///< no sample can be counted toward it on this processor
  };
  Verdict verdict = Verdict::available;
  /// Each condition the event tests, and the fields that decide it here:
  /// "src.cache: DataSrc (IbsOpData2[2:0]) = 4".
  std::vector<std::string> deciders;
  /// Why it is not available, or which samples leave it undecided.
  std::vector<std::string> reasons;
  /// The event table's readings for this processor.
  std::vector<const EventReading*> readings;
};

/// The decision for one event on the decoder's processor and capabilities.
EventAvailability event_availability(const IbsDerivedEventSpec& event, const IbsDecoder& decoder);

/// "available", "depends on the samples", "not available".
std::string_view verdict_name(EventAvailability::Verdict verdict);

/// "Family 19h model 01h (Zen 3), IBS capabilities 0x3ff"
std::string processor_text(const IbsDecoder& decoder);

}  // namespace amd_ibs
}  // namespace tagop
