#include "walk.hpp"

#include "cpu_budget.hpp"  // allowed_cpus, idle_cpus

#include <algorithm>  // std::max, std::min
#include <bit>        // std::popcount

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/layout.hpp>  // field_table
#include <tagop/sample.hpp>           // Sample
#include <tagop/error.hpp>            // Error

namespace tagop::report {

namespace {

// The sums an entry keeps: a non-IBS event's period (and a perf mem
// load's latency, where the samples carry data sources and weights); of
// IBS, the most measures that the queries sum in one unit's samples.
std::uint8_t sums_width(const amd_ibs::IbsCapture* capture, std::uint32_t needed, const perf_data::FileInfo& info) {
  if (!capture) {
    constexpr std::uint64_t mem = PERF_SAMPLE_DATA_SRC, weight = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;
    for (const perf_data::EventAttr& a : info.attrs)
      if ((a.attr.sample_type & mem) && (a.attr.sample_type & weight)) return 2;
    return 1;
  }
  std::array<std::uint32_t, 2> of_unit{};
  for (const amd_ibs::FieldSpec& f : amd_ibs::field_table())
    if (f.measure && f.exists_on(capture->decoder().family(), capture->decoder().model()) && (needed >> f.measure->index & 1))
      of_unit[static_cast<std::size_t>(amd_ibs::info(f.reg).unit)] |= 1u << f.measure->index;
  const int most = std::max(std::popcount(of_unit[0]), std::popcount(of_unit[1]));
  return static_cast<std::uint8_t>(std::min<int>(most, max_sums));
}

// The reading thread's share of the tallies (of 2^32) at the start: with
// workers, a fifth. Reading and handing on a sample costs about as much
// as tallying one, so its share is small, and rebalance() moves it to where
// neither side waits: the entries that then change hands are held twice.
// With one worker that point was 0.16-0.22 at 10 k addresses and 0.27 at
// 100 k; starting at none, the first 90 MB of a capture passed before the
// share got there (10 M samples: 2-3 ms more at 10 k and 100 k addresses),
// and starting at an eighth cost 1.5-2 ms more than a fifth (alternated
// runs; the example and 1 M addresses: no change, nor in peak RSS).
std::uint64_t own_share(std::size_t shards) {
  return shards == 1 ? std::uint64_t{1} << 32 : (std::uint64_t{1} << 32) / 5;
}

// By default a thread for each CPU but one (the kernel and the page keeper
// need some), and at most three: past two workers the reading thread is
// the slower. On 2 CPUs, two: 10 M samples at 10 k addresses took 0.20 s
// with two and 0.30 s with one (a file fresh in the page cache, so that
// the page keeper has little to do; 17% more CPU time in all, for the
// items that cross cores). The CPUs are those this process may run on
// (taskset, a container's cpuset), not the machine's. A small capture
// gets one: under `small_data` the workers' start, their batches'
// hand-off and the tallies' merge cost more than the second CPU gives
// (perf record -g captures of 9-18 MiB, 90-116 k samples, on a busy
// 2-CPU host: one thread 0.89-0.98x the time of two).
constexpr std::uint64_t small_data = std::uint64_t{64} << 20;

std::size_t shard_count(std::size_t threads, std::uint64_t data_bytes) {
  if (threads) return threads;
  if (data_bytes < small_data) return 1;
  const std::size_t cpus = allowed_cpus();
  const std::size_t wanted = cpus <= 2 ? cpus : std::min<std::size_t>(cpus - 1, 3);
  // Only the CPUs the rest of the machine leaves idle (cpu_budget.hpp).
  return std::max<std::size_t>(1, std::min(wanted, idle_cpus()));
}

// Whether the data holds PERF_RECORD_FINISHED_ROUND in its first 16 MiB
// (perf record writes one after each pass over the buffers): records
// read as far as their headers, which is all the walk needs to know to
// keep each sample until the round after its own.
bool has_rounds(const perf_data::PerfDataReader& reader) {
  const std::span<const std::byte> bytes = reader.bytes();
  const perf_data::FileSection& data = reader.info().header.data;
  std::uint64_t at = std::min<std::uint64_t>(data.offset, bytes.size());
  const std::uint64_t end = at + std::min({data.size, bytes.size() - at, std::uint64_t{16} << 20});
  while (end - at >= sizeof(perf_data::RecordHeader)) {
    perf_data::RecordHeader h;
    std::memcpy(&h, bytes.data() + at, sizeof h);
    if (h.type == perf_data::record_finished_round) return true;
    if (h.size < sizeof h) return false;
    at += std::min<std::uint64_t>(h.size, end - at);
  }
  return false;
}

}  // namespace

Walk::Walk(const perf_data::PerfDataReader& reader, const amd_ibs::IbsCapture* capture, const Filters& filters,
           std::uint32_t needed_measures, std::size_t threads, std::size_t max_stack,
           std::function<void(std::uint64_t, std::uint64_t)> progress, SplitBy split,
           UserStackUnwindOptions unwind)
    : capture_(capture),
      file_(reader.bytes().data()),
      filters_(filters),
      split_(split),
      timed_(reader.info().timed()),
      spaces_(reader.info().build_ids,
              [this](std::uint32_t pid, std::string_view comm) {
                const Filters& x = filters_;
                if (!x.pids.empty() && std::find(x.pids.begin(), x.pids.end(), pid) == x.pids.end()) return false;
                return x.comms.empty() || std::find(x.comms.begin(), x.comms.end(), comm) != x.comms.end();
              },
              timed_),
      delayed_(timed_ ? delay_depth : 0),
      delayed_records_(timed_ ? delay_depth : 0),
      shards_(shard_count(threads, reader.info().header.data.size)),
      own_share_(own_share(shards_)),
      worker_scale_(shards_ == 1 ? 0 : ((shards_ - 1) << 32) / ((std::uint64_t{1} << 32) - own_share_)),
      pool_(shards_,
            [&, width = sums_width(capture, needed_measures, reader.info())] {
              return Tally(capture_, filters_.where ? &*filters_.where : nullptr, needed_measures, width,
                           reader.info().attrs.size(), file_, &data_src_values_);
            }),
      reads_(reader.info()),
      max_stack_(max_stack),
      progress_(std::move(progress)) {
  filtering_ = !filters_.cpus.empty() || !filters_.tids.empty() || filters_.time;
  if (timed_ && has_rounds(reader)) floor_ = record_floor_ = 0;
  read_cpu_ = filtering_ || split_.cpu;
  splitting_ = split_.tid || split_.cpu;
  const auto& attrs = reader.info().attrs;
  // An Item names its event in 16 bits (perf record writes a few events).
  if (attrs.size() > 0x10000)
    throw Error(ErrorCode::resource, fmt::format("{}: {} events in one capture (a report reads at most 65536)",
                                                 reader.info().path, attrs.size()));
  std::optional<SampleLayout> direct_layout;  // the first direct event's
  for (std::uint32_t e = 0; e < attrs.size(); ++e) {
    EventPlan p;
    p.layout = SampleLayout::of(attrs[e].attr);
    p.ibs = capture_ != nullptr;
    // The unit of an event whose payloads all have one: its route (fetch or
    // op) does not depend on the payload's size.
    const auto unit = p.ibs ? capture_->unit_of(e, 0) : std::nullopt;
    const SampleLayout& l = p.layout;
    p.direct = !filtering_ && unit && capture_->ip_offset(*unit, 0xFFFF) && l.in_place && l.raw && !l.chain &&
               l.pid_at && (l.time_at || !timed_);
    // A thread or cpu key reads each sample's tid or CPU: the long way.
    if (splitting()) p.direct = false;
    // A data view reads a sample's data address: the long way, every one.
    if (split_.data) p.direct = p.layout.in_place = false;
    // Direct events share one layout (perf record gives its events the
    // same sample_type); an event of another is read the long way.
    const auto same_place = [](const SampleLayout& a, const SampleLayout& b) {
      return a.variable_at == b.variable_at && a.pid_at == b.pid_at && a.time_at == b.time_at && a.ip_at == b.ip_at;
    };
    if (p.direct && direct_layout && !same_place(l, *direct_layout)) p.direct = false;
    if (p.direct) {
      p.unit = *unit;
      direct_layout = l;
    }
    constexpr std::uint64_t user_stack = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    p.stack_user = (attrs[e].attr.sample_type & user_stack) == user_stack;
    p.data_src = !p.ibs && (attrs[e].attr.sample_type & PERF_SAMPLE_DATA_SRC);
    p.weighted = p.data_src && (attrs[e].attr.sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT));
    if (p.data_src && data_src_values_.empty()) data_src_values_.assign(0x10000, 0);  // id 0: none
    plans_.push_back(p);
  }
  for (const EventPlan& p : plans_)
    if (p.stack_user && !unwinder_) {
      unwinder_ = std::make_unique<UserStackUnwinder>(std::move(unwind));
      delayed_stacks_.resize(timed_ ? delay_depth : 0);
    }
  if (!direct_layout) return;
  direct_ = Direct{direct_layout->variable_at, direct_layout->pid_at, direct_layout->time_at, direct_layout->ip_at};
  for (const amd_ibs::IbsUnit unit : {amd_ibs::IbsUnit::fetch, amd_ibs::IbsUnit::op}) {
    const auto ip_at = capture_->ip_offset(unit, 0xFFFF);
    if (!ip_at) continue;
    direct_.payload_ip_at[static_cast<std::size_t>(unit)] = static_cast<std::uint16_t>(ip_at->at);
    direct_.payload_ip_end[static_cast<std::size_t>(unit)] =
        static_cast<std::uint32_t>(std::max(ip_at->at, ip_at->invalid_at) + 8);
  }
  const auto ids = reader.sample_ids();
  if (!ids) return;
  runs_ = true;
  run_id_at_ = ids->id_at;
  run_id_base_ = ids->base;
  const auto unit_of_event = [&](std::uint32_t event) -> std::uint8_t {
    const EventPlan& p = plans_[event];
    return p.direct ? static_cast<std::uint8_t>(static_cast<unsigned>(p.unit) + 1) : 0;
  };
  if (ids->id_at == 0) {
    run_units_ = {unit_of_event(0)};
  } else {
    for (const std::uint32_t event : ids->events) run_units_.push_back(event ? unit_of_event(event - 1) : 0);
  }
}

