#include <tagop/amd_ibs/programmer.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

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

}  // namespace

std::uint64_t max_period(IbsUnit unit, std::uint32_t capabilities) {
  // MaxCnt holds period / 16 in 16 bits; ops get 7 more bits with OpCntExt.
  const unsigned bits = unit == IbsUnit::op && (capabilities & caps::OpCntExt) ? 23 : 16;
  return ((std::uint64_t{1} << bits) - 1) << 4;
}

Programming program(const IbsRequest& r) {
  require_ibs_family(r.family);
  const std::uint32_t c = r.capabilities.value_or(capabilities_of(r.family, r.model));
  const bool fetch = r.unit == IbsUnit::fetch;
  if (!(c & (fetch ? caps::FetchSam : caps::OpSam)))
    throw Error(fmt::format("this processor has no IBS {} sampling (capabilities {:#x} lack {})",
                            fetch ? "fetch" : "op", c, fetch ? "FetchSam" : "OpSam"));
  if (r.period < 16 || r.period % 16 != 0)
    throw Error(fmt::format("period {} is not a multiple of 16 of at least 16: IBS counts in units of 16 "
                            "(MaxCnt holds period / 16)",
                            r.period));
  if (r.period > max_period(r.unit, c))
    throw Error(fmt::format("period {} is beyond the {} counter: at most {}{}", r.period, fetch ? "fetch" : "op",
                            max_period(r.unit, c),
                            !fetch && !(c & caps::OpCntExt) ? " (no OpCntExt: IbsOpMaxCnt has 16 bits)" : ""));
  if (fetch && r.count_dispatched_ops)
    throw Error("counting dispatched ops is an op-sampling setting; fetch sampling counts fetches");
  if (!fetch && r.randomize)
    throw Error("randomisation is a fetch-sampling setting (IbsRandEn); op sampling has none");
  if (r.count_dispatched_ops && !(c & caps::OpCnt))
    throw Error(fmt::format("counting dispatched ops needs OpCnt (CPUID 8000_001B EAX bit 4): Family 10h "
                            "revision 4 and later; family {:#x} model {:#x} counts cycles only",
                            r.family, r.model));
  if (r.exclude_user && r.exclude_kernel) throw Error("excluding both user and kernel leaves nothing to sample");

  const std::uint64_t max_cnt = r.period >> 4;
  Programming p;
  std::uint64_t config = 0;
  if (fetch) {
    const std::uint64_t ctl = (max_cnt & 0xFFFF) | fetch_en | (r.randomize ? fetch_rand_en : 0);
    p.msr_writes.push_back({info(IbsRegister::IbsFetchCtl).msr, "IbsFetchCtl", ctl,
                            fmt::format("IbsFetchMaxCnt={:#x}, IbsFetchEn{}", max_cnt, r.randomize ? ", IbsRandEn" : "")});
    config = r.randomize ? fetch_rand_en : 0;
  } else {
    const std::uint64_t ctl = (max_cnt & 0xFFFF) | ((max_cnt >> 16) << max_cnt_ext_shift) | op_en |
                              (r.count_dispatched_ops ? op_cnt_ctl : 0);
    p.msr_writes.push_back({info(IbsRegister::IbsOpCtl).msr, "IbsOpCtl", ctl,
                            fmt::format("IbsOpMaxCnt={:#x}, IbsOpEn{}", max_cnt,
                                        r.count_dispatched_ops ? ", IbsOpCntCtl (dispatched ops)" : " (cycles)")});
    config = r.count_dispatched_ops ? op_cnt_ctl : 0;
  }

  PerfEvent e;
  e.pmu = fetch ? "ibs_fetch" : "ibs_op";
  e.attr = make_perf_attr();
  e.attr.config = config;
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
  if (!fetch && !r.count_dispatched_ops && (c & caps::OpCnt))
    p.notes.push_back("counting cycles; dispatched-op counting (--count-ops) spreads samples more evenly "
                      "across the instructions of a block (seed 001)");
  return p;
}

}  // namespace tagop::amd_ibs
