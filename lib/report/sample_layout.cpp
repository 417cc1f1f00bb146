#include "sample_layout.hpp"

#include <cstdint>  // std::uint64_t

#include <tagop/perf_data_format.hpp>  // RecordHeader

namespace tagop::report {

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
  l.variable_at = at;
  l.chain = t & PERF_SAMPLE_CALLCHAIN;
  l.raw = t & PERF_SAMPLE_RAW;
  const std::uint64_t known = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                              PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
                              PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
  // Samples that read counters stand for the counters' events
  // (perf_data::SampleReads): the reader parses them.
  l.in_place = (t & ~known) == 0;
  if (attr.sample_period) l.fixed_period = attr.sample_period;
  return l;
}

}  // namespace tagop::report
