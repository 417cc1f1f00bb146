#pragma once
// The vDSO: the small shared object the kernel maps into every process
// ([vdso] in /proc/PID/maps), where clock_gettime and gettimeofday run.
// It has no file, so a capture names its samples only if the image was
// kept: perf record copies its own process's vDSO (the same image for
// every 64-bit process of one kernel) into its build-id cache and writes
// its build-id into HEADER_BUILD_ID, and perf report and tagop report find
// it there.
//
//   std::string problem;
//   if (auto vdso = tagop::this_process_vdso(problem))
//     tagop::save_in_build_id_cache(*vdso, tagop::SymbolFileSearch::default_build_id_dir());
//
// Thread safety: no hidden state; safe from several threads at once.

#include <cstddef>   // std::byte
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

/// A copy of a vDSO image.
struct VdsoImage {
  std::vector<std::byte> bytes;  ///< the mapping, whole (an ELF shared object)
  std::string build_id;          ///< its GNU build-id, lowercase hex
};

/// This process's vDSO, read from its mapping (the [vdso] line of
/// /proc/self/maps); nullopt, with `problem` saying why, when it has none
/// or the image has no build-id.
std::optional<VdsoImage> this_process_vdso(std::string& problem);

/// Saves `image` in perf's build-id cache at `dir` as perf record does:
/// DIR/[vdso]/ID/vdso, and the link DIR/.build-id/xx/rest -> ../../[vdso]/ID.
/// An image already there is left alone. Returns the image's path; throws
/// tagop::Error naming the path that could not be written.
std::string save_in_build_id_cache(const VdsoImage& image, const std::string& dir);

}  // namespace tagop
