#include <tagop/arm_spe/model.hpp>

#include <tagop/measures.hpp>  // measure

namespace tagop::arm_spe {

namespace {

// Neoverse N1/N2/V1 data sources (their TRMs' "Data source packet"; perf's
// arm_spe_neoverse_data_source and arm_spe__synth_data_source_neoverse()).
// The source is where the load's data came from. Local cluster and peer
// cluster are cache-to-cache transfers from another core (perf: a peer
// snoop); the system cache is the system's L3 (perf assumes so too); remote
// is another socket, at a level the packet does not say.
const DataSourceRow neoverse_rows[] = {
    {0x0, "L1D", "the core's L1 data cache", false, {}},
    {0x8, "L2", "the core's L2 cache", false, {}},
    {0x9, "PEER-CORE", "another core's cache in the same cluster", true, {condition("src.cache")}},
    {0xA, "LOCAL-CLUSTER", "a cache of another core in the local cluster", true, {condition("src.cache")}},
    {0xB, "SYS-CACHE", "the system level cache (the system's L3)", true, {condition("src.l3")}},
    {0xC, "PEER-CLUSTER", "a cache in another cluster", true, {condition("src.cache")}},
    {0xD, "REMOTE", "another socket (a cache or its memory)", true, {condition("src.remote")},
     {condition("src.cache"), condition("src.l3"), condition("src.dram")}},
    {0xE, "DRAM", "local DRAM", true, {condition("src.dram")}},
};

// The src.* conditions the Neoverse encoding can tell apart: for a load
// with a data source packet, each is known true or false.
const ConditionSet neoverse_observed{condition("src.cache"), condition("src.l3"), condition("src.remote"),
                                     condition("src.dram"), condition("nb.valid"), condition("l2.miss")};

}  // namespace

std::span<const DataSourceRow> neoverse_data_sources() { return neoverse_rows; }

ConditionSet observable_conditions() {
  ConditionSet s{condition("op"), condition("load"), condition("store"), condition("branch"),
                 condition("branch.conditional"), condition("branch.indirect"), condition("op.not_retired"),
                 condition("branch.mispredicted"), condition("branch.taken"), condition("dc.miss"),
                 condition("dtlb.l2_miss"), condition("l3.miss"), condition("mem.misaligned"), condition("src.remote"),
                 condition("dc.lin_addr_valid"), condition("dc.phys_addr_valid")};
  return s | neoverse_observed;
}

const DataSourceRow* find_data_source(DataSourceEncoding encoding, std::uint64_t value) {
  if (encoding != DataSourceEncoding::neoverse) return nullptr;
  for (const DataSourceRow& r : neoverse_rows)
    if (r.value == value) return &r;
  return nullptr;
}

DataSourceEncoding data_source_encoding_for_midr(std::uint64_t midr) {
  const unsigned implementer = (midr >> 24) & 0xFF, part = (midr >> 4) & 0xFFF;
  if (implementer == 0x41 && (part == 0xD0C || part == 0xD49 || part == 0xD40)) return DataSourceEncoding::neoverse;
  return DataSourceEncoding::unknown;
}

Sample to_sample(const SpeRecord& r, const MappingOptions& options) {
  Sample s;
  auto set = [&](Condition c, bool value) {
    s.observed.insert(c);
    s.conditions.set(c, value);
  };
  s.conditions.insert(condition("op"));
  s.observed.insert(condition("op"));

  const bool memory = r.is_load() || r.is_store();
  if (r.op_class) {
    set(condition("load"), r.is_load());
    set(condition("store"), r.is_store());
    set(condition("branch"), r.is_branch());
    set(condition("branch.conditional"), r.is_conditional_branch());
    set(condition("branch.indirect"), r.is_indirect_branch());
  }
  if (r.has_events) {
    // SPE samples ops at dispatch: some are discarded after speculation.
    set(condition("op.not_retired"), !r.event(ev_retired));
    if (r.op_class) {
      set(condition("branch.mispredicted"), r.is_branch() && r.event(ev_mispredicted));
      // Not-taken is set for a conditional branch that fell through; every
      // other branch (and every branch with the event clear) was taken.
      set(condition("branch.taken"), r.is_branch() && !r.event(ev_not_taken));
    }
    if (memory) {
      set(condition("dc.miss"), r.event(ev_l1d_refill));
      // A TLB walk means the access missed every TLB level: the L2 DTLB,
      // and so the L1 too. Without a walk, whether the L1 DTLB missed (and
      // the L2 hit) is not reported: dtlb.l1_miss stays unknown then.
      set(condition("dtlb.l2_miss"), r.event(ev_tlb_walk));
      if (r.event(ev_tlb_walk)) set(condition("dtlb.l1_miss"), true);
      // LLC refill: a miss in the last-level cache, the L3 (the cluster's L3
      // or the system cache) on the systems SPE ships in.
      set(condition("l3.miss"), r.event(ev_llc_miss));
      set(condition("mem.misaligned"), r.event(ev_alignment));
      // Remote access: the data came from another socket. A Neoverse
      // data source of REMOTE says so too (below).
      set(condition("src.remote"), r.event(ev_remote_access));
    }
  }
  // The data source packet is meaningful for loads only (Neoverse has none
  // for stores; perf reads it only for loads too).
  if (r.is_load() && r.data_source) {
    if (const DataSourceRow* row = find_data_source(options.data_source, *r.data_source)) {
      ConditionSet observed = neoverse_observed;
      observed.erase(row->undecided);
      s.observed |= observed;
      s.conditions |= row->sources;
      s.conditions.set(condition("nb.valid"), row->beyond_l2);
      s.conditions.set(condition("l2.miss"), row->beyond_l2);
    }
  }

  set(condition("dc.lin_addr_valid"), r.data_virtual.has_value());
  set(condition("dc.phys_addr_valid"), r.data_physical.has_value());
  s.ip = r.pc.value_or(0);
  s.ip_exact = true;
  s.branch_target = r.branch_target.value_or(0);
  s.data_linear = r.data_virtual.value_or(0);
  s.data_physical = r.data_physical.value_or(0);
  if (r.context) s.tid = static_cast<std::uint32_t>(*r.context);

  if (r.total_latency) {
    s.set_measure(measure("op.total_latency"), *r.total_latency);
    if (r.is_load()) s.set_measure(measure("mem.load_latency"), *r.total_latency);
  }
  if (r.issue_latency) s.set_measure(measure("op.issue_latency"), *r.issue_latency);
  if (r.translation_latency) s.set_measure(measure("mem.translation_latency"), *r.translation_latency);
  return s;
}

}  // namespace tagop::arm_spe
