#include <tagop/amd_ibs/live_decoder.hpp>

#include <memory>  // std::shared_ptr

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/error.hpp>                 // Error
#include <tagop/programming.hpp>           // sysfs_pmu_type

namespace tagop::amd_ibs {

namespace {

// The session described as a capture's header would describe it, so that
// IbsCapture's decoding (units by PMU type, the family's layouts) applies
// to live samples unchanged.
struct LiveCapture {
  perf_data::FileInfo info;
  std::unique_ptr<IbsCapture> capture;
};

}  // namespace

void decode_ibs_samples(SamplingSession& session, std::optional<CpuId> cpu) {
  auto live = std::make_shared<LiveCapture>();
  live->info.path = "live session";
  live->info.attrs = session.events();
  if (!cpu) {
    const std::string id = host_cpuid();
    if (id.empty()) throw Error("IBS decoding: /proc/cpuinfo names no vendor and family");
    cpu = CpuId::parse(id);
  }
  for (const char* pmu : {"ibs_fetch", "ibs_op"})
    if (const int type = sysfs_pmu_type(pmu); type >= 0)
      live->info.pmu_mappings.push_back({static_cast<std::uint32_t>(type), pmu});
  live->capture = std::make_unique<IbsCapture>(live->info, cpu);
  for (std::size_t e = 0; e < live->info.attrs.size(); ++e) {
    const perf_data::EventAttr* attr = &live->info.attrs[e];
    if (!live->capture->unit_of(attr)) continue;
    session.set_decoder(e, [live, attr, e](const perf_data::SampleRecord& r, Sample& out) {
      perf_data::SampleRecord own = r;
      own.attr = attr;
      own.event = static_cast<std::uint32_t>(e);
      IbsSampleInfo info;
      std::string problem;
      return live->capture->decode(own, out, info, problem) == IbsCapture::Result::ok;
    });
  }
}

}  // namespace tagop::amd_ibs
