// Call chains without their context markers (perf's
// thread__resolve_callchain_sample and add_callchain_ip).

#include <tagop/call_chain.hpp>

#include <linux/perf_event.h>  // PERF_CONTEXT_*

#include <cstring>  // std::memcpy

#include <tagop/perf_data_format.hpp>  // misc_cpumode_mask

namespace tagop {

namespace {

FrameContext context_of_cpumode(std::uint16_t misc) {
  switch (misc & perf_data::misc_cpumode_mask) {
    case PERF_RECORD_MISC_KERNEL: return FrameContext::kernel;
    case PERF_RECORD_MISC_USER: return FrameContext::user;
    case PERF_RECORD_MISC_HYPERVISOR: return FrameContext::hypervisor;
    case PERF_RECORD_MISC_GUEST_KERNEL: return FrameContext::guest_kernel;
    case PERF_RECORD_MISC_GUEST_USER: return FrameContext::guest_user;
    default: return FrameContext::unknown;
  }
}

}  // namespace

std::size_t append_call_chain(std::span<const std::byte> callchain, std::uint16_t misc, std::vector<ChainFrame>& out) {
  FrameContext context = context_of_cpumode(misc);
  const std::size_t before = out.size();
  for (std::size_t at = 0; at + 8 <= callchain.size(); at += 8) {
    std::uint64_t entry;
    std::memcpy(&entry, callchain.data() + at, 8);
    if (!is_context_marker(entry)) {
      out.push_back({entry, context});
      continue;
    }
    switch (entry) {
      case static_cast<std::uint64_t>(PERF_CONTEXT_KERNEL): context = FrameContext::kernel; break;
      case static_cast<std::uint64_t>(PERF_CONTEXT_USER): context = FrameContext::user; break;
      case static_cast<std::uint64_t>(PERF_CONTEXT_HV): context = FrameContext::hypervisor; break;
      case static_cast<std::uint64_t>(PERF_CONTEXT_GUEST_KERNEL): context = FrameContext::guest_kernel; break;
      case static_cast<std::uint64_t>(PERF_CONTEXT_GUEST_USER): context = FrameContext::guest_user; break;
      default: break;  // PERF_CONTEXT_GUEST alone says nothing of the frames' mode
    }
  }
  return out.size() - before;
}

}  // namespace tagop