void Walk::rebalance() {
  if (shards_ == 1) return;
  // A step of a 64th of the addresses, every 8 MiB of the file: the
  // entries of the addresses that change hands are held twice from then on
  // (the rows add them up alike), so the share moves little and seldom.
  constexpr std::uint64_t step = std::uint64_t{1} << 26;
  const std::uint64_t most = (std::uint64_t{1} << 32) / shards_;
  const auto waits = pool_.waits();
  if (waits.adder > waits.workers && own_share_ + step <= most) own_share_ += step;
  else if (waits.workers > waits.adder && own_share_ >= step) own_share_ -= step;
  else return;
  worker_scale_ = ((shards_ - 1) << 32) / ((std::uint64_t{1} << 32) - own_share_);
}

// A worker reads its items' bytes in the capture when it works their
// batch, and a sample waits in the delay ring before that (delay_depth
// samples without rounds): up to ShardPool::queue_depth batches of 2048
// wait, one fills and one is worked. One worker lagged 2 to 4 MiB on IBS
// samples of some 130 bytes: with 4 MiB kept behind, 53 MiB peak on 3 M
// samples; with 2 MiB, the whole 360 MB file, read in again behind the
// reader and kept. A call chain makes a sample larger: 8 MiB a worker.
std::uint64_t Walk::workers_lag() const { return (shards_ - 1) * (std::uint64_t{8} << 20); }

