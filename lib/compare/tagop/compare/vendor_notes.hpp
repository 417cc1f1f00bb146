#pragma once
// What a sample of each backend means: where its address points and what a
// count of its samples counts; and why counts of different backends are
// never mixed. `tagop compare` and `tagop events show` print these beside
// each event.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <string>  // std::string

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/event.hpp>  // EventEntry

namespace tagop TAGOP_API {
namespace compare {

/// Where the reported instruction address points, for samples of `e`, in
/// words ("exact instruction ...", "next instruction ...", "none ...").
std::string address_precision(const EventEntry& e);

/// What one sample, and a count of samples, of `e` stands for, in words.
std::string sample_meaning(const EventEntry& e);

/// IBS sample counts and event counts are not the same unit (seed 001).
inline constexpr const char* never_mix_caveat =
    "IBS-derived sample counts and event counts (P4 tagging, Intel core counters and PEBS, Zen core counters) come "
    "from different sampling bases: never add, subtract or divide one by the other, and do not read fewer "
    "IBS samples as 'better' than more event samples for the same condition (AMD CodeAnalyst).";

}  // namespace compare
}  // namespace tagop
