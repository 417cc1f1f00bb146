#pragma once
// pprof's format: a gzipped profile.proto (github.com/google/pprof, the
// format `go tool pprof`, Parca, Pyroscope and Grafana read).
//
//   write_pprof(profile, "ibs.pb.gz");   // then: go tool pprof -top ibs.pb.gz
//
// Each sample type becomes a sample_type with values x its period (so
// pprof's numbers are tagop's estimates); strings, functions, locations and
// mappings are each written once and referred to by id, as pprof expects;
// labels become pid, tid and cpu (numbers) and comm (a string).
// Thread-safe: the functions only read their arguments; each call writes its
// own stream or file.

#include <iosfwd>  // std::ostream
#include <string>  // std::string

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/profiles/profile.hpp>  // Profile

namespace tagop TAGOP_API {
namespace profiles {

/// Writes the gzipped profile to `out`. Throws tagop::Error when the
/// stream fails.
void write_pprof(const Profile& profile, std::ostream& out);

/// Writes the gzipped profile to a file. Throws tagop::Error naming the
/// file and the reason when it cannot be written.
void write_pprof(const Profile& profile, const std::string& path);

}  // namespace profiles
}  // namespace tagop
