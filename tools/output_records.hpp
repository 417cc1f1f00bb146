#pragma once
// The records that `tagop decode` (one sample) and `tagop cpu` print,
// declared once: their JSON and their schemas (schemas/decode.schema.json,
// schemas/cpu.schema.json) both come from these declarations (record.hpp);
// tests/contract/record_schemas_test.cpp checks that the files are what
// the declarations make.

#include <cstdint>   // std::uint64_t
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
    (bool, hardware_sampling),
    (std::vector<std::string>, reasons));
};
inline constexpr record::Contract host_report_contract{
    "tagop.cpu/1", "tagop cpu",
    "This machine's processor, the backend that applies, and why hardware sampling is or is not available "
    "(tagop cpu --json)."};

}  // namespace tagop::cli
