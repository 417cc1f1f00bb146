#pragma once
// The report's one pass over a capture. The reading thread keeps the
// processes (spaces), filters each sample, interns its call chain and
// hands it on, by a hash of its address, to one shard of the tallies
// (tally.hpp), its own or a worker thread's. Nothing here knows rows,
// names or symbols: those come after the walk, once per distinct address
// (rows.cpp).

#include <algorithm>    // std::find, std::max
#include <array>        // std::array
#include <cstddef>      // std::byte
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <cstring>      // std::memcpy
#include <functional>   // std::function
#include <map>          // std::map
#include <memory>       // std::unique_ptr
#include <optional>     // std::optional
#include <string>       // thread names
#include <unordered_map>  // splits
#include <vector>       // std::vector

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/perf_data_reader.hpp>      // RecordHandler
#include <tagop/report/report.hpp>         // Filters
#include <tagop/sample_reads.hpp>          // SampleReads
#include <tagop/user_stack_unwind.hpp>     // UserStackUnwinder

#include "chain_table.hpp"
#include "data_access.hpp"  // DataAccess
#include "huge_pages.hpp"
#include "sample_layout.hpp"
#include "shard_pool.hpp"
#include "space_log.hpp"
#include "tally.hpp"

namespace tagop::report {

/// What the tallies keep of a sample besides its process, address, kind
/// and chain (Walk's `split`).
struct SplitBy {
  bool tid = false, cpu = false;
  /// A data view (--by data, cacheline): an entry's address is its
  /// sample's data address (0: none), its chain the pair (code address,
  /// data_access_marker + the access's DataAccess bits), and every
  /// sample is read the long way (sample()), never in place.
  bool data = false;
  /// Intern each sample's call chain (false: a view that never reads the
  /// chains, such as a flat report by function: the chains are still
  /// checked, for the warnings of cut and corrupt ones, but not hashed
  /// nor kept, and the samples of one address share one entry).
  bool chains = true;
};

/// A data view (SplitBy::data) keeps a sample's access (DataAccess bits)
/// in its chain's second frame, above data_access_marker (a context
/// marker's range, which no frame has).
inline constexpr std::uint64_t data_access_marker = static_cast<std::uint64_t>(-4095);

class Walk final : public perf_data::RecordHandler {
 public:
  /// `capture`: the IBS events (null for a capture without them, whose
  /// events are counted by period). `needed_measures`: a bit per measure
  /// that the queries sum. `threads`: the tallies' shards (0: by the CPUs).
  /// `max_stack`: a call chain's frames kept (Options::max_stack).
  /// `split`: whether the tallies keep each sample's tid, CPU (a thread,
  /// cpu key): then an entry's chain is a split of splits(), which holds
  /// its chain, tid and CPU; otherwise nothing of them is read.
  /// `unwind`: how the user stacks of samples that carry them
  /// (PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER) are unwound.
  Walk(const perf_data::PerfDataReader& reader, const amd_ibs::IbsCapture* capture, const Filters& filters,
       std::uint32_t needed_measures, std::size_t threads, std::size_t max_stack,
       std::function<void(std::uint64_t, std::uint64_t)> progress, SplitBy split = {},
       UserStackUnwindOptions unwind = {});
  /// A chain (ChainTable's id, 0: none) with the tid and CPU of its
  /// samples (0 where not split by them).
  struct Split {
    std::uint32_t chain = 0, tid = 0, cpu = 0;
    bool operator==(const Split&) const = default;
  };
  bool splitting() const { return splitting_; }
  /// By id, the entries' chain when splitting().
  const std::vector<Split>& splits() const { return splits_; }
  /// With a thread key: each thread's last name (COMM record), as perf
  /// names a thread's row; a thread without one has its process's.
  std::unordered_map<std::uint32_t, std::string>& thread_comms() { return thread_comms_; }

