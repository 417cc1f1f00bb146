#include <tagop/amd_ibs/programmer.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/families.hpp>  // generation, capabilities_of
#include <tagop/error.hpp>              // Error

namespace tagop::amd_ibs {

namespace {

// IbsFetchCtl and IbsOpCtl control bits (BKDG Family 10h; PPR 17h/19h).
constexpr std::uint64_t fetch_en = std::uint64_t{1} << 48;
constexpr std::uint64_t fetch_rand_en = std::uint64_t{1} << 57;
constexpr std::uint64_t op_en = std::uint64_t{1} << 17;
constexpr std::uint64_t op_cnt_ctl = std::uint64_t{1} << 19;
constexpr unsigned max_cnt_ext_shift = 20;  // IbsOpMaxCntExt: period bits 26:20

constexpr std::uint64_t sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                                      PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;

// Linux's perf_ibs_init() and its ibs_op/ibs_fetch formats: l3missonly is
// config:16 (ibs_op) and config:59 (ibs_fetch), ldlat config1:0-11.
constexpr std::uint64_t op_l3_miss_only = std::uint64_t{1} << 16;
constexpr std::uint64_t fetch_l3_miss_only = std::uint64_t{1} << 59;
constexpr unsigned ld_lat_thrsh_shift = 59;  // IbsOpCtl LdLatThrsh 62:59 = latency / 128 - 1
constexpr std::uint64_t ld_lat_en = std::uint64_t{1} << 63;

void check_filters(const IbsRequest& r, std::uint32_t c) {
  if (r.l3_miss_only && !(c & caps::Zen4Ext))
    throw Error(ErrorCode::not_supported,
                fmt::format("L3MissOnly needs IBS capability bit 11 (Zen4Ext): Zen 4 and later; family {:#x} model "
                            "{:#x} has capabilities {:#x}",
                            r.family, r.model, c));
  if (!r.load_latency) return;
  if (r.unit == IbsUnit::fetch)
    throw Error(ErrorCode::bad_input, "the load-latency filter is an op-sampling setting; fetch sampling has none");
  if (!(c & caps::OpLdLat))
    throw Error(ErrorCode::not_supported,
                fmt::format("the load-latency filter needs IBS capability bit 12 (OpLdLat): Zen 5 and later; family "
                            "{:#x} model {:#x} has capabilities {:#x}",
                            r.family, r.model, c));
  if (r.load_latency < 128 || r.load_latency > 2048)
    throw Error(ErrorCode::bad_input,
                fmt::format("load latency {} is outside 128 to 2048 cycles, the threshold IBS can hold", r.load_latency));
}

}  // namespace

std::uint64_t max_period(IbsUnit unit, std::uint32_t capabilities) {
  // MaxCnt holds period / 16 in 16 bits; ops get 7 more bits with OpCntExt.
  const unsigned bits = unit == IbsUnit::op && (capabilities & caps::OpCntExt) ? 23 : 16;
  return ((std::uint64_t{1} << bits) - 1) << 4;
}

Programming program(const IbsRequest& r) {
  if (r.family == 0)
    throw Error(ErrorCode::bad_input, "IbsRequest::family is not set: the processor decides what IBS can do "
                                      "(give its family and model, e.g. tagop::detect_host()'s)");
  require_ibs_family(r.family);
  const std::uint32_t c = r.capabilities.value_or(capabilities_of(r.family, r.model));
  const bool fetch = r.unit == IbsUnit::fetch;
  if (!(c & (fetch ? caps::FetchSam : caps::OpSam)))
    throw Error(ErrorCode::not_supported, fmt::format("this processor has no IBS {} sampling (capabilities {:#x} lack {})",
                            fetch ? "fetch" : "op", c, fetch ? "FetchSam" : "OpSam"));
  if (r.period < 16 || r.period % 16 != 0)
    throw Error(ErrorCode::bad_input, fmt::format("period {} is not a multiple of 16 of at least 16: IBS counts in units of 16 "
                            "(MaxCnt holds period / 16)",
                            r.period));
  if (r.period > max_period(r.unit, c))
    throw Error(ErrorCode::bad_input, fmt::format("period {} is beyond the {} counter: at most {}{}", r.period, fetch ? "fetch" : "op",
                            max_period(r.unit, c),
                            !fetch && !(c & caps::OpCntExt) ? " (no OpCntExt: IbsOpMaxCnt has 16 bits)" : ""));
  if (fetch && r.count_dispatched_ops)
    throw Error(ErrorCode::bad_input, "counting dispatched ops is an op-sampling setting; fetch sampling counts fetches");
  if (!fetch && r.randomize)
    throw Error(ErrorCode::bad_input, "randomisation is a fetch-sampling setting (IbsRandEn); op sampling has none");
  if (r.count_dispatched_ops && !(c & caps::OpCnt))
    throw Error(ErrorCode::not_supported, fmt::format("counting dispatched ops needs OpCnt (CPUID 8000_001B EAX bit 4): Family 10h "
                            "revision 4 and later; family {:#x} model {:#x} counts cycles only",
                            r.family, r.model));
  if (r.exclude_user && r.exclude_kernel)
    throw Error(ErrorCode::bad_input, "excluding both user and kernel leaves nothing to sample");
  check_filters(r, c);

  const std::uint64_t max_cnt = r.period >> 4;
  Programming p;
  std::uint64_t config = 0;
  if (fetch) {
    const std::uint64_t filter = r.l3_miss_only ? fetch_l3_miss_only : 0;
    const std::uint64_t ctl = (max_cnt & 0xFFFF) | fetch_en | (r.randomize ? fetch_rand_en : 0) | filter;
    p.msr_writes.push_back({info(IbsRegister::IbsFetchCtl).msr, "IbsFetchCtl", ctl,
                            fmt::format("IbsFetchMaxCnt={:#x}, IbsFetchEn{}{}", max_cnt, r.randomize ? ", IbsRandEn" : "",
                                        r.l3_miss_only ? ", L3MissOnly" : "")});
    config = (r.randomize ? fetch_rand_en : 0) | filter;
  } else {
    // Zen 5 sets L3MissOnly with the latency filter (Linux, erratum #1606).
    const bool l3 = r.l3_miss_only || (r.load_latency && generation(r.family, r.model) == "Zen 5");
    std::uint64_t filter = l3 ? op_l3_miss_only : 0;
    if (r.load_latency) filter |= (std::uint64_t{r.load_latency / 128} - 1) << ld_lat_thrsh_shift | ld_lat_en;
    const std::uint64_t ctl = (max_cnt & 0xFFFF) | ((max_cnt >> 16) << max_cnt_ext_shift) | op_en |
                              (r.count_dispatched_ops ? op_cnt_ctl : 0) | filter;
    std::string filters = l3 ? ", L3MissOnly" : "";
    if (r.load_latency)
      filters += fmt::format(", LdLatThrsh={} ({} cycles), LdLatEn", r.load_latency / 128 - 1, r.load_latency / 128 * 128);
    p.msr_writes.push_back({info(IbsRegister::IbsOpCtl).msr, "IbsOpCtl", ctl,
                            fmt::format("IbsOpMaxCnt={:#x}, IbsOpEn{}{}", max_cnt,
                                        r.count_dispatched_ops ? ", IbsOpCntCtl (dispatched ops)" : " (cycles)", filters)});
    config = (r.count_dispatched_ops ? op_cnt_ctl : 0) | (r.l3_miss_only ? op_l3_miss_only : 0);
  }

  PerfEvent e;
  e.pmu = fetch ? "ibs_fetch" : "ibs_op";
  e.attr = make_perf_attr();
  e.attr.type = pmu_type_or_unresolved(e.pmu);
  e.attr.config = config;
  e.attr.config1 = r.load_latency;  // ldlat: the kernel sets LdLatThrsh, LdLatEn (and L3MissOnly on Zen 5)
  // The kernel derives MaxCnt from the period; giving both is refused.
  e.attr.sample_period = r.period;
  e.attr.sample_type = sample_type;
  e.attr.exclude_user = r.exclude_user;
  e.attr.exclude_kernel = r.exclude_kernel;
  // The IBS PMU refuses exclude_* unless asked to filter in software
  // (its `swfilt` format attribute, config2:0).
  if (r.exclude_user || r.exclude_kernel) e.attr.config2 |= 1;
  e.description = fmt::format("IBS {} sampling every {} {}", fetch ? "fetch" : "op", r.period,
                              fetch ? "fetches" : (r.count_dispatched_ops ? "dispatched ops" : "cycles"));
  p.perf_events.push_back(e);

  if (r.exclude_user || r.exclude_kernel)
    p.notes.push_back("IBS hardware has no privilege filter: it samples user and kernel code alike. The MSR path "
                      "must drop samples by their address; perf filters in software with the ibs PMU's swfilt "
                      "attribute (set in config2), which kernels without "
                      "/sys/bus/event_source/devices/ibs_op/format/swfilt refuse.");
  if (r.load_latency % 128)
    p.notes.push_back(fmt::format("IBS's latency threshold is in steps of 128 cycles: {} acts as {}",
                                  r.load_latency, r.load_latency / 128 * 128));
  if (!fetch && !r.count_dispatched_ops && (c & caps::OpCnt))
    p.notes.push_back("counting cycles; dispatched-op counting (--count-ops) spreads samples more evenly "
                      "across the instructions of a block (seed 001)");
  return p;
}

}  // namespace tagop::amd_ibs
