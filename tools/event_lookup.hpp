#pragma once
// Finding events in the registry's tables from whatever people paste: SDM
// names, libpfm4 names (slm::BACLEARS:ALL), perf names (cpu/event=0xe6,
// umask=0x1/, r01e6), IBS selects (0xF206, F206), abbreviations, any case;
// and ranking them for a search or a "did you mean".

#include <cstddef>      // std::size_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/event.hpp>  // EventEntry
#include <tagop/names.hpp>  // edit_distance

namespace tagop::cli {

/// Every event of every registered backend, in registry and table order.
const std::vector<const EventEntry*>& all_events();

/// Registry::lookup of the built-in registry (any spelling, raw ones too).
std::vector<const EventEntry*> find_events(std::string_view text);

/// Up to `max` distinct event names closest to `text`, best first.
std::vector<std::string> closest_event_names(std::string_view text, std::size_t max = 3);

struct SearchHit {
  const EventEntry* entry = nullptr;
  int score = 0;
};

/// Events ranked by how well their name and description match the words;
/// a word matches a prefix, a part of a name, or itself with a typo.
/// Throws tagop::Error for more than max_search_words words.
std::vector<SearchHit> search_events(std::string_view words);
inline constexpr std::size_t max_search_words = 16;

/// Edit distance (insertions, deletions, substitutions, transpositions).
std::string lower(std::string_view s);

}  // namespace tagop::cli
