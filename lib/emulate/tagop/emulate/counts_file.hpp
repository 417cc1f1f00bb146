#pragma once
// The measured numbers of an emulated run, as the JSON that `tagop emulate
// --counts FILE` (or --json) writes holds them: per model, the count of ops
// and fetches of each condition signature and of each event of its
// vendor's table. `tagop compare --counts FILE` reads it back to put one
// program's numbers beside each vendor's events.
// Thread-safe: the functions only read their arguments (and the file).

#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/emulate/emulator.hpp>  // EmulateResult
#include <tagop/predicate.hpp>         // Predicate

namespace tagop TAGOP_API {
namespace emulate {

/// The document's "format", so that a reader knows what it holds. The
/// document is written by the command (tools/emulate_records.hpp declares
/// it); read_counts_file reads it back.
inline constexpr const char* counts_format = "tagop-emulate-counts/1";

struct CountsFile {
  struct Signature {
    SampleKind kind = SampleKind::op;
    ConditionSet conditions;
    std::uint64_t count = 0;
  };
  struct Event {
    std::string name, code, predicate;
    SampleKind kind = SampleKind::op;
    std::optional<std::uint64_t> count;  ///< nullopt: not modelled
  };
  struct Model {
    std::string model, title, backend;
    std::uint64_t ops = 0, fetches = 0;
    ConditionSet modelled_op, modelled_fetch;
    std::vector<Signature> signatures;
    std::vector<Event> events;

    /// Ops (or fetches) that meet `p`, which names its kind (`op & ...`);
    /// nullopt when the model does not decide every condition it uses.
    std::optional<std::uint64_t> count(const Predicate& p) const;
  };
  std::string command;
  std::vector<Model> models;
};

/// One model's counts as the file holds them, straight from a run.
CountsFile::Model counts_of(const ModelResult& result);

/// Reads a counts file. Throws tagop::Error naming the file and what in it
/// is wrong.
CountsFile read_counts_file(const std::string& path);

}  // namespace emulate
}  // namespace tagop
