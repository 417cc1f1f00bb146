#pragma once
// IBS samples of a live SamplingSession, decoded to model samples: the
// session's ibs_op and ibs_fetch events get the decoder of this
// processor's family (from /proc/cpuinfo unless given).
//
//   SamplingSession s({.events = amd_ibs::program(request).perf_events, .all_cpus = true});
//   amd_ibs::decode_ibs_samples(s);
//   s.read_samples([](const Sample& x) { ... x.conditions ... });
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <optional>  // std::optional

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/cpu.hpp>               // CpuId
#include <tagop/sampling_session.hpp>  // SamplingSession

namespace tagop TAGOP_API {
namespace amd_ibs {

/// Sets a decoder on each IBS event of the session. Throws tagop::Error
/// when the session has no IBS event or the processor is not one with IBS.
void decode_ibs_samples(SamplingSession& session, std::optional<CpuId> cpu = std::nullopt);

}  // namespace amd_ibs
}  // namespace tagop
