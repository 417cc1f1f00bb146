#pragma once
// What the Pentium 4 tests share: building requests and finding MSR writes.

#include <cstdint>  // std::uint32_t
#include <optional>  // std::optional
#include <string>   // std::string
#include <vector>   // std::vector

#include <tagop/intel_p4/programmer.hpp>  // P4Request, program

namespace p4_test {

inline tagop::intel_p4::P4Request request(std::vector<std::string> names, bool pebs = false) {
  tagop::intel_p4::P4Request r;
  for (std::string& n : names) r.events.push_back({.name = std::move(n), .pebs = pebs});
  return r;
}

/// The value written to `msr`; nullopt when the programming never writes it.
inline std::optional<std::uint64_t> written(const tagop::Programming& p, std::uint32_t msr) {
  std::optional<std::uint64_t> value;
  for (const tagop::MsrWrite& w : p.msr_writes)
    if (w.msr == msr) value = w.value;
  return value;
}

inline std::size_t times_written(const tagop::Programming& p, std::uint32_t msr) {
  std::size_t n = 0;
  for (const tagop::MsrWrite& w : p.msr_writes) n += w.msr == msr;
  return n;
}

/// ESCRs live at 0x3A0-0x3E1, CCCRs at 0x360-0x371 (SDM Table 19-28).
inline bool is_escr(std::uint32_t msr) { return msr >= 0x3A0 && msr <= 0x3E1; }
inline bool is_cccr(std::uint32_t msr) { return msr >= 0x360 && msr <= 0x371; }

}  // namespace p4_test
