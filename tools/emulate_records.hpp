#pragma once
// The record that `tagop emulate --json` prints and `--counts FILE` writes
// (without "schema"), declared once: its JSON and schemas/emulate.schema.json
// come from this declaration (record.hpp); tests/contract checks the file.
// `tagop compare --counts FILE` reads it back (emulate::read_counts_file).

#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/emulate/counts_file.hpp>  // counts_format
#include <tagop/emulate/emulator.hpp>     // EmulateResult

#include "output_records.hpp"  // SampleKindNames
#include "record.hpp"

namespace tagop::cli {

struct CountsFormatName {
  static constexpr std::string_view value = emulate::counts_format;
};
struct EmulatedRun {
  static constexpr bool value = true;
};

/// One condition signature's ops (or fetches), and the measures they sum.
struct SignatureRecord {
  BOOST_HANA_DEFINE_STRUCT(SignatureRecord,
    (record::Choice<SampleKindNames>, kind),
    (std::vector<std::string>, conditions),     // those that hold
    (std::uint64_t, count),
    (record::Entries<std::uint64_t>, sums));    // by measure, those not 0
};

/// An event of the model's vendor, counted over the model's ops.
struct EmulatedEventRecord {
  BOOST_HANA_DEFINE_STRUCT(EmulatedEventRecord,
    (std::string, name),
    (std::string, code),
    (std::string, predicate),
    (record::Choice<SampleKindNames>, kind),
    (std::optional<std::uint64_t>, count),      // null: not modelled
    (record::Maybe<std::optional<std::uint64_t>>, total),  // a latency event: its measure's sum
    (record::Maybe<std::string>, sums));        // ... and the measure's name
};

struct EmulatedSamples {
  BOOST_HANA_DEFINE_STRUCT(EmulatedSamples,
    (std::uint64_t, ibs_fetch),
    (std::uint64_t, ibs_op),
    (std::uint64_t, pebs));
};

/// The conditions the model decides, of each kind.
struct ModelledConditions {
  BOOST_HANA_DEFINE_STRUCT(ModelledConditions,
    (std::vector<std::string>, op),
    (std::vector<std::string>, fetch));
};

struct EmulatedModelRecord {
  BOOST_HANA_DEFINE_STRUCT(EmulatedModelRecord,
    (std::string, model),                       // "zen3"
    (std::string, title),
    (std::string, backend),
    (std::optional<std::string>, capture),      // null: the model writes none (p4)
    (std::uint64_t, ops),
    (std::uint64_t, fetches),
    (EmulatedSamples, samples),                 // written to the capture
    (std::vector<std::string>, pebs_events),
    (ModelledConditions, modelled),
    (std::vector<SignatureRecord>, signatures),  // op signatures, then fetch
    (std::vector<EmulatedEventRecord>, events));  // every event of the backend
};

/// One model's counts of one process, in Cachegrind's words (the event
/// names of its cachegrind.out files).
struct EmulatedCoreCounts {
  BOOST_HANA_DEFINE_STRUCT(EmulatedCoreCounts,
    (std::string, model),                       // "zen3"
    (std::uint64_t, Ir),                        // instructions (ops)
    (std::uint64_t, I1mr),                      // instructions whose fetch missed the L1I
    (std::uint64_t, ILmr),                      // ... and the last level (L3, else L2)
    (std::uint64_t, Dr),                        // data reads (a modify is one read)
    (std::uint64_t, D1mr),
    (std::uint64_t, DLmr),
    (std::uint64_t, Dw),                        // data writes
    (std::uint64_t, D1mw),
    (std::uint64_t, DLmw),
    (std::uint64_t, Bc),                        // conditional branches
    (std::uint64_t, Bcm),                       // ... mispredicted
    (std::uint64_t, Bi),                        // indirect jumps and calls (not returns)
    (std::uint64_t, Bim));
};

struct EmulatedThreadRecord {
  BOOST_HANA_DEFINE_STRUCT(EmulatedThreadRecord,
    (std::uint32_t, tid),
    (std::uint64_t, instructions),
    (std::vector<EmulatedCoreCounts>, models));  // what each model's core counted while the thread ran
};

/// One program a process of the family ran (EmulateResult::processes).
struct EmulatedProcessRecord {
  BOOST_HANA_DEFINE_STRUCT(EmulatedProcessRecord,
    (std::uint32_t, pid),
    (std::uint32_t, ppid),                      // 0: not told
    (std::string, program),
    (bool, forked),                             // begun by a fork, else by exec or as the command
    (std::uint64_t, instructions),              // a forked child's go on from its parent's
    (std::uint64_t, inherited),                 // of them, the parent's before the fork
    (std::vector<EmulatedThreadRecord>, threads),
    (std::vector<EmulatedCoreCounts>, models));  // each model's counts of the process
};

/// `tagop emulate --json`, and the counts file.
struct EmulateRecord {
  BOOST_HANA_DEFINE_STRUCT(EmulateRecord,
    (record::Const<CountsFormatName>, format),  // what a reader of the file checks
    (record::Const<EmulatedRun>, emulated),     // the numbers are a model's
    (std::string, engine),                      // what traced the program
    (std::string, command),
    (int, exit_status),                         // the program's
    (std::uint64_t, instructions),
    (std::uint64_t, distinct_instructions),
    (std::uint64_t, undecoded_instructions),    // whose bytes were not found
    (std::vector<EmulatedModelRecord>, models),
    (std::vector<EmulatedProcessRecord>, processes));  // in the order they started
};
inline constexpr record::Contract emulate_contract{
    "tagop.emulate/1", "tagop emulate",
    "A program run under Valgrind and each modelled core's counts and samples (tagop emulate --as MODEL --json -- "
    "COMMAND). The same document, without \"schema\", is what --counts writes."};

}  // namespace tagop::cli
