#pragma once
// The processes of a capture as its samples met them. A sample's pid and
// time give a space: that process with its name and the state of its
// mappings at that moment. perf record writes each CPU's records in turn,
// so records come in the file out of time order (a FORK before the COMM of
// its parent's exec, samples before the COMM of their exec): like perf,
// which sorts records by time, the log takes MMAP, COMM and FORK records
// in time order, as the samples' times reach them, and a sample gets the
// state of its time, not of its place in the file. The walk only counts samples by
// space; after it, a replay of the logged records gives each space's
// mappings as they were, so that an address is read with the mappings of
// its time, although later ones may reuse it.

#include <algorithm>      // std::push_heap, std::pop_heap
#include <array>          // std::array
#include <cstdint>        // std::uint32_t, std::uint64_t
#include <functional>     // std::function
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <unordered_map>  // by pid
#include <vector>         // std::vector

#include <tagop/perf_data_reader.hpp>  // MmapRecord, CommRecord, TaskRecord
#include <tagop/process_table.hpp>     // ProcessTable

namespace tagop::report {

struct Space {
  std::uint32_t pid = 0;
  std::uint32_t comm = 0;      // index into SpaceLog::comms()
  std::uint32_t position = 0;  // records of the log before it
  bool passes = true;          // --pid and --comm
};

class SpaceLog {
 public:
  /// `passes(pid, comm)`: whether a process's samples pass the filters.
  /// `timed`: the records carry times (sample_id_all with TIME), so that
  /// samples get the state of their time; otherwise of their place.
  SpaceLog(const std::vector<perf_data::BuildIdEntry>& build_ids,
           std::function<bool(std::uint32_t, std::string_view)> passes, bool timed);

  void mmap(const perf_data::MmapRecord& r);
  void comm(const perf_data::CommRecord& r);
  void task(const perf_data::TaskRecord& r);

  /// The space of a sample of `pid` at `time`: the records up to `time`
  /// are taken first. Once per sample: inline.
  std::uint32_t space_at(std::uint32_t pid, std::uint64_t time) {
    if (!waiting_.empty() && waiting_.front().time <= time) take_up_to(time);
    const Recent& r = recent_[pid % recent_.size()];
    if (r.pid == pid && r.space != none && time >= r.since) return r.space;
    return find(pid, time);
  }
  /// Takes the records still waiting (at the end of the walk).
  void take_all() { take_up_to(~std::uint64_t{0}); }
  const Space& space(std::uint32_t id) const { return spaces_[id]; }
  std::size_t space_count() const { return spaces_.size(); }
  const std::vector<std::string>& comms() const { return comms_; }
  /// The processes' mappings and names as the records taken so far left
  /// them: after space_at(pid, time), the state at `time` (as far as
  /// samples come in time order).
  const ProcessTable& live() const { return live_; }
  /// How many records of the log happened at or before `time` (all of
  /// them in a capture without times): the position of the state at
  /// `time`, for Replay::to(). Only after take_all().
  std::size_t position_at(std::uint64_t time) const;

  /// The log replayed into a process table, up to a space's position;
  /// spaces must be visited in order of position.
  class Replay {
   public:
    explicit Replay(const SpaceLog& log);
    /// The table as it was when `space` was met.
    const ProcessTable& at(std::uint32_t space);
    /// The table after the log's first `position` records; positions
    /// must not decrease (for an earlier one, a new Replay).
    const ProcessTable& to(std::size_t position);
    /// The position the table is at.
    std::size_t position() const { return done_; }
    /// The table as it is now (its modules: every one met so far).
    const ProcessTable& table() const { return table_; }

   private:
    const SpaceLog& log_;
    ProcessTable table_;
    std::size_t done_ = 0;
  };

 private:
  static constexpr std::uint32_t none = 0xFFFFFFFFu;
  // The newest state of a pid, valid for samples from `since`.
  struct Recent {
    std::uint32_t pid = 0, space = none;
    std::uint64_t since = 0;
  };
  // A state of a process, from a record at `time`; its space is made
  // when a sample first has it.
  struct Version {
    std::uint64_t time = 0;
    std::uint32_t position = 0;
    std::uint32_t comm = 0;
    std::uint32_t space = none;
  };
  // A record as logged: its strings owned.
  struct Logged {
    std::uint64_t time = 0, order = 0;  // order: in the file, for equal times
    enum class Type : std::uint8_t { mmap, comm, task } type;
    perf_data::MmapRecord mmap;
    perf_data::CommRecord comm;
    perf_data::TaskRecord task;
    std::string text, build_id;  // the filename or comm, the build-id
  };
  std::uint32_t find(std::uint32_t pid, std::uint64_t time);
  void wait(Logged l);
  void take_up_to(std::uint64_t time);
  void take(Logged l);
  void changed(std::uint32_t pid, std::uint64_t time);
  std::uint32_t comm_id(std::string_view comm);
  static void apply(const Logged& l, ProcessTable& table);

  std::vector<perf_data::BuildIdEntry> build_ids_;
  std::function<bool(std::uint32_t, std::string_view)> passes_;
  bool timed_;
  ProcessTable live_;  // as the walk is now: the names
  std::vector<Logged> log_;      // in time order: as taken
  std::vector<Logged> waiting_;  // a heap, the earliest first
  std::vector<Space> spaces_;
  std::unordered_map<std::uint32_t, std::vector<Version>> versions_;  // by pid, oldest first
  std::array<Recent, 256> recent_{};
  std::vector<std::string> comms_;
  std::unordered_map<std::string, std::uint32_t> comm_ids_;
};

}  // namespace tagop::report