  void sample(const perf_data::SampleRecord& r) override;
  /// The data address and access of a sample (SplitBy::data): PERF_SAMPLE_ADDR
  /// and DATA_SRC, or an IBS op's DcLinAddr (when IbsDcLinAddrValid) and its bits.
  void take_data(const perf_data::SampleRecord& r);
  /// The common sample, read in place (sample_layout.hpp); defined below,
  /// in sight of the reader's loop, which calls it directly.
  bool sample_in_place(std::uint32_t event, const std::byte* record, std::uint16_t size);
  /// Runs of direct samples (EventPlan::direct), read here rather than
  /// by the reader's loop (perf_data::TakesSampleRuns): the offsets they
  /// share stay in registers, and the reading thread spends some 30
  /// instructions a sample fewer (callgrind: 185 -> 153). Defined below,
  /// in sight of the reader's loop.
  std::uint64_t sample_run(const std::byte* bytes, std::uint64_t at, std::uint64_t end, std::uint64_t stop,
                           std::uint64_t& samples);
  std::uint64_t sample_fields() const override;
  void mmap(const perf_data::MmapRecord& r) override { spaces_.mmap(r); }
  void comm(const perf_data::CommRecord& r) override {
    spaces_.comm(r);
    if (split_.tid) thread_comms_[r.tid] = std::string(r.comm);
  }
  void task(const perf_data::TaskRecord& r) override { spaces_.task(r); }
  void finished_round() override;
  void progress(std::uint64_t done, std::uint64_t total) override {
    rebalance();
    if (progress_) progress_(done, total);
  }
  /// Waits for the shards: their tallies are final.
  std::vector<Tally>& finish();

  ChainTable& chains() { return chains_; }
  const SpaceLog& spaces() const { return spaces_; }
  std::uint64_t other_samples() const { return other_; }
  /// Counter values of samples that named no event of the file (perf_data::SampleReads).
  std::uint64_t unknown_read_values() const { return reads_.unknown_values(); }
  /// The PERF_SAMPLE_DATA_SRC values of the samples, by the id their
  /// items carry (Item::data_src_id; 0: none). Filled by the reading
  /// thread before it hands on a sample of a new value; empty when no
  /// event's samples carry one.
  const std::vector<std::uint64_t>& data_src_values() const { return data_src_values_; }
  /// Samples whose data source came after data_src_values() was full:
  /// counted without one.
  std::uint64_t data_src_overflow() const { return data_src_overflow_; }
  /// Samples whose weight was more than Item::max_weight: counted at it.
  std::uint64_t weights_cut() const { return weights_cut_; }
  /// How far behind the reading thread its workers may still read the
  /// capture's bytes (PerfDataReader::keep_behind): 0 with one shard.
  std::uint64_t workers_lag() const;
  /// Samples whose call chain had more frames than max_stack (cut there).
  std::uint64_t cut_chains() const { return cut_chains_; }
  /// Samples that left before the round after theirs was read: rounds of
  /// more than max_delay_depth samples.
  std::uint64_t early_releases() const { return early_; }
  /// The most samples a round may hold for every one of them to wait.
  static constexpr std::size_t round_capacity() { return max_delay_depth; }
  /// Samples whose call chain held a value that is no address nor context
  /// marker (-1): kept without their chain, as perf keeps them.
  std::uint64_t dropped_chains() const { return dropped_chains_; }
  const perf_data::Skipped& damaged() const { return damaged_; }
  /// Samples with user stacks whose user frames were unwound, fully or
  /// in part (the ip alone, when its module could not be read).
  std::uint64_t unwound() const { return unwound_; }
  /// Samples with user stacks that were not unwound (or only in part), by
  /// the unwinder's reason; kernel threads' samples (no user registers)
  /// are not among them.
  const std::map<std::string, std::uint64_t>& not_unwound() const { return not_unwound_; }
  /// The unwinder, when an event's samples carry user stacks (its
  /// module_problems(), its stats()); else null.
  const UserStackUnwinder* unwinder() const { return unwinder_.get(); }