std::uint64_t Walk::sample_fields() const {
  const std::uint64_t data = split_.data ? PERF_SAMPLE_ADDR : 0;
  return PERF_SAMPLE_TID | PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
         PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
         PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | data;
}

// A sample of a data view, counted once by its own event and period: a
// sample that reads a group's counters (PERF_SAMPLE_READ) is not shared
// among them here (perf mem and c2c count each sample once too); its call
// chain and user stack are not read (a data address has no callers).
void Walk::take_data(const perf_data::SampleRecord& r) {
  const EventPlan& plan = plans_[r.event];
  const Fields f = fields_of(r, plan);
  const bool kept = !filtering_ || passes(f);
  const std::byte* record = file_ + r.offset;
  std::uint64_t code = r.ip, address = 0, access = 0;
  Item item = Item::of_event(r.event, 0, f.period);
  if (plan.ibs) {
    const std::optional<amd_ibs::IbsUnit> unit = capture_->unit_of(r.event, r.raw.size());
    if (!unit) {
      ++other_;
      return;
    }
    if (r.raw.empty()) {
      damaged_.add(r.offset, "IBS sample without its raw registers (record with --raw-samples)");
      return;
    }
    item = Item::of_ibs(r.raw.data(), 0, static_cast<std::uint32_t>(r.raw.size()),
                        static_cast<std::uint32_t>(r.raw.data() - record), *unit, Item::ibs | Item::data_address);
    code = capture_->ip_of(*unit, r.raw, r.ip).ip;
    // Decoded in full, once more than the tally does: only in a data view.
    // A damaged payload has no address here; the tally says what is wrong.
    Sample sample;
    amd_ibs::IbsSampleInfo info;
    std::string problem;
    if (kept && capture_->decode(r, sample, info, problem) == amd_ibs::IbsCapture::Result::ok) {
      if (sample.conditions.contains(condition("dc.lin_addr_valid"))) address = sample.data_linear;
      access = ibs_access(sample.conditions);
    }
  } else {
    if (r.sample_type & PERF_SAMPLE_ADDR) address = r.addr;
    if (r.sample_type & PERF_SAMPLE_DATA_SRC) access = data_src_access(r.data_src);
    if (plan.data_src && kept) mark_data_src(item, plan, r.data_src, r.weight);
  }
  item.ip = address;
  if (!kept) {
    if (!plan.ibs) return;
    item.add_flags(Item::filtered_out);
    return pool_.add(0, item);
  }
  const std::uint64_t pair[2] = {code, data_access_marker + access};
  item.set_chain(chains_.intern(reinterpret_cast<const std::byte*>(pair), 2));
  if (splitting_) item.set_chain(split(item.chain(), f.tid, f.cpu));
  Delayed& d = next_delayed();
  d = Delayed{item, address, f.time, f.pid};
  hand_on(d);
}

