#pragma once
// The perf_event_attr of a software event as perf record sets it for a
// synthetic capture: IDENTIFIER, IP, TID, TIME and PERIOD, sample_id_all.

#include <linux/perf_event.h>

#include <cstdint>

inline perf_event_attr software_event_attr(std::uint64_t config, std::uint64_t period) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = config;
  a.sample_period = period;
  a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  a.sample_id_all = 1;
  return a;
}
