#pragma once
// Where backends make themselves known. The core never includes a backend;
// backends add themselves here (see backends/registry.cpp) and tools and
// users ask the registry: to look an event up by any spelling, and to
// program it for its backend, without knowing which backend it is.
//
//   const tagop::Registry& r = tagop::Registry::builtin();
//   for (const tagop::EventEntry* e : r.lookup("r01e6"))   // Silvermont's and Goldmont's
//     tagop::Programming p = r.program(*e);                // MSR writes and perf_event_attr
//
// The library's lookup convention (every public find/lookup follows it):
// - A lookup by name or spelling never throws for "not found": it returns
//   a pointer (nullptr when absent) to an entry of a table that outlives
//   the call, std::optional for a value it computes, or a vector (empty
//   when absent) where several can match.
// - Where the caller wants the refusal as an error, a `require_*` beside
//   the lookup throws tagop::Error(ErrorCode::not_found) whose message
//   names the table and what it holds.
// - Opening and parsing (files, captures, predicates) throw tagop::Error
//   with a code (io, damaged, bad_input, ...); they never return null.
//   Report symbol sources (report/tagop/report/symbols.hpp) are the one
//   documented exception: a module without symbols is a warning there.
//
// Thread safety: Registry::builtin() is made once (thread-safe static
// initialisation) and immutable afterwards: lookups and program() are safe
// from any thread. add() is not thread-safe: call it before sharing.

#include <functional>   // std::function
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/cpu.hpp>          // CpuId
#include <tagop/event.hpp>        // EventEntry
#include <tagop/programming.hpp>  // Programming

namespace tagop TAGOP_API {

/// One backend as the registry knows it: its tables and programmer,
/// called without knowing which backend it is.
struct BackendInfo {
  std::string_view name;   ///< "amd-ibs"
  std::string_view title;  ///< "AMD Instruction-Based Sampling"
  Mechanism mechanism;     ///< how its hardware finds the ops it reports
  /// The backend's events, in table order.
  std::function<std::span<const EventEntry>()> events;
  /// Programs one of its events with `options` (the backend's defaults
  /// where they say nothing); `spelled` is what the user wrote (a P4
  /// event's mask bits are kept from it). Throws tagop::Error when the
  /// hardware cannot do it. Empty: no programmer.
  std::function<Programming(const EventEntry&, std::string_view spelled, const ProgramOptions& options)> program{};
  /// The `tagop program ...` command that does the same.
  std::function<std::string(const EventEntry&, std::string_view spelled)> program_command{};
  /// Which of its tables fit this processor, in words; "" when none does.
  std::function<std::string(const CpuId&)> tables_for{};
};

/// The backends compiled in (or added by a tool), and lookups over all
/// their events.
class Registry {
 public:
  /// The process-wide registry, with every built-in backend already added.
  static Registry& builtin();

  /// Adds a backend (while the registry is being set up: not thread-safe).
  void add(BackendInfo backend);
  /// The backends, in the order they were added.
  std::span<const BackendInfo> backends() const { return backends_; }
  /// nullptr when there is no backend of that name.
  const BackendInfo* find(std::string_view name) const;

  /// Every event of every backend, in registry and table order.
  std::vector<const EventEntry*> events() const;

  /// The events `spelling` names, in registry order; several where a
  /// spelling is shared (perf's r01e6 is an event of Silvermont and of
  /// Goldmont). Empty when none. Any case; spellings understood:
  /// - names: the vendor's (BR_INST_RETIRED.ALL_BRANCHES, replay_event),
  ///   IBS abbreviations ("IBS DC miss"), libpfm4's with its PMU
  ///   (slm::BR_INST_RETIRED:ALL_BRANCHES, netburst::replay_event:NBOGUS);
  /// - codes: IBS selects ("0xF206", "F206"), the SDM's "0xC4:0x7E",
  ///   "C4H:7EH";
  /// - perf: raw "r01e6" and "r5301c4" (event = bits 7:0, umask = bits
  ///   15:8, the rest (USR, OS, INT, EN, ...) ignored) and
  ///   "cpu/event=0xc4,umask=0x01/".
  std::vector<const EventEntry*> lookup(std::string_view spelling) const;
  /// The first event of `backend` that `spelling` names, or nullptr.
  const EventEntry* lookup(std::string_view spelling, std::string_view backend) const;
  /// Like lookup(spelling) but throws tagop::Error(not_found) naming the
  /// spelling when nothing matches.
  std::vector<const EventEntry*> require(std::string_view spelling) const;

  /// Programs `event` through its own backend's programmer (no branching on
  /// backend names), with the period, processor, privilege and filters of
  /// `options`. Throws tagop::Error: not_supported when the backend has no
  /// programmer or the hardware cannot do what is asked (an IBS filter of
  /// a PEBS event, L3MissOnly before Zen 4), bad_input for a value out of
  /// range (a period the counter cannot hold).
  Programming program(const EventEntry& event, std::string_view spelled = {},
                      const ProgramOptions& options = {}) const;
  /// The `tagop program ...` command line that does what program() does.
  std::string program_command(const EventEntry& event, std::string_view spelled = {}) const;

 private:
  std::vector<BackendInfo> backends_;
};

/// Adds every backend compiled into the library; defined in backends/.
void register_builtin_backends(Registry& registry);

}  // namespace tagop
