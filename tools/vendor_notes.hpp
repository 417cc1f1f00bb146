#pragma once
// What a sample of each backend means: where its address points and what a
// count of its samples counts. `compare` prints these beside each event.

#include <string>  // std::string

#include <tagop/event.hpp>  // EventEntry

namespace tagop::cli {

/// Where the reported instruction address points, for samples of `e`.
std::string address_precision(const EventEntry& e);

/// What one sample, and a count of samples, of `e` stands for.
std::string sample_meaning(const EventEntry& e);

/// Seed 001: IBS sample counts and event counts are not the same unit.
inline constexpr const char* never_mix_caveat =
    "IBS-derived sample counts and event counts (P4 tagging, Silvermont/Goldmont counters and PEBS) come "
    "from different sampling bases: never add, subtract or divide one by the other, and do not read fewer "
    "IBS samples as 'better' than more event samples for the same condition (AMD CodeAnalyst).";

}  // namespace tagop::cli
