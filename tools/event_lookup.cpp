#include "event_lookup.hpp"

#include <algorithm>  // std::sort, std::min
#include <cctype>     // std::tolower, std::isalnum
#include <charconv>   // std::from_chars
#include <cstdint>    // std::uint64_t
#include <optional>   // std::optional

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>     // Error
#include <tagop/names.hpp>     // edit_distance
#include <tagop/registry.hpp>  // Registry

namespace tagop::cli {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<std::uint64_t> parse_hex(std::string_view s) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  else if (s.ends_with("h") || s.ends_with("H")) s.remove_suffix(1);  // the SDM's "E6H"
  std::uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// An Intel event select and unit mask, however it was spelt.
struct IntelCode {
  std::uint64_t event = 0, umask = 0;
};

bool has_code(const EventEntry& e, const IntelCode& c) {
  if (e.event_code.empty()) return false;
  const auto event = parse_hex(e.event_code);
  const auto umask = e.umask.empty() ? std::optional<std::uint64_t>(0) : parse_hex(e.umask);
  return event && umask && *event == c.event && *umask == c.umask;
}

// perf's cpu/event=0xe6,umask=0x1/ and its raw r01e6 (umask in bits 15:8).
std::optional<IntelCode> perf_code(std::string_view t) {
  if (t.starts_with("r") && t.size() > 1) {
    const auto raw = parse_hex(t.substr(1));
    if (!raw) return std::nullopt;
    return IntelCode{.event = *raw & 0xFF, .umask = (*raw >> 8) & 0xFF};
  }
  const auto slash = t.find('/');
  if (slash == std::string_view::npos || !t.ends_with("/")) return std::nullopt;
  std::string_view terms = t.substr(slash + 1, t.size() - slash - 2);
  IntelCode code;
  bool have_event = false;
  while (!terms.empty()) {
    const auto comma = terms.find(',');
    const std::string_view term = terms.substr(0, comma);
    terms = comma == std::string_view::npos ? std::string_view{} : terms.substr(comma + 1);
    const auto eq = term.find('=');
    if (eq == std::string_view::npos) continue;
    const auto value = parse_hex(term.substr(eq + 1));
    if (!value) return std::nullopt;
    if (term.substr(0, eq) == "event") code.event = *value, have_event = true;
    else if (term.substr(0, eq) == "umask") code.umask = *value;
  }
  if (!have_event) return std::nullopt;
  return code;
}

// "0xE6:0x01", "e6:01", "E6H:01H".
std::optional<IntelCode> sdm_code(std::string_view t) {
  const auto colon = t.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto event = parse_hex(t.substr(0, colon));
  const auto umask = parse_hex(t.substr(colon + 1));
  if (!event || !umask) return std::nullopt;
  return IntelCode{.event = *event, .umask = *umask};
}

// Names compared with ':' and '.' as one separator: libpfm4's
// BACLEARS:ALL is the SDM's BACLEARS.ALL.
std::string name_key(std::string_view s) {
  std::string out = lower(trim(s));
  for (char& c : out)
    if (c == ':') c = '.';
  return out;
}

bool same_code_text(const EventEntry& e, std::string_view t) {
  const std::string code = lower(e.code);
  return code == t || (code.starts_with("0x") && code.substr(2) == t);
}

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

std::string_view backend_of_libpfm_pmu(std::string_view pmu) {
  if (pmu == "slm") return "silvermont";
  if (pmu == "glm") return "goldmont";
  if (pmu == "netburst" || pmu == "netburst_p") return "p4";
  return {};
}

std::vector<const EventEntry*> find_by_intel_code(std::string_view backend, unsigned event, unsigned umask) {
  std::vector<const EventEntry*> out;
  for (const EventEntry* e : all_events())
    if (e->backend == backend && has_code(*e, IntelCode{.event = event, .umask = umask})) out.push_back(e);
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const std::vector<const EventEntry*>& all_events() {
  static const std::vector<const EventEntry*> events = [] {
    std::vector<const EventEntry*> out;
    for (const BackendInfo& b : Registry::builtin().backends())
      for (const EventEntry& e : b.events()) out.push_back(&e);
    return out;
  }();
  return events;
}

std::vector<const EventEntry*> find_events(std::string_view text) {
  std::string t = lower(trim(text));
  std::string_view backend;
  // libpfm4's PMU::EVENT:UMASK names this PMU's table.
  if (const auto sep = t.find("::"); sep != std::string::npos) {
    backend = backend_of_libpfm_pmu(std::string_view(t).substr(0, sep));
    if (backend.empty()) return {};
    t = t.substr(sep + 2);
  }
  const std::string key = name_key(t);
  const auto perf = perf_code(t);
  const auto sdm = sdm_code(t);
  std::vector<const EventEntry*> out;
  for (const EventEntry* e : all_events()) {
    if (!backend.empty() && e->backend != backend) continue;
    const std::string name = name_key(e->name);
    // A P4 event named with its mask bits (replay_event:NBOGUS) is the event.
    const bool p4_with_masks = e->backend == "p4" && key.starts_with(name + ".");
    if (name == key || p4_with_masks || (!e->abbreviation.empty() && lower(e->abbreviation) == t) ||
        same_code_text(*e, t) || (perf && has_code(*e, *perf)) || (sdm && has_code(*e, *sdm)))
      out.push_back(e);
  }
  return out;
}

std::vector<std::string> closest_event_names(std::string_view text, std::size_t max) {
  const std::string key = name_key(text);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const EventEntry* e : all_events()) {
    for (std::string_view n : {e->name, e->abbreviation}) {
      if (n.empty()) continue;
      const std::string k = name_key(n);
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
    const std::string whole_name = lower(e->name);
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

}  // namespace tagop::cli
