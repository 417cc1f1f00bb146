#pragma once
// Whether an address is in the kernel's half of x86-64's address space
// (4- or 5-level paging: its top byte all ones): how a report names an
// address that no module maps, "[kernel]" or "[unknown]", alike in the
// local report (rows.cpp), at ingest and in the store's call chains. A
// non-canonical one (0x8000...: garbage that a user stack walk read) is in
// no one's half: perf finds it in no map of the user's, so "[unknown]".

#include <cstdint>  // std::uint64_t

namespace tagop::report {

inline bool kernel_address(std::uint64_t ip) { return (ip >> 56) == 0xFF; }

}  // namespace tagop::report
