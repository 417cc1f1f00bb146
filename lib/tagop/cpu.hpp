#pragma once
// Which processor: the family, model and stepping that select register
// layouts and event tables.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

struct CpuId {
  std::string vendor;  ///< "AuthenticAMD", "GenuineIntel"
  unsigned family = 0;
  unsigned model = 0;
  unsigned stepping = 0;

  /// Parses perf's HEADER_CPUID form for x86: "AuthenticAMD,25,1,1" (vendor,
  /// family, model, stepping, decimal). Throws tagop::Error when it is not.
  static CpuId parse(std::string_view text);
  std::string to_string() const;
};

}  // namespace tagop
