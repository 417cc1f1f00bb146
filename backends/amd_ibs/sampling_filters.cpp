#include <tagop/amd_ibs/sampling_filters.hpp>

namespace tagop::amd_ibs {

namespace {

// arch/x86/events/amd/ibs.c: l3missonly is config:16 on ibs_op and
// config:59 on ibs_fetch, with IBS capability bit 11 (6.1); ldlat is
// config1:0-11 on ibs_op with bit 12, and Linux keeps a sample only of a
// load that missed the DC with DcMissLat above it (6.15), setting
// L3MissOnly too on Zen 5 ("perf/amd/ibs: Limit ldlat->l3missonly
// dependency to Zen5", erratum #1606).
constexpr SamplingFilterSpec filters[] = {
    {IbsUnit::op, SamplingFilterKind::l3_miss_only, "L3MissOnly", "ibs_op/l3missonly=1/", "op & l3.miss",
     "ops that missed the L3", "Zen 4 and later (IBS capability bit 11)"},
    {IbsUnit::op, SamplingFilterKind::load_latency, "ldlat", "ibs_op/ldlat=N/", "op & load & dc.miss",
     "loads that missed the DC with a miss latency above N cycles (128 to 2048)",
     "Zen 5 and later (IBS capability bit 12); on Zen 5 with L3MissOnly"},
    {IbsUnit::fetch, SamplingFilterKind::l3_miss_only, "L3MissOnly", "ibs_fetch/l3missonly=1/",
     "fetch & fetch.l3_miss", "fetches that missed the L3", "Zen 4 and later (IBS capability bit 11)"},
};

}  // namespace

std::span<const SamplingFilterSpec> sampling_filter_table() { return filters; }

}  // namespace tagop::amd_ibs
