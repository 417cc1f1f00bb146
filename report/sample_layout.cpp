#include "sample_layout.hpp"

#include <cstdint>  // std::uint64_t

#include <tagop/perf_data_format.hpp>  // RecordHeader

namespace tagop::report {

namespace {

// Bytes of a non-group PERF_SAMPLE_READ: the value and what read_format adds.
std::uint16_t read_size(const perf_event_attr& attr) {
  std::uint16_t n = 8;
  for (std::uint64_t bit : {std::uint64_t{PERF_FORMAT_TOTAL_TIME_ENABLED}, std::uint64_t{PERF_FORMAT_TOTAL_TIME_RUNNING},
                            std::uint64_t{PERF_FORMAT_ID}, std::uint64_t{1} << 4 /* PERF_FORMAT_LOST */})
    if (attr.read_format & bit) n = static_cast<std::uint16_t>(n + 8);
  return n;
}

}  // namespace

SampleLayout SampleLayout::of(const perf_event_attr& attr) {
  SampleLayout l;
  const std::uint64_t t = attr.sample_type;
  std::uint16_t at = sizeof(perf_data::RecordHeader);
  // The kernel's order (perf_output_sample) up to the call chain.
  auto field = [&](std::uint64_t bit, std::uint16_t* where, std::uint16_t size = 8) {
    if (!(t & bit)) return;
    if (where) *where = at;
    at = static_cast<std::uint16_t>(at + size);
  };
  field(PERF_SAMPLE_IDENTIFIER, nullptr);
  field(PERF_SAMPLE_IP, &l.ip_at);
  field(PERF_SAMPLE_TID, &l.pid_at);
  field(PERF_SAMPLE_TIME, &l.time_at);
  field(PERF_SAMPLE_ADDR, nullptr);
  field(PERF_SAMPLE_ID, nullptr);
  field(PERF_SAMPLE_STREAM_ID, nullptr);
  field(PERF_SAMPLE_CPU, &l.cpu_at);
  field(PERF_SAMPLE_PERIOD, &l.period_at);
  const bool group_read = (t & PERF_SAMPLE_READ) && (attr.read_format & PERF_FORMAT_GROUP);
  if (!group_read) field(PERF_SAMPLE_READ, nullptr, read_size(attr));
  l.variable_at = at;
  l.chain = t & PERF_SAMPLE_CALLCHAIN;
  l.raw = t & PERF_SAMPLE_RAW;
  const std::uint64_t known = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                              PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
                              PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
  l.in_place = !group_read && (t & ~known) == 0;
  if (attr.sample_period) l.fixed_period = attr.sample_period;
  return l;
}

}  // namespace tagop::report