void Walk::mark_data_src(Item& item, const EventPlan& plan, std::uint64_t data_src, std::uint64_t weight) {
  const std::uint16_t id = data_src_id(data_src);
  if (!id) return;
  // WEIGHT_STRUCT's load latency is its var1_dw, the low 32 bits (as
  // WEIGHT's whole value is, in practice).
  std::optional<std::uint32_t> latency;
  if (plan.weighted) {
    const std::uint64_t w = weight & 0xFFFFFFFF;
    if (w > Item::max_weight) ++weights_cut_;
    latency = static_cast<std::uint32_t>(std::min<std::uint64_t>(w, Item::max_weight));
  }
  item.set_data_src(id, latency);
}

std::uint16_t Walk::data_src_id(std::uint64_t value) {
  const auto found = data_src_ids_.find(value);
  if (found != data_src_ids_.end()) return found->second;
  const std::size_t id = data_src_ids_.size() + 1;
  if (id >= data_src_values_.size()) {
    ++data_src_overflow_;
    return 0;
  }
  data_src_values_[id] = value;
  data_src_ids_.emplace(value, static_cast<std::uint16_t>(id));
  return static_cast<std::uint16_t>(id);
}

Walk::Fields Walk::fields_of(const perf_data::SampleRecord& r, const EventPlan& plan) {
  Fields f;
  f.pid = r.id.pid;
  f.tid = r.id.tid;
  f.cpu = r.id.cpu;
  f.time = r.id.time;
  f.ip = r.ip;
  f.period = (r.sample_type & PERF_SAMPLE_PERIOD) ? r.period : plan.layout.fixed_period;
  return f;
}

void Walk::sample(const perf_data::SampleRecord& r) {
  if (split_.data) [[unlikely]] return take_data(r);
  const EventPlan& plan = plans_[r.event];
  Fields f = fields_of(r, plan);
  f.chain = r.callchain.data();
  f.chain_nr = r.callchain_nr;
  f.raw = r.raw;
  f.data_src = r.data_src;
  f.weight = r.weight;
  std::optional<UserStack> stack;
  if (plan.stack_user) stack = UserStack::of(r);
  const UserStack* user_stack = stack ? &*stack : nullptr;
  if (!plan.ibs && reads_.reads(r.event)) {
    for (const perf_data::ReadShare& share : reads_.shares(r)) {
      f.period = share.period;
      take(share.event, plans_[share.event], f, file_ + r.offset, user_stack);
    }
    return;
  }
  take(r.event, plan, f, file_ + r.offset, user_stack);
}