 private:
  // How one event's samples are read.
  struct EventPlan {
    SampleLayout layout;
    bool ibs = false;  // IBS (its unit by the capture), else a counted event
    // IBS of one unit, in place, without a call chain, nothing to filter
    // by the sample, in the layout of every direct event (direct_):
    // ibs_in_place().
    bool direct = false;
    // PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER: the user part of
    // the chain is unwound (the reader parses these samples: sample()).
    bool stack_user = false;
    // PERF_SAMPLE_DATA_SRC (perf mem): the sample's kind is by its value;
    // with WEIGHT (or WEIGHT_STRUCT) its load latency is summed.
    bool data_src = false, weighted = false;
    amd_ibs::IbsUnit unit = amd_ibs::IbsUnit::op;
  };
  // Where the direct events' samples have what the walk reads: one
  // layout for all, so that a run of them (sample_run) keeps it in
  // registers. By unit: the address in the payload (IbsCapture::ip_offset),
  // and the payload's least size.
  struct Direct {
    std::uint16_t variable_at = 0, pid_at = 0, time_at = 0, ip_at = 0;
    std::array<std::uint16_t, 2> payload_ip_at{};
    std::array<std::uint32_t, 2> payload_ip_end{};
  };
  // The fields of a sample the report reads.
  struct Fields {
    std::uint32_t pid = 0, tid = 0, cpu = 0;
    std::uint64_t time = 0, ip = 0, period = 0;
    const std::byte* chain = nullptr;
    std::uint64_t chain_nr = 0;
    std::span<const std::byte> raw;
    std::uint64_t data_src = 0, weight = 0;
  };
  // A record's place, time, ip and period (without TID, pid 0: the
  // record's unwritten field stays 0); the rest is for sample() to add.
  static Fields fields_of(const perf_data::SampleRecord& r, const EventPlan& plan);
  // How many of a call chain's `nr` entries are kept (max_stack_ frames).
  std::uint64_t kept_frames(const std::byte* chain, std::uint64_t nr);
  // Whether the first `nr` entries hold a PERF_CONTEXT_MAX-or-above value
  // that is no context marker.
  static bool corrupt_chain(const std::byte* chain, std::uint64_t nr);
  // `stack`: the sample's user stack, when its event's plan has
  // stack_user (only sample() gives one: the fast paths never do).
  void take(std::uint32_t event, const EventPlan& plan, const Fields& f, const std::byte* record,
            const UserStack* stack = nullptr);
  bool ibs_in_place(const EventPlan& plan, const std::byte* record, std::uint16_t size);
  bool passes(const Fields& f) const;
  // The id of (chain, the sample's tid and CPU, as split_ asks). Out of
  // line, by value: the common path only tests splitting_, and its item
  // stays in registers.
  [[gnu::noinline]] std::uint32_t split(std::uint32_t chain, std::uint32_t tid, std::uint32_t cpu);
  // A sample waits here while the next records are read: one that comes
  // later in the file but earlier in time still decides the sample's
  // space (space_log.hpp). Only in a timed capture. perf record writes
  // each CPU's buffer once a round (PERF_RECORD_FINISHED_ROUND), so such
  // a record comes at the latest in the round after the sample's: that is
  // perf report's bound, and a sample waits for it, in a ring that grows
  // while a round is larger than it holds (up to max_delay_depth). In a
  // file without rounds it waits for delay_depth samples.
  struct Delayed {
    Item item;
    std::uint64_t address, time;  // the address picks the shard
    std::uint32_t pid;
  };
  static constexpr std::size_t delay_depth = 16384;            // a power of two: the rings' least
  static constexpr std::size_t max_delay_depth = std::size_t{1} << 20;  // and their most
  // A sample is written straight into the slot next_delayed() gives (one
  // that waited there is released first), then hand_on(): in an untimed
  // capture the slot is a scratch one, released at once.
  Delayed& next_delayed();
  void hand_on(Delayed& d);
  void release(Delayed& d);
  // A direct sample (EventPlan::direct) waits as its record alone, in a
  // ring of its own (a quarter of the bytes, so that it stays in the L2
  // cache), and is read when it is released. Samples of the two rings
  // may be released out of their order in the file: any order is right,
  // as long as each waited (space_at takes any time).
  struct DelayedRecord {
    const std::byte* record;
    amd_ibs::IbsUnit unit;
    std::uint32_t raw_size;
  };
  void release(const DelayedRecord& r, const Direct& d);
  // Doubles a ring that holds the entries numbered `oldest` to `count`
  // (up to max_delay_depth), each at its place in the new one; false,
  // counted in early_, at the most.
  template <typename Slots>
  bool make_room(Slots& ring, std::uint64_t& mask, std::uint64_t oldest, std::uint64_t count);
  // The rings are filled whole after their first 16 k samples: their
  // pages come zeroed, in huge pages from 2 MiB (a memset of each
  // page, then a fault for it, was 2% of a flat report).
  template <typename T>
  using Ring = std::vector<T, HugePageAllocator<T>>;
  // A sample with a user stack waits in a ring of its own, its chain not
  // yet interned: at its release, its time's mappings are known (the
  // records up to its time taken: SpaceLog::live()), and the unwinding
  // makes its chain. Its chain and stack point into the file, which stays
  // mapped through the walk. The rings release apart, so the mappings may
  // be a little later than the sample (as records out of time order in
  // the file leave them anyway): they change seldom during a run.
  struct DelayedStack {
    Item item;
    std::uint64_t address, time;
    std::uint32_t pid, tid, cpu;
    const std::byte* chain;
    std::uint64_t chain_nr;
    UserStack stack;
  };
  void release(DelayedStack& d);
  // Takes a direct sample whose payload of `n` bytes fits its record.
  void take_direct(const std::byte* record, amd_ibs::IbsUnit unit, std::uint32_t n, const Direct& d);
  // The shard of an address: the reading thread's own (0) takes a smaller
  // share, since reading is work too (own_share in walk.cpp).
  std::size_t shard_of(std::uint64_t ip, std::uint32_t space) const {
    if (shards_ == 1) return 0;
    const std::uint64_t h = ((ip ^ std::uint64_t{space} << 40) * 0x9E3779B97F4A7C15ull) >> 32;
    return h < own_share_ ? 0 : 1 + (((h - own_share_) * worker_scale_) >> 32);
  }

