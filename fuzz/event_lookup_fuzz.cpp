// libFuzzer target: any bytes as an event name or search words, as
// `events show` and `events search` take them: every spelling is tried
// (tables, libpfm4-style PMU::EVENT, perf's cpu/event=../ and rNNNN, SDM
// codes), and a name not found gets its did-you-mean, which must come in
// bounded time however long the name.

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint8_t
#include <string_view>

#include <tagop/event_search.hpp>  // find_events, closest_event_names, search_events

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const tagop::EventEntry* e : tagop::find_events(text))
    if (e == nullptr) __builtin_trap();
  const auto close = tagop::closest_event_names(text);
  if (close.size() > 3) __builtin_trap();
  for (const tagop::SearchHit& hit : tagop::search_events(text))
    if (hit.entry == nullptr || hit.score <= 0) __builtin_trap();
  return 0;
}
