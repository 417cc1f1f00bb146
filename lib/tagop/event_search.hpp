#pragma once
// Finding events in the built-in registry's tables from whatever people
// paste: SDM names, libpfm4 names (slm::BACLEARS:ALL), perf names
// (cpu/event=0xe6,umask=0x1/, r01e6), IBS selects (0xF206, F206),
// abbreviations, any case; and ranking them for a search or a "did you
// mean" when nothing is found. `tagop events show|search` and `tagop
// compare` answer with these.
//
//   if (tagop::find_events(text).empty())
//     for (const std::string& name : tagop::closest_event_names(text)) ...
//   for (const tagop::SearchHit& hit : tagop::search_events("branch mispredict"))
//     fmt::print("{} {}\n", hit.score, hit.entry->name);
//
// Thread safety: the tables are Registry::builtin()'s, immutable once made
// (thread-safe static initialisation): every function here is safe from
// any thread.

#include <cstddef>      // std::size_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/event.hpp>  // EventEntry

namespace tagop TAGOP_API {

/// Every event of every built-in backend, in registry and table order.
const std::vector<const EventEntry*>& all_events();

/// Registry::builtin().lookup(text): the entries `text` spells, by any
/// spelling (raw ones too); empty when none.
std::vector<const EventEntry*> find_events(std::string_view text);

/// Up to `max` distinct event names or abbreviations closest to `text`,
/// best first, for a "did you mean": fewest edits (any case, ':' read as
/// '.'), and a name that contains `text` (3 characters or more) counts as
/// one edit away.
std::vector<std::string> closest_event_names(std::string_view text, std::size_t max = 3);

/// One event that a search found, and how well it matched.
struct SearchHit {
  /// The event, in the built-in registry's tables.
  const EventEntry* entry = nullptr;
  /// The sum of its words' scores, above 0: a word found in the name
  /// scores more than one found in the description.
  int score = 0;
};

/// At most this many words to one search_events().
inline constexpr std::size_t max_search_words = 16;

/// The events every one of `words` matches, best first (ties in table
/// order): a word matches a word of the event's name, abbreviation or
/// description whole, as a prefix, with a typo (one edit from four
/// letters, two from eight), or, 3 letters or more, as a part of the name
/// written without its separators ("baclear" in BACLEARS.ALL). Words are
/// runs of letters and digits, any case. Throws tagop::Error for more than
/// max_search_words words.
std::vector<SearchHit> search_events(std::string_view words);

}  // namespace tagop
