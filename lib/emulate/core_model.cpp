#include <tagop/emulate/core_model.hpp>

#include <algorithm>  // std::max
#include <bit>        // std::countr_zero

#include <boost/hana/adapt_struct.hpp>  // BOOST_HANA_ADAPT_STRUCT
#include <boost/hana/at_key.hpp>        // hana::at_key
#include <boost/hana/for_each.hpp>      // hana::for_each
#include <boost/hana/keys.hpp>          // hana::keys

// The counts' fields, named once: the arithmetic below goes over them.
BOOST_HANA_ADAPT_STRUCT(tagop::emulate::CoreCounts, instructions, i1_misses, il_misses, data_reads, d1_read_misses,
                        ll_read_misses, data_writes, d1_write_misses, ll_write_misses, conditional_branches,
                        conditional_mispredicts, indirect_branches, indirect_mispredicts);

namespace tagop::emulate {

namespace {

constexpr unsigned page_4k_shift = 12, page_2m_shift = 21;

BlockCache cache_of(const CacheSpec& c) {
  return BlockCache(c.line ? c.size / c.line : 0, c.ways, static_cast<unsigned>(std::countr_zero(unsigned{c.line})));
}

bool crosses(std::uint64_t address, std::uint32_t size, std::uint64_t boundary) {
  return size > 1 && (address % boundary) + size > boundary;
}

// Misaligned: crossing a boundary that an access of its size need not
// cross (a 64-byte fast-string chunk on a 64-byte boundary is aligned).
bool misaligned(std::uint64_t address, std::uint32_t size, std::uint64_t boundary) {
  return size <= boundary ? crosses(address, size, boundary) : address % boundary != 0;
}

}  // namespace

ConditionSet CoreModel::modelled(SampleKind kind) {
  if (kind == SampleKind::fetch)
    return {condition("fetch"), condition("op"), condition("fetch.killed"), condition("fetch.completed"),
            condition("ic.miss"), condition("fetch.l2_miss"), condition("itlb.l1_miss"), condition("itlb.l2_miss")};
  return {
      condition("fetch"), condition("op"),
      // Control flow: the kind from the decoder, taken from the trace, mispredicted from the predictor.
      condition("branch"), condition("branch.mispredicted"), condition("branch.taken"), condition("branch.conditional"),
      condition("branch.call"), condition("branch.indirect"), condition("branch.far"), condition("return"),
      condition("return.mispredicted"), condition("op.int_divide"), condition("op.fp_divide"),
      condition("op.rip_invalid"),
      // Memory: the kind from the trace, the rest from the caches and TLBs.
      condition("load"), condition("store"), condition("mem.sw_prefetch"), condition("dc.lin_addr_valid"),
      condition("dtlb.l1_miss"), condition("dtlb.l2_miss"), condition("dtlb.l1_page_2m"), condition("dtlb.l1_page_1g"),
      condition("dtlb.l2_page_2m"), condition("dtlb.l2_page_1g"), condition("dc.miss"), condition("l2.miss"),
      condition("mem.misaligned"), condition("mem.split_line"), condition("mem.split_page"), condition("mem.locked"),
      // User memory is write-back: never UC or WC.
      condition("mem.uncacheable"), condition("mem.write_combining"),
      // One core, one node: a miss is served by the L3 or DRAM, never by
      // another core's cache, another node or I/O.
      condition("nb.valid"), condition("src.l3"), condition("src.cache"), condition("src.dram"), condition("src.io"),
      condition("src.remote"), condition("src.cache_modified"), condition("src.cache_owned"),
      // Execution classes, from the decoder.
      condition("uop.packed_sp"), condition("uop.packed_dp"), condition("uop.scalar_sp"), condition("uop.scalar_dp"),
      condition("uop.mmx_64"), condition("uop.mmx_128"), condition("uop.x87_fp"), condition("uop.x87_simd_move"),
  };
}

CoreModel::CoreModel(const MicroarchSpec& spec, PageSize data_pages, CacheBehaviour behaviour)
    : spec_(spec),
      large_data_pages_(data_pages == PageSize::large_2m),
      prefetchers_(behaviour.prefetchers && spec.l1d_prefetchers),
      victim_l3_(behaviour.victim_l3 && spec.victim_l3 && spec.l3.size),
      l1i_(cache_of(spec.l1i)),
      l1d_(cache_of(spec.l1d)),
      l2_(cache_of(spec.l2)),
      l3_(cache_of(spec.l3)),
      itlb_l1_(spec.itlb_l1.entries_4k, spec.itlb_l1.ways_4k, page_4k_shift),
      itlb_l1_large_(spec.itlb_l1.entries_2m, spec.itlb_l1.ways_2m, page_2m_shift),
      itlb_l2_(spec.itlb_l2.entries_4k, spec.itlb_l2.ways_4k, page_4k_shift),
      itlb_l2_large_(spec.itlb_l2.entries_2m, spec.itlb_l2.ways_2m, page_2m_shift),
      dtlb_l1_(spec.dtlb_l1.entries_4k, spec.dtlb_l1.ways_4k, page_4k_shift),
      dtlb_l1_large_(spec.dtlb_l1.entries_2m, spec.dtlb_l1.ways_2m, page_2m_shift),
      dtlb_l2_(spec.dtlb_l2.entries_4k, spec.dtlb_l2.ways_4k, page_4k_shift),
      dtlb_l2_large_(spec.dtlb_l2.entries_2m, spec.dtlb_l2.ways_2m, page_2m_shift),
      predictor_(spec.predictor, behaviour.cachegrind_branches),
      fetch_shift_(static_cast<unsigned>(std::countr_zero(unsigned{spec.fetch_block}))),
      op_observed_(modelled(SampleKind::op)),
      fetch_observed_(modelled(SampleKind::fetch)),
      cachegrind_branches_(behaviour.cachegrind_branches) {}

CoreModel::Served CoreModel::below_l1(std::uint64_t address) {
  if (!victim_l3_) {
    if (l2_.access(address)) return {2, spec_.l2.latency};
    if (l3_.access(address)) return {3, spec_.l3.latency};
    return {4, spec_.dram_latency};
  }
  // A victim L3: the line goes to the L2 only; the line it pushed out of
  // the L2 goes to the L3. An L3 hit leaves the line there too (the
  // model's L3 is not exclusive: other cores may want it).
  std::uint64_t victim = 0;
  bool evicted = false;
  if (l2_.access(address, victim, evicted)) return {2, spec_.l2.latency};
  const bool in_l3 = l3_.hit(address);
  if (evicted) l3_.access(victim);
  return in_l3 ? Served{3, spec_.l3.latency} : Served{4, spec_.dram_latency};
}

// A prefetch brings the line into the L1D (and the levels below) as a
// demand miss would, but is no op: nothing counts it.
void CoreModel::prefetch(std::uint64_t address) {
  if (!l1d_.access(address)) below_l1(address);
}

void CoreModel::train_stride(std::uint64_t ip, std::uint64_t address) {
  StrideEntry& e = strides_[(ip ^ (ip >> 8)) % strides_.size()];
  if (e.ip != ip) {
    e = StrideEntry{ip, address, 0, false};
    return;
  }
  const auto stride = static_cast<std::int64_t>(address - e.last);
  e.confirmed = stride != 0 && stride == e.stride;
  e.stride = stride;
  e.last = address;
  if (e.confirmed) prefetch(address + static_cast<std::uint64_t>(stride));
}

CoreModel::Served CoreModel::data(std::uint64_t address) {
  if (l1d_.access(address)) return {1, spec_.l1d.latency};
  return below_l1(address);
}

CoreModel::Served CoreModel::code(std::uint64_t address) {
  // A hit still takes the fetch its cycles: IbsFetchLat is never 0.
  if (l1i_.access(address)) return {1, spec_.l1i.latency};
  return below_l1(address);
}

CoreModel::Translation CoreModel::translate(BlockCache& l1_small, BlockCache& l1_large, BlockCache& l2_small,
                                            BlockCache& l2_large, const TlbSpec& l1, const TlbSpec& l2,
                                            std::uint64_t address, bool large) {
  // A level without 2 MiB entries holds such a page as 4 KiB pieces.
  auto hit = [&](BlockCache& small, BlockCache& big, const TlbSpec& level) {
    return large && level.entries_2m ? big.access(address) : small.access(address);
  };
  if (hit(l1_small, l1_large, l1)) return {};
  if (l2.entries_4k && hit(l2_small, l2_large, l2)) return {true, false, l2.latency};
  return {true, true, static_cast<unsigned>(l2.latency + spec_.page_walk_latency)};
}

unsigned CoreModel::fetch_block(std::uint64_t address, Sample& out) {
  // Field by field, not `out = Sample{}`: that clears the measures array
  // too, a memset per fetch, and only the measures marked are read.
  out.measured = 0;
  out.ip_physical = out.data_linear = out.data_physical = out.branch_target = out.time = 0;
  out.pid = out.tid = out.cpu = 0;
  out.ip_exact = true;
  out.chain = {};
  out.conditions = {condition("fetch"), condition("fetch.completed")};
  out.observed = fetch_observed_;
  out.ip = address;
  const Translation t = translate(itlb_l1_, itlb_l1_large_, itlb_l2_, itlb_l2_large_, spec_.itlb_l1, spec_.itlb_l2,
                                  address, false);
  const Served s = code(address);
  if (t.l1_miss) {
    out.conditions.insert(condition("itlb.l1_miss"));
    out.set_measure(measure("fetch.itlb_refill_latency"), t.latency);
  }
  if (t.l2_miss) out.conditions.insert(condition("itlb.l2_miss"));
  if (s.level > 1) out.conditions.insert(condition("ic.miss"));
  if (s.level > 2) out.conditions.insert(condition("fetch.l2_miss"));
  out.set_measure(measure("fetch.latency"), s.latency + t.latency);
  return s.level;
}

void CoreModel::memory(const TraceInstruction& ins, const InstructionInfo& info, Sample& op, unsigned& cycles) {
  if (ins.access_count == 0) return;
  const std::uint32_t kept = std::min<std::uint32_t>(ins.access_count, TraceInstruction::max_accesses);
  bool load = false, store = false;
  Translation first_translation;
  Served first_served;
  for (std::uint32_t i = 0; i < kept; ++i) {
    const DataAccess& a = ins.accesses[i];
    load |= a.kind != AccessKind::store;
    store |= a.kind != AccessKind::load;
    const Translation t = translate(dtlb_l1_, dtlb_l1_large_, dtlb_l2_, dtlb_l2_large_, spec_.dtlb_l1, spec_.dtlb_l2,
                                    a.address, large_data_pages_);
    Served s = data(a.address);
    if (crosses(a.address, a.size, spec_.l1d.line)) {
      const Served second = data(a.address + a.size - 1);
      if (second.level > s.level) s = second;
    }
    if (prefetchers_) {
      // After the demand access, as the hardware trains on it.
      if (s.level > 1) prefetch((a.address | (spec_.l1d.line - 1)) + 1);
      if (i == 0 && a.kind != AccessKind::store) train_stride(ins.ip, a.address);
    }
    if (i == 0) first_translation = t, first_served = s;
    // A modify is one read (Cachegrind's Dm): the write after it cannot miss.
    if (a.kind == AccessKind::store) {
      ++counts_.data_writes;
      counts_.d1_write_misses += s.level > 1;
      counts_.ll_write_misses += s.level > 3;
    } else {
      ++counts_.data_reads;
      counts_.d1_read_misses += s.level > 1;
      counts_.ll_read_misses += s.level > 3;
    }
  }
  // IBS reports one access per op: the first (its address, its outcome).
  const DataAccess& a = ins.accesses[0];
  ConditionSet& c = op.conditions;
  if (load) c.insert(condition("load"));
  if (store) c.insert(condition("store"));
  c.insert(condition("dc.lin_addr_valid"));
  op.data_linear = a.address;
  op.set_measure(measure("mem.width"), a.size);
  const Translation& t = first_translation;
  if (t.l1_miss) {
    c.insert(condition("dtlb.l1_miss"));
    op.set_measure(measure("dtlb.refill_latency"), t.latency);
  }
  if (t.l2_miss) c.insert(condition("dtlb.l2_miss"));
  if (large_data_pages_) {
    // The level that translated it gives the page size; after a full miss, the L1's new entry.
    c.insert(t.l1_miss && !t.l2_miss ? condition("dtlb.l2_page_2m") : condition("dtlb.l1_page_2m"));
  }
  const Served& s = first_served;
  if (s.level > 1) {
    c.insert(condition("dc.miss"));
    op.set_measure(measure("dc.miss_latency"), s.latency);
  }
  if (s.level > 2) {
    c.insert(condition("l2.miss"));
    c.insert(condition("nb.valid"));
    c.insert(s.level == 3 ? condition("src.l3") : condition("src.dram"));
  }
  if (misaligned(a.address, a.size, spec_.misaligned_boundary)) c.insert(condition("mem.misaligned"));
  if (crosses(a.address, a.size, spec_.l1d.line)) c.insert(condition("mem.split_line"));
  if (crosses(a.address, a.size, std::uint64_t{1} << page_4k_shift)) c.insert(condition("mem.split_page"));
  if (info.locked) c.insert(condition("mem.locked"));
  if (info.prefetch) c.insert(condition("mem.sw_prefetch"));
  cycles += s.latency + t.latency;
}

// Cachegrind's conditional branches that are no branch on the hardware:
// they train its predictor and are counted, but the op stays no branch.
//
// Fewer where VEX's optimiser decided a guard before Cachegrind saw the
// superblock (the trace says how many exits the translation kept,
// ins.valgrind_exits): the exit on rcx == 0 that begins each run of a REP
// string tests a constant when an earlier instruction of the same
// superblock set rcx to one (ld.so's `mov $52,%ecx; rep stosq`): the
// optimiser removes it (rcx != 0) or makes it the superblock's end (rcx ==
// 0). The runs that go round again start a superblock of their own, where
// rcx is unknown and the exit stays. The compare's exit of REPE/REPNE
// CMPS and SCAS tests what memory held and always stays; a CAS's retry
// exit tests what the CAS found and always stays.
void CoreModel::valgrind_exits(const TraceInstruction& ins, const InstructionInfo& info) {
  // Taken where the exit leaves the fall-through path: a REP string's run
  // goes round again (next is itself), a CAS retries (next is itself).
  const bool again = ins.next_ip == ins.ip;
  auto exit = [&](bool taken) {
    ++counts_.conditional_branches;
    counts_.conditional_mispredicts += predictor_.conditional(ins.ip, taken);
  };
  const int kept = ins.valgrind_exits;  // -1: not known, all kept
  if (kept == 0) return;
  switch (info.valgrind_exit) {
    case InstructionInfo::ValgrindExit::none: return;
    case InstructionInfo::ValgrindExit::repeat:
    case InstructionInfo::ValgrindExit::locked_retry: exit(again); return;
    case InstructionInfo::ValgrindExit::repeat_compare:
      // rcx != 0 (an iteration runs, it reads), then the compare's exit;
      // the compare's alone where rcx's was decided (one kept).
      if (kept != 1) exit(ins.access_count != 0);
      if (ins.access_count != 0) exit(again);
      return;
  }
}

void CoreModel::branch(const TraceInstruction& ins, const InstructionInfo& info, Sample& op, unsigned& cycles) {
  if (cachegrind_branches_ && info.valgrind_exit != InstructionInfo::ValgrindExit::none) valgrind_exits(ins, info);
  if (info.branch == BranchKind::none) return;
  const std::uint64_t next = ins.next_ip;
  const std::uint64_t fall_through = ins.ip + ins.size;
  bool taken = true, mispredicted = false;
  ConditionSet& c = op.conditions;
  switch (info.branch) {
    case BranchKind::none: return;
    case BranchKind::conditional:
      taken = next != 0 && next != fall_through;
      c.insert(condition("branch.conditional"));
      // Cachegrind sees no branch where the translation kept no exit for
      // it (Valgrind's default chasing merges a short jump over a few
      // instructions into a select). Flags from constants in the
      // superblock do not remove it: the first optimisation leaves the
      // flags helper's specialisation unfolded (`xor %eax,%eax; test
      // %eax,%eax; je` keeps its exit).
      if (cachegrind_branches_ && ins.valgrind_exits == 0) break;
      mispredicted = predictor_.conditional(ins.ip, taken);
      ++counts_.conditional_branches;
      counts_.conditional_mispredicts += mispredicted;
      break;
    case BranchKind::jump: break;
    case BranchKind::indirect_jump:
      mispredicted = next != 0 && predictor_.indirect(ins.ip, next);
      c.insert(condition("branch.indirect"));
      ++counts_.indirect_branches;
      counts_.indirect_mispredicts += mispredicted;
      break;
    case BranchKind::call:
      if (!cachegrind_branches_) predictor_.call(fall_through);
      c.insert(condition("branch.call"));
      break;
    case BranchKind::indirect_call:
      mispredicted = next != 0 && predictor_.indirect(ins.ip, next);
      if (!cachegrind_branches_) predictor_.call(fall_through);
      c.insert(condition("branch.call"));
      c.insert(condition("branch.indirect"));
      ++counts_.indirect_branches;
      counts_.indirect_mispredicts += mispredicted;
      break;
    case BranchKind::ret:
      // Cachegrind takes returns to be predicted (a return stack that is
      // never wrong) and counts them nowhere.
      mispredicted = !cachegrind_branches_ && next != 0 && predictor_.ret(next);
      c.insert(condition("return"));
      if (mispredicted) c.insert(condition("return.mispredicted"));
      break;
    case BranchKind::far: c.insert(condition("branch.far")); break;
  }
  c.insert(condition("branch"));
  if (taken) {
    c.insert(condition("branch.taken"));
    op.branch_target = next;
  }
  if (mispredicted) {
    c.insert(condition("branch.mispredicted"));
    cycles += spec_.predictor.mispredict_penalty;
  }
}

void CoreModel::retire(const TraceInstruction& ins, const InstructionInfo& info, Sample& op, Fetches& fetches) {
  // The front end: a fetch for each fetch block the instruction enters.
  fetches.count = 0;
  const std::uint64_t first = ins.ip >> fetch_shift_;
  const std::uint64_t last = (ins.ip + (ins.size ? ins.size - 1 : 0)) >> fetch_shift_;
  // The level that served the instruction's bytes: 1 when it needed no
  // new fetch (the block fetched last is the most recent line).
  unsigned level = 1;
  if (first != fetch_block_) level = fetch_block(ins.ip, fetches.fetch[fetches.count++]);
  if (last != first) level = std::max(level, fetch_block(last << fetch_shift_, fetches.fetch[fetches.count++]));
  fetch_block_ = last;
  ++counts_.instructions;
  counts_.i1_misses += level > 1;
  counts_.il_misses += level > 3;

  op.conditions = {condition("op")};
  op.observed = op_observed_;
  op.measured = 0;
  op.ip = ins.ip;
  op.ip_physical = op.data_linear = op.data_physical = op.branch_target = 0;
  op.ip_exact = true;
  unsigned cycles = spec_.retire_cycles;
  memory(ins, info, op, cycles);
  branch(ins, info, op, cycles);
  op.conditions |= info.classes;
  op.set_measure(measure("op.tag_to_retire"), cycles);
  // In order, without overlap: an op retires the cycle after it completes.
  op.set_measure(measure("op.comp_to_retire"), 1);
  // A taken branch sends the front end to a new fetch.
  if (op.conditions.contains(condition("branch.taken"))) fetch_block_ = ~std::uint64_t{0};
}

CoreCounts& operator+=(CoreCounts& a, const CoreCounts& b) {
  boost::hana::for_each(boost::hana::keys(a), [&](auto key) { boost::hana::at_key(a, key) += boost::hana::at_key(b, key); });
  return a;
}

CoreCounts operator-(const CoreCounts& a, const CoreCounts& b) {
  CoreCounts out = a;
  boost::hana::for_each(boost::hana::keys(out),
                        [&](auto key) { boost::hana::at_key(out, key) -= boost::hana::at_key(b, key); });
  return out;
}

}  // namespace tagop::emulate
