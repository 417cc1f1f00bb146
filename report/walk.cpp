#include "walk.hpp"

#include <algorithm>  // std::find

namespace tagop::report {

void PeriodSeen::add(const amd_ibs::IbsCapture::Period& p, std::uint64_t n) {
  if (n == 0) return;
  samples += n;
  sum += p.period * n;
  min = std::min(min, p.period);
  max = std::max(max, p.period);
  counts_ops = counts_ops || p.counts_ops;
}

Walk::Walk(const perf_data::PerfDataReader& reader, const amd_ibs::IbsCapture* capture, const Filters& filters,
           std::uint32_t needed_measures, std::function<void(std::uint64_t, std::uint64_t)> progress)
    : capture_(capture),
      file_(reader.bytes().data()),
      filters_(filters),
      spaces_(reader.info().build_ids,
              [this](std::uint32_t pid, std::string_view comm) {
                const Filters& x = filters_;
                if (!x.pids.empty() && std::find(x.pids.begin(), x.pids.end(), pid) == x.pids.end()) return false;
                return x.comms.empty() || std::find(x.comms.begin(), x.comms.end(), comm) != x.comms.end();
              }),
      kinds_(filters_.where ? &*filters_.where : nullptr, needed_measures),
      progress_(std::move(progress)) {
  filtering_ = !filters_.cpus.empty() || !filters_.tids.empty() || filters_.time;
  if (capture_) kinds_.use_ibs(*capture_);
  const auto& attrs = reader.info().attrs;
  for (std::uint32_t e = 0; e < attrs.size(); ++e) {
    EventPlan p;
    p.layout = SampleLayout::of(attrs[e].attr);
    p.ibs = capture_ != nullptr;
    if (!p.ibs) p.kind = kinds_.event_kind(e);
    plans_.push_back(p);
  }
  end_period_runs();  // sets the masks
}

std::uint64_t Walk::sample_fields() const {
  return PERF_SAMPLE_TID | PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
         PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
}

void Walk::sample(const perf_data::SampleRecord& r) {
  const EventPlan& plan = plans_[r.event];
  Fields f;
  // Without TID, pid 0 (the record's unwritten field stays 0).
  f.pid = r.id.pid;
  f.tid = r.id.tid;
  f.cpu = r.id.cpu;
  f.time = r.id.time;
  f.ip = r.ip;
  f.period = (r.sample_type & PERF_SAMPLE_PERIOD) ? r.period : plan.layout.fixed_period;
  f.chain = r.callchain.data();
  f.chain_nr = r.callchain_nr;
  f.raw = r.raw;
  take(r.event, plan, f, file_ + r.offset);
}

void Walk::ibs_decoded(amd_ibs::IbsUnit unit, const Fields& f, std::uint32_t space) {
  std::uint64_t ip = 0;
  std::array<std::uint64_t, max_sums> values{};
  const std::uint32_t id = kinds_.decode(unit, f.raw, ip, values);
  Kind& kind = kinds_.kinds()[id];
  ++kind.samples;
  if (kind.verdict != Verdict::passes) return;
  tally(kind.rip_invalid ? f.ip : ip, space, id, f, nullptr, values.data());
}

void Walk::end_period_runs() {
  if (!capture_) return;
  for (std::size_t u = 0; u < period_runs_.size(); ++u) {
    periods_[u].add(period_runs_[u].period, period_runs_[u].samples);
    period_runs_[u] = PeriodRun{};
    period_runs_[u].mask = capture_->period_bits(static_cast<amd_ibs::IbsUnit>(u));
  }
}

void Walk::finish() { end_period_runs(); }

}  // namespace tagop::report
