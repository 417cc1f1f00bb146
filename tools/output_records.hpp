#pragma once
// The records that `tagop decode` (one sample, or --input), `tagop cpu`, `tagop
// program` and `tagop events list|search|show` print, declared once: their
// JSON and their schemas (schemas/decode.schema.json, cpu, program,
// decode.input, events.list, events.search, events.show) all come from these declarations
// (record.hpp); tests/contract/record_schemas_test.cpp checks that the
// files are what the declarations make.

#include <array>     // std::array
#include <cstdint>   // std::uint64_t, std::int64_t
#include <string_view>  // std::string_view
#include <optional>  // std::optional
#include <string>    // std::string
#include <variant>   // std::variant
#include <vector>    // std::vector

#include "record.hpp"

namespace tagop::cli {

/// `tagop decode ibs-fetch|ibs-op REG=VALUE ... --json`.
struct DecodedSample {
  BOOST_HANA_DEFINE_STRUCT(DecodedSample,
    (std::string, unit),                    // "ibs_fetch" or "ibs_op"
    (record::Hex, family),
    (record::Hex, model),
    (record::Hex, capabilities),            // CPUID 8000_001B EAX
    (std::string, processor_from),          // where family and model came from
    (record::Entries<record::Hex>, registers),
    // Each field of the registers given, by its AMD name: addresses in hexadecimal.
    (record::Entries<std::variant<std::uint64_t, record::Hex>>, fields),
    (std::vector<std::string>, conditions),  // those that hold
    (record::Entries<std::uint64_t>, events),  // derived events counted, by select value
    (std::vector<std::string>, not_available));
};
inline constexpr record::Contract decoded_sample_contract{
    "tagop.decode/1", "tagop decode",
    "One IBS sample decoded: its registers, fields, conditions and the derived events it counts toward "
    "(tagop decode ibs-fetch|ibs-op REG=VALUE ... --json)."};

/// Samples of each IBS unit.
struct FetchAndOp {
  BOOST_HANA_DEFINE_STRUCT(FetchAndOp,
    (std::uint64_t, fetch),
    (std::uint64_t, op));
};

/// `tagop decode --input FILE --json`: a file of samples, totalled.
struct DecodedSampleFile {
  BOOST_HANA_DEFINE_STRUCT(DecodedSampleFile,
    (FetchAndOp, samples),
    // By select value: a count, the sum of a latency event's measure, or null
    // where the processor's bits (or the samples) cannot say.
    (record::Entries<std::optional<std::uint64_t>>, events));
};
inline constexpr record::Contract decoded_sample_file_contract{
    "tagop.decode.input/1", "tagop decode --input",
    "A file of IBS samples totalled: the samples of each unit and each derived event's count, null where the "
    "processor cannot say (tagop decode --input FILE --json)."};

/// `tagop cpu --json`.
struct HostReport {
  BOOST_HANA_DEFINE_STRUCT(HostReport,
    (std::string, vendor),
    (unsigned, family),
    (unsigned, model),
    (unsigned, stepping),
    (std::string, model_name),
    (std::string, source),                   // "cpuid" or "/proc/cpuinfo"
    (bool, hypervisor),
    (bool, ibs),                             // CPUID 8000_0001 ECX[10]
    (std::optional<record::Hex>, ibs_capabilities),  // CPUID 8000_001B EAX
    (std::vector<std::string>, pmus),        // /sys/bus/event_source/devices
    (std::optional<int>, perf_event_paranoid),
    (std::optional<std::string>, backend),   // null when tagop has no table for this processor
    (std::string, tables),
    (std::vector<std::string>, other_backends),  // whose tables also fit (Zen core counters beside IBS)
    (bool, hardware_sampling),
    (std::vector<std::string>, reasons));
};
inline constexpr record::Contract host_report_contract{
    "tagop.cpu/1", "tagop cpu",
    "This machine's processor, the backend that applies, and why hardware sampling is or is not available "
    "(tagop cpu --json)."};

/// One MSR write of `tagop program`.
struct MsrWriteRecord {
  BOOST_HANA_DEFINE_STRUCT(MsrWriteRecord,
    (record::Hex, msr),
    (std::string, name),                    // as the vendor's manual spells it
    (record::Hex, value),
    (record::Maybe<std::string>, note));    // why this value, when it is not obvious
};

/// One perf_event_attr of `tagop program`: the fields a reader of
/// perf_event_open(2) looks at, by the kernel's names.
struct PerfEventAttrRecord {
  BOOST_HANA_DEFINE_STRUCT(PerfEventAttrRecord,
    (record::Maybe<std::string>, pmu),      // a dynamic PMU ("ibs_op"), whose sysfs type goes in attr.type
    (std::optional<std::int64_t>, type),    // null: that PMU is not on this machine
    (record::Maybe<std::string>, type_from),  // the sysfs file of a PMU's type
    (record::Maybe<std::string>, type_name),  // PERF_TYPE_* for the fixed types
    (record::Hex, config),
    (record::Hex, config1),
    (record::Hex, config2),
    (record::Maybe<std::uint64_t>, sample_freq),    // one of these two, as attr.freq says
    (record::Maybe<std::uint64_t>, sample_period),
    (record::Hex, sample_type),
    (std::string, sample_type_names),       // "IP|TID|..."
    (unsigned, precise_ip),
    (bool, exclude_user),
    (bool, exclude_kernel),
    (bool, exclude_hv),
    (bool, disabled),
    (record::Maybe<std::string>, description));
};

/// `tagop program TARGET ... --json`, and `programming` in `tagop events show --json`.
struct ProgramRecord {
  BOOST_HANA_DEFINE_STRUCT(ProgramRecord,
    (std::vector<MsrWriteRecord>, msr_writes),  // in the order they must be written
    (std::vector<PerfEventAttrRecord>, perf_event_attrs),
    (std::optional<PerfEventAttrRecord>, perf_event_attr),  // the first of perf_event_attrs
    (std::vector<std::string>, notes));          // caveats the user should know
};
inline constexpr record::Contract program_contract{
    "tagop.program/1", "tagop program",
    "A sampling request as the MSR writes and the Linux perf_event_attrs that set it up "
    "(tagop program TARGET ... --json)."};

struct SampleKindNames {
  static constexpr std::array<std::string_view, 2> values{"fetch", "op"};
};

/// One event of tagop's tables: a row of `tagop events list|search --json`,
/// and the start of `tagop events show --json`.
struct EventRow {
  BOOST_HANA_DEFINE_STRUCT(EventRow,
    (std::string, backend),                 // "amd-ibs", "p4", "silvermont", "goldmont"
    (std::string, name),                    // as the vendor spells it
    (std::string, code),                    // the vendor's own selector: "0xF206", "0xC4:0x00"
    (record::Maybe<std::string>, select),   // IBS: the derived event's select value (= code)
    (record::Maybe<std::string>, event),    // Intel: the event select, "0xC4"
    (record::Maybe<std::string>, umask),    // Intel: the unit mask, "0x7E"
    (std::string, abbreviation),
    (record::Choice<SampleKindNames>, kind),
    (std::string, predicate),               // over the condition vocabulary; "" = count only
    (record::Maybe<std::string>, sums),     // the measure a latency event sums
    (std::string, mechanism),
    (bool, precise),                        // gives a precise sample address
    (std::string, unit),                    // what one count is
    (std::string, description));
};

/// `tagop events list --json`.
struct EventsList {
  BOOST_HANA_DEFINE_STRUCT(EventsList, (std::vector<EventRow>, events));
};
inline constexpr record::Contract events_list_contract{
    "tagop.events.list/1", "tagop events list",
    "The events of tagop's tables that pass the filters, every backend's (tagop events list --json)."};

/// A row of `tagop events search --json`: the event and how near the words it is.
struct EventSearchHit {
  BOOST_HANA_DEFINE_STRUCT(EventSearchHit,
    (record::Merged<EventRow>, event),
    (int, score));                          // higher is nearer
};

/// `tagop events search WORDS --json`.
struct EventsSearch {
  BOOST_HANA_DEFINE_STRUCT(EventsSearch,
    (std::string, query),
    (std::vector<EventSearchHit>, events));  // best first
};
inline constexpr record::Contract events_search_contract{
    "tagop.events.search/1", "tagop events search",
    "The events whose names and descriptions are nearest the words, best first (tagop events search WORDS --json)."};

/// A reading of an IBS derived event's definition on some processors.
struct IbsReading {
  BOOST_HANA_DEFINE_STRUCT(IbsReading,
    (std::string, processors),
    (std::string, text));
};

/// Whether an IBS derived event can be counted on the processor given.
struct IbsEventOn {
  BOOST_HANA_DEFINE_STRUCT(IbsEventOn,
    (std::string, processor),
    (std::string, processor_from),          // --family, this host, or assumed
    (std::string, verdict),
    (std::vector<std::string>, decided_by), // the bits that decide it there
    (std::vector<std::string>, why));
};

struct IbsEventDetails {
  BOOST_HANA_DEFINE_STRUCT(IbsEventDetails,
    (std::vector<IbsReading>, readings),
    (record::Maybe<IbsEventOn>, on));       // with --family
};

/// Another table's event of the same spelling.
struct EventRef {
  BOOST_HANA_DEFINE_STRUCT(EventRef,
    (std::string, backend),
    (std::string, name),
    (std::string, code));
};

/// `tagop events show EVENT --json` for an event of tagop's tables.
struct EventShown {
  BOOST_HANA_DEFINE_STRUCT(EventShown,
    (record::Merged<EventRow>, event),
    (record::Maybe<IbsEventDetails>, ibs),  // IBS derived events
    (std::string, encoding),
    (std::string, address),                 // how precise a sample's address is
    (std::string, sample),                  // what one sample means
    (std::string, program_command),         // the equivalent `tagop program ...`
    (record::Maybe<ProgramRecord>, programming),
    (record::Maybe<std::string>, programming_refused),  // instead of programming
    (std::vector<EventRef>, also));
};

/// A umask or modifier of a libpfm4 event.
struct LibpfmAttributeRecord {
  BOOST_HANA_DEFINE_STRUCT(LibpfmAttributeRecord,
    (std::string, name),
    (std::string, kind),                    // "umask", "modifier"
    (record::Hex, code),
    (bool, default_),                       // key "default"
    (bool, precise),
    (std::string, description));
};

struct LibpfmBackendName {
  static constexpr std::array<std::string_view, 1> values{"libpfm4"};
};

/// `tagop events show EVENT --json` for a PMU tagop has no table for: libpfm4's.
struct LibpfmEventShown {
  BOOST_HANA_DEFINE_STRUCT(LibpfmEventShown,
    (record::Choice<LibpfmBackendName>, backend),
    (std::string, pmu),                     // "skl"
    (std::string, pmu_title),               // "Intel Skylake"
    (std::string, name),
    (record::Hex, code),
    (bool, precise),
    (std::string, description),
    (std::string, mechanism),
    (std::vector<LibpfmAttributeRecord>, attributes));
};

/// `tagop events show EVENT --json`: one or the other.
using EventsShow = std::variant<EventShown, LibpfmEventShown>;
inline constexpr record::Contract events_show_contract{
    "tagop.events.show/1", "tagop events show",
    "One event: from tagop's tables (its predicate, encoding, programming) or, for a PMU tagop has no table "
    "for, from libpfm4 (backend \"libpfm4\") (tagop events show EVENT --json)."};

}  // namespace tagop::cli