void Walk::take(std::uint32_t event, const EventPlan& plan, const Fields& f, const std::byte* record,
                const UserStack* stack) {
  const bool kept = !filtering_ || passes(f);
  Item item = Item::of_event(event, f.ip, f.period);
  if (plan.data_src && kept) mark_data_src(item, plan, f.data_src, f.weight);
  std::uint64_t address = f.ip;  // that picks the shard
  if (plan.ibs) {
    const std::optional<amd_ibs::IbsUnit> unit = capture_->unit_of(event, f.raw.size());
    if (!unit) {
      ++other_;
      return;
    }
    if (f.raw.empty()) {
      damaged_.add(static_cast<std::uint64_t>(record - file_),
                   "IBS sample without its raw registers (record with --raw-samples)");
      return;
    }
    item = Item::of_ibs(f.raw.data(), f.ip, static_cast<std::uint32_t>(f.raw.size()),
                        static_cast<std::uint32_t>(f.raw.data() - record), *unit);
    address = capture_->ip_of(*unit, f.raw, f.ip).ip;
  }
  if (!kept) {
    // IBS: read all the same, for the period; any other: not at all.
    if (!plan.ibs) return;
    item.add_flags(Item::filtered_out);
    return pool_.add(0, item);
  }
  if (stack && unwinder_) {
    const DelayedStack w{item, address, f.time, f.pid, f.tid, f.cpu, f.chain, f.chain_nr, *stack};
    if (!timed_) {
      DelayedStack now = w;
      return release(now);
    }
    DelayedStack& slot = delayed_stacks_[delayed_stack_count_++ & (delay_depth - 1)];
    if (delayed_stack_count_ > delay_depth) release(slot);
    slot = w;
    return;
  }
  if (f.chain_nr) {
    const std::uint64_t kept = kept_frames(f.chain, f.chain_nr);
    if (corrupt_chain(f.chain, kept)) ++dropped_chains_;
    else if (split_.chains) item.set_chain(chains_.intern(f.chain, kept));
  }
  if (splitting_) [[unlikely]] item.set_chain(split(item.chain(), f.tid, f.cpu));
  Delayed& d = next_delayed();
  d = Delayed{item, address, f.time, f.pid};
  hand_on(d);
}

std::uint32_t Walk::split(std::uint32_t chain, std::uint32_t tid, std::uint32_t cpu) {
  const Split key{chain, split_.tid ? tid : 0, split_.cpu ? cpu : 0};
  // A thread's samples come in runs: the last split first.
  if (splits_.empty() || !(splits_[last_split_] == key)) {
    auto [it, fresh] = split_ids_.try_emplace(key, static_cast<std::uint32_t>(splits_.size()));
    if (fresh) splits_.push_back(key);
    last_split_ = it->second;
  }
  return last_split_;
}

