#pragma once
// The JSON-lines record, declared once: its fields, in the order a line
// holds them, and what each means. The line writer and the JSON Schema
// both iterate this declaration (Boost.Hana), so they cannot disagree.

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include <boost/hana/define_struct.hpp>  // BOOST_HANA_DEFINE_STRUCT

#include <tagop/conditions.hpp>  // ConditionSet
#include <tagop/sample.hpp>      // Sample

namespace tagop::profiles::detail {

// The field types: each has its JSON form (sample_line_writer.cpp) and its
// schema (sample_line_schema.cpp).
struct KindName { std::string_view name; };                  // "fetch" or "op"
struct Address { std::uint64_t value = 0; };                 // "0x401234"
struct OptionalAddress { std::optional<std::uint64_t> value; };  // "0x..." or null
struct ConditionNames { ConditionSet set; };                 // ["load", "dc.miss"]
struct MeasureValues { const Sample* sample = nullptr; };    // {"dc.miss_latency": 180}
struct Text { std::string_view text; };  // a string, or null when empty (the writer gets it as JSON: EscapedSymbol)

struct SampleLine {
  BOOST_HANA_DEFINE_STRUCT(SampleLine,
    (KindName, kind),
    (std::uint64_t, time),
    (std::uint32_t, pid),
    (std::uint32_t, tid),
    (std::uint32_t, cpu),
    (Address, ip),
    (bool, ip_exact),
    (OptionalAddress, ip_physical),
    (OptionalAddress, data_linear),
    (OptionalAddress, data_physical),
    (OptionalAddress, branch_target),
    (ConditionNames, conditions),
    (ConditionNames, unknown),
    (MeasureValues, measures),
    (Text, symbol),
    (Text, module));
};

struct EventName { std::string_view json; };  // the event's name, as a JSON string
struct OptionalNumber { std::optional<std::uint32_t> value; };  // a number, or null

/// A line of a capture without IBS: one sample of one of its events.
struct EventLine {
  BOOST_HANA_DEFINE_STRUCT(EventLine,
    (EventName, event),
    (std::uint64_t, time),
    (std::uint32_t, pid),
    (std::uint32_t, tid),
    (OptionalNumber, cpu),
    (Address, ip),
    (std::uint64_t, period),
    (Text, symbol),
    (Text, module));
};

struct FieldDescription {
  std::string_view field, description;
};

/// What each field means, for the schema; the schema generator throws for a
/// field without one, and a test checks that the lists match.
inline constexpr FieldDescription sample_line_descriptions[] = {
    {"kind", "what was sampled: an instruction fetch or an operation"},
    {"time", "the sample's perf timestamp (nanoseconds of the clock perf record used)"},
    {"pid", "process id"},
    {"tid", "thread id"},
    {"cpu", "the CPU the sample was taken on"},
    {"ip", "instruction (or fetch) address"},
    {"ip_exact", "false when the address has known skid"},
    {"ip_physical", "physical fetch address, when the fetch was translated"},
    {"data_linear", "data linear address, when the hardware reported it"},
    {"data_physical", "data physical address, when the hardware reported it"},
    {"branch_target", "branch target, when the hardware reported it"},
    {"conditions", "the conditions of tagop's vocabulary that hold for the sample"},
    {"unknown", "the conditions the mechanism reports that this sample did not observe (neither true nor false)"},
    {"measures", "the measures the hardware reported, by name (units: see tagop's measure table)"},
    {"symbol", "the function holding ip, when known"},
    {"module", "the executable or library holding ip, when known"},
};

inline constexpr FieldDescription event_line_descriptions[] = {
    {"event", "the event sampled, as perf names it (cpu-clock, cycles, ...)"},
    {"time", "the sample's perf timestamp (nanoseconds of the clock perf record used)"},
    {"pid", "process id"},
    {"tid", "thread id"},
    {"cpu", "the CPU the sample was taken on; null when the capture does not say (perf record without -a or -C)"},
    {"ip", "instruction address"},
    {"period", "the sample's period: what it stands for, in the event's units (nanoseconds for cpu-clock)"},
    {"symbol", "the function holding ip, when known"},
    {"module", "the executable or library holding ip, when known"},
};

}  // namespace tagop::profiles::detail