  // Moves the reading thread's share of the tallies towards the point
  // where neither it nor the workers wait (ShardPool::waits()).
  void rebalance();
  // The id of a data source value (data_src_values()), 0 past the table's room.
  // Gives a non-IBS sample's item its data source's id and its weight.
  void mark_data_src(Item& item, const EventPlan& plan, std::uint64_t data_src, std::uint64_t weight);
  std::uint16_t data_src_id(std::uint64_t value);

  const amd_ibs::IbsCapture* capture_;
  const std::byte* file_;
  Filters filters_;
  bool filtering_ = false;  // by --cpu, --tid or --time (per sample)
  bool read_cpu_ = false;   // filtering_, or split_.cpu
  SplitBy split_;
  bool splitting_ = false;  // split_.tid || split_.cpu
  struct SplitHash {
    std::size_t operator()(const Split& s) const {
      const std::uint64_t h = (std::uint64_t{s.chain} << 32 | s.tid) * 0x9E3779B97F4A7C15ull ^ s.cpu * 0xBF58476D1CE4E5B9ull;
      return static_cast<std::size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_map<Split, std::uint32_t, SplitHash> split_ids_;
  std::vector<Split> splits_;
  std::unordered_map<std::uint32_t, std::string> thread_comms_;
  std::uint32_t last_split_ = 0;
  std::vector<EventPlan> plans_;
  Direct direct_;
  // sample_run(): the reader's ids (PerfDataReader::sample_ids) as the
  // unit + 1 of a direct event's samples (0: not direct); `runs_` false
  // when no event is direct or the ids are not in a table.
  bool runs_ = false;
  std::size_t run_id_at_ = 0;
  std::uint64_t run_id_base_ = 0;
  std::vector<std::uint8_t> run_units_;  bool timed_;
  SpaceLog spaces_;
  ChainTable chains_;
  Ring<Delayed> delayed_;
  // A ring holds the samples numbered from its oldest to its count.
  std::uint64_t delayed_count_ = 0, delayed_oldest_ = 0, delayed_mask_ = delay_depth - 1;
  Delayed undelayed_{};
  Ring<DelayedRecord> delayed_records_;
  std::uint64_t delayed_record_count_ = 0, record_oldest_ = 0, record_mask_ = delay_depth - 1;
  // Samples numbered below a ring's floor may leave it: those of the rounds
  // before the last that ended (all, in a file without rounds).
  std::uint64_t floor_ = ~std::uint64_t{0}, record_floor_ = ~std::uint64_t{0};
  std::uint64_t round_end_ = 0, record_round_end_ = 0;  // the numbers where the last round ended
  std::uint64_t early_ = 0;
  std::size_t shards_;
  std::uint64_t own_share_;  // of 2^32
  // The workers' part of the hash onto 0 .. shards - 2, by a multiply (a
  // divide here was 10 of the reading thread's instructions a sample, and slow):
  // (shards - 1) * 2^32 / (2^32 - own_share_).
  std::uint64_t worker_scale_;
  // Data sources by id, at most 65535 (an Item holds 16 bits), with room
  // for all from the start: a tally reads an id's value while the reading
  // thread adds others.
  std::vector<std::uint64_t> data_src_values_;
  std::unordered_map<std::uint64_t, std::uint16_t> data_src_ids_;
  std::uint64_t data_src_overflow_ = 0, weights_cut_ = 0;
  ShardPool<Item, Tally> pool_;
  std::uint64_t other_ = 0;
  perf_data::Skipped damaged_;
  perf_data::SampleReads reads_;
  std::size_t max_stack_;
  std::uint64_t cut_chains_ = 0;
  std::uint64_t dropped_chains_ = 0;
  std::function<void(std::uint64_t, std::uint64_t)> progress_;
  // User stacks: only when an event's samples carry them.
  std::unique_ptr<UserStackUnwinder> unwinder_;
  std::vector<DelayedStack> delayed_stacks_;
  std::uint64_t delayed_stack_count_ = 0;
  std::vector<std::uint64_t> unwound_frames_, unwound_chain_;  // scratch
  std::uint64_t unwound_ = 0;
  std::map<std::string, std::uint64_t> not_unwound_;
};

// Once per sample: inline, in sight of the reader's loop.

inline bool Walk::passes(const Fields& f) const {
  const Filters& x = filters_;
  if (!x.cpus.empty() && std::find(x.cpus.begin(), x.cpus.end(), f.cpu) == x.cpus.end()) return false;
  if (!x.tids.empty() && std::find(x.tids.begin(), x.tids.end(), f.tid) == x.tids.end()) return false;
  if (x.time && (f.time < x.time->start || f.time > x.time->stop)) return false;
  return true;
}

[[gnu::always_inline]] inline void Walk::release(Delayed& d) {
  Item& item = d.item;
  const std::uint32_t space = spaces_.space_at(d.pid, d.time);
  item.set_space(space);
  if (!spaces_.space(space).passes) {
    // IBS: read all the same, for the period; any other: not at all.
    if (!(item.flags() & Item::ibs)) return;
    item.add_flags(Item::filtered_out);
  }
  pool_.add(shard_of(d.address, space), item);
}

[[gnu::always_inline]] inline Walk::Delayed& Walk::next_delayed() {
  if (!timed_) return undelayed_;
  // Full: the oldest leaves (its slot is the new one's), unless the
  // records of its time may still come.
  if (delayed_count_ - delayed_oldest_ > delayed_mask_ &&
      (delayed_oldest_ < floor_ || !make_room(delayed_, delayed_mask_, delayed_oldest_, delayed_count_)))
    release(delayed_[delayed_oldest_++ & delayed_mask_]);
  return delayed_[delayed_count_++ & delayed_mask_];
}

template <typename Slots>
bool Walk::make_room(Slots& ring, std::uint64_t& mask, std::uint64_t oldest, std::uint64_t count) {
  if (mask + 1 >= max_delay_depth) {
    ++early_;
    return false;
  }
  const std::uint64_t wider = 2 * mask + 1;
  Slots bigger(wider + 1);
  for (std::uint64_t i = oldest; i < count; ++i) bigger[i & wider] = ring[i & mask];
  ring = std::move(bigger);
  mask = wider;
  return true;
}

[[gnu::always_inline]] inline void Walk::hand_on(Delayed& d) {
  if (!timed_) release(d);
}

[[gnu::always_inline]] inline void Walk::release(const DelayedRecord& r, const Direct& d) {
  const std::byte* raw = r.record + d.variable_at + 4;
  std::uint32_t pid;
  std::memcpy(&pid, r.record + d.pid_at, 4);
  std::uint64_t time = 0;
  if (d.time_at) std::memcpy(&time, r.record + d.time_at, 8);
  std::uint64_t ip = 0;
  if (d.ip_at) std::memcpy(&ip, r.record + d.ip_at, 8);
  const std::uint32_t space = spaces_.space_at(pid, time);
  // Read all the same when filtered out by process: the period counts.
  const std::uint8_t flags = spaces_.space(space).passes ? Item::ibs : Item::ibs | Item::filtered_out;
  Item item = Item::of_ibs(raw, ip, r.raw_size, d.variable_at + 4u, r.unit, flags);
  item.place = space;
  std::uint64_t address = 0;
  if (shards_ > 1) std::memcpy(&address, raw + d.payload_ip_at[static_cast<std::size_t>(r.unit)], 8);
  pool_.add(shard_of(address, space), item);
}

[[gnu::always_inline]] inline void Walk::take_direct(const std::byte* record, amd_ibs::IbsUnit unit, std::uint32_t n,
                                                     const Direct& d) {
  const DelayedRecord r{record, unit, n};
  if (!timed_) return release(r, d);
  if (delayed_record_count_ - record_oldest_ > record_mask_ &&
      (record_oldest_ < record_floor_ ||
       !make_room(delayed_records_, record_mask_, record_oldest_, delayed_record_count_)))
    release(delayed_records_[record_oldest_++ & record_mask_], d);
  delayed_records_[delayed_record_count_++ & record_mask_] = r;
}

[[gnu::always_inline]] inline bool Walk::ibs_in_place(const EventPlan& plan, const std::byte* record,
                                                      std::uint16_t size) {
  const Direct& d = direct_;
  std::uint32_t n;
  std::memcpy(&n, record + d.variable_at, 4);
  if (n > std::size_t{size} - d.variable_at - 4 || n < d.payload_ip_end[static_cast<std::size_t>(plan.unit)])
    return false;
  take_direct(record, plan.unit, n, d);
  return true;
}

[[gnu::always_inline]] inline bool Walk::sample_in_place(std::uint32_t event, const std::byte* record,
                                                        std::uint16_t size) {
  const EventPlan& plan = plans_[event];
  const SampleLayout& l = plan.layout;
  if (plan.direct) return size >= l.variable_at + 4 && ibs_in_place(plan, record, size);
  if (!l.in_place || size < l.variable_at + (l.raw ? 4 : 0)) return false;
  Fields f;
  SampleParts parts;
  if (!parts.read(l, record, size)) return false;
  auto u64_at = [&](std::uint16_t at, std::uint64_t otherwise) {
    std::uint64_t v = otherwise;
    if (at) std::memcpy(&v, record + at, 8);
    return v;
  };
  const std::uint64_t ids = u64_at(l.pid_at, 0);
  f.pid = static_cast<std::uint32_t>(ids);
  f.tid = static_cast<std::uint32_t>(ids >> 32);
  f.ip = u64_at(l.ip_at, 0);
  f.period = u64_at(l.period_at, l.fixed_period);
  f.time = u64_at(l.time_at, 0);
  if (read_cpu_) f.cpu = static_cast<std::uint32_t>(u64_at(l.cpu_at, 0));
  f.chain = parts.chain;
  f.chain_nr = parts.chain_nr;
  f.raw = parts.raw;
  take(event, plan, f, record);
  return true;
}

inline std::uint64_t Walk::sample_run(const std::byte* bytes, std::uint64_t at, std::uint64_t end, std::uint64_t stop,
                                      std::uint64_t& samples) {
  if (!runs_) return at;
  // In locals, so that they stay in registers through the loop.
  const Direct d = direct_;
  const std::size_t id_at = run_id_at_;
  const std::uint64_t id_base = run_id_base_, ids = run_units_.size();
  const std::uint8_t* const units = run_units_.data();
  // What the reader and sample_in_place() check first: an id, and the
  // payload's u32 size, in the record.
  const std::size_t least = std::max(id_at + 8, std::size_t{d.variable_at} + 4);
  std::uint64_t taken = 0;
  while (at < stop && end - at >= sizeof(perf_data::RecordHeader)) {
    const std::byte* record = bytes + at;
    // The file 8 KiB ahead: the next header's address waits on this one's
    // load, and without the fetch ahead that chain of loads was a third of
    // the loop (--threads 1 at 10 k addresses: 0.227 s, against 0.269
    // without, and 0.244 for 2 KiB ahead).
    __builtin_prefetch(record + 8192, 0, 3);
    perf_data::RecordHeader h;
    std::memcpy(&h, record, sizeof h);
    if (h.type != perf_data::record_sample || h.size < least || h.size > end - at) break;
    std::uint64_t id = 0;
    if (id_at) std::memcpy(&id, record + id_at, 8);
    id -= id_base;
    if (id >= ids || !units[id]) break;
    const auto unit = static_cast<amd_ibs::IbsUnit>(units[id] - 1);
    std::uint32_t n;
    std::memcpy(&n, record + d.variable_at, 4);
    if (n > std::size_t{h.size} - d.variable_at - 4 || n < d.payload_ip_end[static_cast<std::size_t>(unit)]) break;
    take_direct(record, unit, n, d);
    ++taken;
    at += h.size;
  }
  samples += taken;
  return at;
}

}  // namespace tagop::report
