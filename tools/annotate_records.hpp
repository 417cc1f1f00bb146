#pragma once
// The record that `tagop annotate --json` prints, declared once: its JSON
// and schemas/annotate.schema.json come from this declaration (record.hpp);
// tests/contract checks the file.

#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "record.hpp"

namespace tagop::cli {

/// A column's value by its id; null where not available (a ratio of no samples).
using ColumnValues = record::Entries<std::optional<double>>;

struct AnnotateColumnRecord {
  BOOST_HANA_DEFINE_STRUCT(AnnotateColumnRecord,
    (std::string, id),      // "0xF206", "dc_miss_rate", "cpu-clock", "samples"
    (std::string, title));
};

struct AnnotatedInstructionRecord {
  BOOST_HANA_DEFINE_STRUCT(AnnotatedInstructionRecord,
    (std::uint64_t, address),              // the ELF address, as objdump prints it
    (std::uint64_t, offset),               // the module's file offset (report --by address)
    (std::string, bytes),                  // hex
    (std::string, text),                   // AT&T syntax
    (std::optional<std::string>, source),  // "file:line"; null without debug lines
    (double, percent),                     // of the function's
    (bool, hot),                           // 5% or more
    (ColumnValues, values));
};

struct AnnotatedLineRecord {
  BOOST_HANA_DEFINE_STRUCT(AnnotatedLineRecord,
    (std::string, source),  // "file:line"
    (std::string, text),    // the line's text; "" when its file is not here
    (double, percent),
    (ColumnValues, values));
};

struct AnnotateRecord {
  BOOST_HANA_DEFINE_STRUCT(AnnotateRecord,
    (std::string, function),
    (std::string, symbol),     // as the symbol table has it; "" for a range
    (std::string, module),     // as the capture names it
    (std::string, build_id),   // "" when not recorded
    (std::string, file),       // the file read
    (std::uint64_t, start),    // file offsets, end excluded
    (std::uint64_t, end),
    (std::uint64_t, address),  // the ELF address of start
    (bool, ibs),
    (bool, exact),             // samples are of the instruction they name (no skid)
    (std::string, exactness),
    (double, overhead),        // the function's share of the capture, percent
    (std::vector<AnnotateColumnRecord>, columns),
    (ColumnValues, values),    // the function's
    (std::vector<AnnotatedInstructionRecord>, instructions),
    (std::vector<AnnotatedLineRecord>, lines),  // in the order instructions first name them
    (std::vector<std::string>, warnings));
};
inline constexpr record::Contract annotate_contract{
    "tagop.annotate/1", "tagop annotate",
    "One function of a capture, instruction by instruction, with its source lines and each column's value (tagop "
    "annotate FILE SYMBOL --json)."};

}  // namespace tagop::cli
