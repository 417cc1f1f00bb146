#pragma once
// How a capture says that it was emulated, and by which model: its
// HEADER_CMDLINE is the `tagop emulate --as MODEL ...` command that wrote
// it (perf prints it with `perf report --header`). This is the one place
// that writes and reads that mark.
// Thread-safe: the functions only read their arguments.

#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/perf_data_reader.hpp>  // FileInfo

namespace tagop TAGOP_API {
namespace emulate {

struct Emulation {
  std::string model;    ///< "zen3"
  std::string title;    ///< the model's title, "" for a model this build does not know
  std::string command;  ///< the emulated command, as one line

  /// "emulated (model: zen3, AMD Zen 3 (...))": what every report says.
  std::string label() const;
};

/// The HEADER_CMDLINE words of a capture of `command` emulated as `model`.
std::vector<std::string> emulation_cmdline(const std::string& model, const std::vector<std::string>& command);

/// Whether a capture was written by `tagop emulate`, and by which model;
/// nullopt for a capture of real hardware.
std::optional<Emulation> emulation_of(const perf_data::FileInfo& info);

}  // namespace emulate
}  // namespace tagop
