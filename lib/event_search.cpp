#include <tagop/event_search.hpp>

#include <algorithm>  // std::sort, std::min
#include <cctype>     // std::tolower, std::isalnum, std::isspace
#include <utility>    // std::pair

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>     // Error
#include <tagop/names.hpp>     // edit_distance, event_name_key
#include <tagop/registry.hpp>  // Registry

namespace tagop {

namespace {


std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

// A typo: one edit in a word of four letters or more, two from eight.
bool is_typo_of(std::string_view word, std::string_view token) {
  if (word.size() < 4) return false;
  const std::size_t allowed = word.size() >= 8 ? 2 : 1;
  const std::size_t diff = word.size() > token.size() ? word.size() - token.size() : token.size() - word.size();
  return diff <= allowed && edit_distance(word, token) <= allowed;
}

int word_score(std::string_view word, const std::vector<std::string>& toks, int exact, int prefix, int typo) {
  int best = 0;
  for (const std::string& t : toks) {
    if (t == word) return exact;
    if (t.starts_with(word) && word.size() >= 2) best = std::max(best, prefix);
    else if (is_typo_of(word, t)) best = std::max(best, typo);
  }
  return best;
}

}  // namespace

const std::vector<const EventEntry*>& all_events() {
  static const std::vector<const EventEntry*> events = Registry::builtin().events();
  return events;
}

std::vector<const EventEntry*> find_events(std::string_view text) { return Registry::builtin().lookup(text); }

std::vector<std::string> closest_event_names(std::string_view text, std::size_t max) {
  const std::string key = event_name_key(text);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const EventEntry* e : all_events()) {
    for (std::string_view n : {e->name, e->abbreviation}) {
      if (n.empty()) continue;
      const std::string k = event_name_key(n);
      std::size_t d = edit_distance(key, k);
      // A name that contains what was typed is as good as one edit away.
      if (key.size() >= 3 && k.find(key) != std::string::npos) d = std::min<std::size_t>(d, 1);
      scored.emplace_back(d, std::string(n));
    }
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, name] : scored) {
    if (out.size() >= max) break;
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

std::vector<SearchHit> search_events(std::string_view words) {
  const std::vector<std::string> query = tokens(words);
  // Each word is held against every word of every event, typos allowed.
  if (query.size() > max_search_words)
    throw Error(fmt::format("{} words to search for: at most {}", query.size(), max_search_words));
  std::vector<SearchHit> hits;
  if (query.empty()) return hits;
  for (const EventEntry* e : all_events()) {
    const std::vector<std::string> name_tokens = tokens(std::string(e->name) + " " + std::string(e->abbreviation));
    const std::vector<std::string> description_tokens = tokens(e->description);
    const std::string whole_name = ascii_lower(e->name);
    int score = 0;
    bool every_word = true;
    for (const std::string& w : query) {
      int s = std::max(word_score(w, name_tokens, 10, 7, 5), word_score(w, description_tokens, 3, 2, 1));
      // A part of a name written without its separators: "baclear" in BACLEARS.ALL.
      if (s == 0 && w.size() >= 3 && whole_name.find(w) != std::string::npos) s = 4;
      every_word = every_word && s > 0;
      score += s;
    }
    if (score > 0 && every_word) hits.push_back({.entry = e, .score = score});
  }
  std::stable_sort(hits.begin(), hits.end(), [](const SearchHit& a, const SearchHit& b) { return a.score > b.score; });
  return hits;
}

}  // namespace tagop
