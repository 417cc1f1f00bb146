#include "space_log.hpp"

#include <tagop/error.hpp>  // Error

namespace tagop::report {

namespace {

bool is_kernel(const perf_data::MmapRecord& r) {
  return r.pid == 0xFFFFFFFFu || (r.misc & perf_data::misc_cpumode_mask) == perf_data::misc_kernel;
}

}  // namespace

SpaceLog::SpaceLog(const std::vector<perf_data::BuildIdEntry>& build_ids,
                   std::function<bool(std::uint32_t, std::string_view)> passes, bool timed)
    : build_ids_(build_ids), passes_(std::move(passes)), timed_(timed) {
  live_.add_build_ids(build_ids_);
}

void SpaceLog::apply(const Logged& l, ProcessTable& table) {
  switch (l.type) {
    case Logged::Type::mmap: {
      perf_data::MmapRecord m = l.mmap;
      m.filename = l.text;
      m.build_id = l.build_id;
      table.mmap(m);
      break;
    }
    case Logged::Type::comm: {
      perf_data::CommRecord c = l.comm;
      c.comm = l.text;
      table.comm(c);
      break;
    }
    case Logged::Type::task: table.task(l.task); break;
  }
}

namespace {

// For a heap whose front is the earliest record.
bool later(const auto& a, const auto& b) { return a.time != b.time ? a.time > b.time : a.order > b.order; }

}  // namespace

void SpaceLog::wait(Logged l) {
  l.order = log_.size() + waiting_.size();
  if (!timed_) return take(std::move(l));
  waiting_.push_back(std::move(l));
  std::push_heap(waiting_.begin(), waiting_.end(), later<Logged, Logged>);
}

void SpaceLog::take_up_to(std::uint64_t time) {
  while (!waiting_.empty() && waiting_.front().time <= time) {
    std::pop_heap(waiting_.begin(), waiting_.end(), later<Logged, Logged>);
    Logged l = std::move(waiting_.back());
    waiting_.pop_back();
    take(std::move(l));
  }
}

void SpaceLog::take(Logged l) {
  apply(l, live_);
  log_.push_back(std::move(l));
  const Logged& taken = log_.back();
  switch (taken.type) {
    case Logged::Type::mmap:
      if (!is_kernel(taken.mmap)) return changed(taken.mmap.pid, taken.time);
      {
        // The kernel's mappings are every process's.
        std::vector<std::uint32_t> pids;
        for (const auto& [pid, versions] : versions_) pids.push_back(pid);
        for (std::uint32_t pid : pids) changed(pid, taken.time);
      }
      return;
    case Logged::Type::comm: return changed(taken.comm.pid, taken.time);
    case Logged::Type::task: return changed(taken.task.pid, taken.time);
  }
}

void SpaceLog::mmap(const perf_data::MmapRecord& r) {
  Logged l{r.id.time, 0, Logged::Type::mmap, r, {}, {}, std::string(r.filename), r.build_id};
  l.mmap.filename = {};
  l.mmap.build_id.clear();
  wait(std::move(l));
}

void SpaceLog::comm(const perf_data::CommRecord& r) {
  Logged l{r.id.time, 0, Logged::Type::comm, {}, r, {}, std::string(r.comm), {}};
  l.comm.comm = {};
  wait(std::move(l));
}

void SpaceLog::task(const perf_data::TaskRecord& r) {
  // A new thread shares its process's maps and name; an exit changes
  // neither (a later FORK that reuses the pid starts afresh).
  if (!r.fork || r.pid == r.ppid) return;
  wait(Logged{r.time, 0, Logged::Type::task, {}, {}, r, {}, {}});
}

void SpaceLog::changed(std::uint32_t pid, std::uint64_t time) {
  versions_[pid].push_back(Version{timed_ ? time : 0, static_cast<std::uint32_t>(log_.size()),
                                   comm_id(live_.comm_of(pid)), none});
  Recent& r = recent_[pid % recent_.size()];
  if (r.pid == pid) r.space = none;
}

std::uint32_t SpaceLog::comm_id(std::string_view comm) {
  auto [it, fresh] = comm_ids_.try_emplace(std::string(comm), static_cast<std::uint32_t>(comms_.size()));
  if (fresh) comms_.emplace_back(comm);
  return it->second;
}

std::uint32_t SpaceLog::find(std::uint32_t pid, std::uint64_t time) {
  std::vector<Version>& versions = versions_[pid];
  if (versions.empty())  // a process that no record named
    versions.push_back(Version{0, static_cast<std::uint32_t>(log_.size()), comm_id(live_.comm_of(pid)), none});
  // The newest state at or before the sample's time (the oldest, for a
  // sample before them all).
  std::size_t i = versions.size() - 1;
  if (timed_)
    while (i > 0 && versions[i].time > time) --i;
  Version& v = versions[i];
  if (v.space == none) {
    if (spaces_.size() == none) throw Error(ErrorCode::resource, "more than 2^32 process states in one capture");
    v.space = static_cast<std::uint32_t>(spaces_.size());
    spaces_.push_back(Space{pid, v.comm, v.position, passes_(pid, comms_[v.comm])});
  }
  if (i + 1 == versions.size()) recent_[pid % recent_.size()] = Recent{pid, v.space, timed_ ? v.time : 0};
  return v.space;
}

SpaceLog::Replay::Replay(const SpaceLog& log) : log_(log) { table_.add_build_ids(log.build_ids_); }

const ProcessTable& SpaceLog::Replay::at(std::uint32_t space) { return to(log_.spaces_[space].position); }

const ProcessTable& SpaceLog::Replay::to(std::size_t position) {
  for (; done_ < position && done_ < log_.log_.size(); ++done_) SpaceLog::apply(log_.log_[done_], table_);
  return table_;
}

std::size_t SpaceLog::position_at(std::uint64_t time) const {
  if (!timed_) return log_.size();
  // The log is in time order once every record was taken.
  return static_cast<std::size_t>(
      std::upper_bound(log_.begin(), log_.end(), time, [](std::uint64_t t, const Logged& l) { return t < l.time; }) -
      log_.begin());
}

}  // namespace tagop::report