void Walk::release(DelayedStack& d) {
  Item& item = d.item;
  const std::uint32_t space = spaces_.space_at(d.pid, d.time);
  item.set_space(space);
  if (!spaces_.space(space).passes) {
    if (!(item.flags() & Item::ibs)) return;
    item.add_flags(Item::filtered_out);
    return pool_.add(shard_of(d.address, space), item);
  }
  // As perf (thread__resolve_callchain): the kernel's part of the
  // recorded chain (up to its PERF_CONTEXT_USER: perf record --call-graph
  // dwarf asks the kernel for no user frames, exclude_callchain_user),
  // then the unwound user frames after a PERF_CONTEXT_USER.
  const std::byte* chain = d.chain;
  std::uint64_t nr = d.chain_nr;
  if (d.stack.regs_abi != PERF_SAMPLE_REGS_ABI_NONE) {
    // A kernel thread's sample has no user registers, and nothing to
    // unwind: its recorded chain as it is, and no complaint.
    unwound_frames_.clear();
    const std::string why = unwinder_->unwind(spaces_.live(), d.pid, d.tid, d.stack, max_stack_, unwound_frames_);
    if (!why.empty()) ++not_unwound_[why];
    if (!unwound_frames_.empty()) {
      if (why.empty()) ++unwound_;
      unwound_chain_.clear();
      for (std::uint64_t i = 0; i < d.chain_nr; ++i) {
        std::uint64_t ip;
        std::memcpy(&ip, d.chain + i * 8, 8);
        if (ip == static_cast<std::uint64_t>(PERF_CONTEXT_USER)) break;
        unwound_chain_.push_back(ip);
      }
      unwound_chain_.push_back(static_cast<std::uint64_t>(PERF_CONTEXT_USER));
      unwound_chain_.insert(unwound_chain_.end(), unwound_frames_.begin(), unwound_frames_.end());
      chain = reinterpret_cast<const std::byte*>(unwound_chain_.data());
      nr = unwound_chain_.size();
    }
  }
  if (nr) {
    const std::uint64_t kept = kept_frames(chain, nr);
    if (corrupt_chain(chain, kept)) ++dropped_chains_;
    else if (split_.chains) item.set_chain(chains_.intern(chain, kept));
  }
  if (splitting_) [[unlikely]] item.set_chain(split(item.chain(), d.tid, d.cpu));
  pool_.add(shard_of(d.address, space), item);
}

std::uint64_t Walk::kept_frames(const std::byte* chain, std::uint64_t nr) {
  // As perf (thread__resolve_callchain_sample): at most max_stack frames,
  // its context markers (PERF_CONTEXT_*, from PERF_CONTEXT_MAX up) not
  // counted.
  if (nr <= max_stack_) return nr;
  std::uint64_t frames = 0;
  for (std::uint64_t i = 0; i < nr; ++i) {
    std::uint64_t ip;
    std::memcpy(&ip, chain + i * 8, 8);
    if (ip < static_cast<std::uint64_t>(PERF_CONTEXT_MAX) && ++frames > max_stack_) {
      ++cut_chains_;
      return i;
    }
  }
  return nr;
}

void Walk::finished_round() {
  floor_ = round_end_;
  round_end_ = delayed_count_;
  record_floor_ = record_round_end_;
  record_round_end_ = delayed_record_count_;
}

bool Walk::corrupt_chain(const std::byte* chain, std::uint64_t nr) {
  // As perf (add_callchain_ip in its util/machine.c): a value from
  // PERF_CONTEXT_MAX up that is no context marker (-1, which broken user
  // stacks leave) means the chain is corrupt, and perf discards all of it;
  // the sample stays, without a call chain. The guest markers, which perf
  // 6.1 refused too and later perf takes, are taken.
  for (std::uint64_t i = 0; i < nr; ++i) {
    std::uint64_t ip;
    std::memcpy(&ip, chain + i * 8, 8);
    if (ip < static_cast<std::uint64_t>(PERF_CONTEXT_MAX)) continue;
    switch (ip) {
      case static_cast<std::uint64_t>(PERF_CONTEXT_HV):
      case static_cast<std::uint64_t>(PERF_CONTEXT_KERNEL):
      case static_cast<std::uint64_t>(PERF_CONTEXT_USER):
      case static_cast<std::uint64_t>(PERF_CONTEXT_GUEST):
      case static_cast<std::uint64_t>(PERF_CONTEXT_GUEST_KERNEL):
      case static_cast<std::uint64_t>(PERF_CONTEXT_GUEST_USER): continue;
      default: return true;
    }
  }
  return false;
}

std::vector<Tally>& Walk::finish() {
  for (; delayed_oldest_ < delayed_count_; ++delayed_oldest_) release(delayed_[delayed_oldest_ & delayed_mask_]);
  for (; record_oldest_ < delayed_record_count_; ++record_oldest_)
    release(delayed_records_[record_oldest_ & record_mask_], direct_);
  for (std::uint64_t i = delayed_stack_count_ > delay_depth ? delayed_stack_count_ - delay_depth : 0;
       i < delayed_stack_count_; ++i)
    release(delayed_stacks_[i & (delay_depth - 1)]);
  delayed_stack_count_ = 0;
  spaces_.take_all();
  std::vector<Tally>& tallies = pool_.finish();
  for (Tally& t : tallies) t.finish();
  return tallies;
}

}  // namespace tagop::report
