#include "space_log.hpp"

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::report {

namespace {

bool is_kernel(const perf_data::MmapRecord& r) {
  return r.pid == 0xFFFFFFFFu || (r.misc & perf_data::misc_cpumode_mask) == perf_data::misc_kernel;
}

}  // namespace

SpaceLog::SpaceLog(const std::vector<perf_data::BuildIdEntry>& build_ids,
                   std::function<bool(std::uint32_t, std::string_view)> passes)
    : build_ids_(build_ids), passes_(std::move(passes)) {
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

void SpaceLog::mmap(const perf_data::MmapRecord& r) {
  Logged l{Logged::Type::mmap, r, {}, {}, std::string(r.filename), r.build_id};
  l.mmap.filename = {};
  l.mmap.build_id.clear();
  apply(l, live_);
  log_.push_back(std::move(l));
  if (is_kernel(r)) changed_all();
  else changed(r.pid);
}

void SpaceLog::comm(const perf_data::CommRecord& r) {
  Logged l{Logged::Type::comm, {}, r, {}, std::string(r.comm), {}};
  l.comm.comm = {};
  apply(l, live_);
  log_.push_back(std::move(l));
  changed(r.pid);
}

void SpaceLog::task(const perf_data::TaskRecord& r) {
  // A new thread shares its process's maps and name; an exit changes
  // neither (a later FORK that reuses the pid starts afresh).
  if (!r.fork || r.pid == r.ppid) return;
  Logged l{Logged::Type::task, {}, {}, r, {}, {}};
  apply(l, live_);
  log_.push_back(std::move(l));
  changed(r.pid);
}

void SpaceLog::changed(std::uint32_t pid) {
  current_.erase(pid);
  Recent& r = recent_[pid % recent_.size()];
  if (r.pid == pid) r.space = none;
}

void SpaceLog::changed_all() {
  current_.clear();
  recent_.fill(Recent{});
}

std::uint32_t SpaceLog::comm_id(std::string_view comm) {
  auto [it, fresh] = comm_ids_.try_emplace(std::string(comm), static_cast<std::uint32_t>(comms_.size()));
  if (fresh) comms_.emplace_back(comm);
  return it->second;
}

std::uint32_t SpaceLog::find(std::uint32_t pid) {
  auto [it, fresh] = current_.try_emplace(pid, static_cast<std::uint32_t>(spaces_.size()));
  if (!fresh) return it->second;
  if (spaces_.size() == none) throw Error("more than 2^32 process states in one capture");
  const std::string_view comm = live_.comm_of(pid);
  spaces_.push_back(Space{pid, comm_id(comm), static_cast<std::uint32_t>(log_.size()), passes_(pid, comm)});
  return it->second;
}

SpaceLog::Replay::Replay(const SpaceLog& log) : log_(log) { table_.add_build_ids(log.build_ids_); }

const ProcessTable& SpaceLog::Replay::at(std::uint32_t space) {
  const std::size_t position = log_.spaces_[space].position;
  for (; done_ < position; ++done_) apply(log_.log_[done_], table_);
  return table_;
}

}  // namespace tagop::report
