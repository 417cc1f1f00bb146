#include "event_json.hpp"

namespace tagop::cli {

std::string_view kind_name(const EventEntry& e) { return e.kind == SampleKind::fetch ? "fetch" : "op"; }

std::string predicate_text(const EventEntry& e) {
  if (e.predicate.empty()) return e.mechanism == Mechanism::count_only ? "(count only)" : std::string(kind_name(e));
  return std::string(e.predicate);
}

EventRow event_row(const EventEntry& e) {
  const auto maybe = [](std::string_view text) {
    return text.empty() ? record::Maybe<std::string>() : record::Maybe<std::string>(std::string(text));
  };
  EventRow r;
  r.backend = e.backend;
  r.name = e.name;
  r.code = e.code;
  if (e.backend == "amd-ibs") r.select = std::string(e.code);
  r.event = maybe(e.event_code);
  r.umask = maybe(e.umask);
  r.abbreviation = e.abbreviation;
  r.kind = {kind_name(e)};
  r.predicate = e.predicate;
  r.sums = maybe(e.sums);
  r.mechanism = mechanism_name(e.mechanism);
  r.precise = e.precise;
  r.unit = counting_unit_name(e.unit);
  r.description = e.description;
  return r;
}

}  // namespace tagop::cli
