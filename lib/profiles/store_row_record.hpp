#pragma once
// The store's row, declared once: one sampled operation as a ClickHouse row
// (tagop ingest). Its columns, in the order an INSERT sends them, and what
// each means. The DDL (CREATE TABLE), the row writer and the column list
// iterate this declaration (Boost.Hana), so they cannot disagree; it sits
// beside the JSON-lines record (sample_line_record.hpp), the same sample's
// other declared form. A change of a column's name, type or order is a new
// store_schema_version (the table's name carries it); a column added last
// is added to an older table of the version by ingest (ALTER TABLE ... ADD
// COLUMN; its older rows read its default).

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <boost/hana/define_struct.hpp>  // BOOST_HANA_DEFINE_STRUCT

#include <tagop/call_chain.hpp>  // ChainFrame
#include <tagop/conditions.hpp>  // ConditionSet
#include <tagop/sample.hpp>      // Sample

namespace tagop::profiles::detail {

// The column types: each has its ClickHouse type(s) and its TabSeparated
// form (store_schema.cpp). A ConditionSet is two UInt64 columns, <name>_lo
// and <name>_hi (bits 0-63 and 64-127 of the vocabulary's order), so a
// predicate is a few bitAnd()s; StoreMeasures is one UInt32 column per
// measure of measure_table.
struct StoreText { std::string_view text; };           // String
struct StoreKind { SampleKind kind = SampleKind::op; };  // Enum8('fetch' = 0, 'op' = 1)
struct StoreFlag { bool value = false; };              // UInt8
struct StoreMeasures { const Sample* sample = nullptr; };  // m_<measure> UInt32 each
struct StoreChain { std::span<const ChainFrame> frames; };  // Array(UInt64): addresses, the sampled one first

struct StoreRow {
  BOOST_HANA_DEFINE_STRUCT(StoreRow,
    (std::uint64_t, capture),
    (StoreText, host),
    (StoreText, vendor),
    (std::uint32_t, family),
    (std::uint32_t, model),
    (StoreText, backend),
    (StoreText, event),
    (std::uint64_t, period),
    (StoreKind, kind),
    (std::uint64_t, time),
    (std::uint32_t, pid),
    (std::uint32_t, tid),
    (std::uint32_t, cpu),
    (std::uint64_t, ip),
    (StoreFlag, ip_exact),
    (std::uint64_t, data_linear),
    (std::uint64_t, data_physical),
    (ConditionSet, conditions),
    (ConditionSet, observed),
    (std::uint32_t, measured),
    (StoreMeasures, m),
    (StoreText, module),
    (StoreText, function),
    (StoreText, line),
    (StoreText, data_object),
    (StoreChain, chain),
    (StoreText, comm),
    (std::uint64_t, offset),
    (StoreText, thread_comm),
    (std::uint32_t, data_access),
    (std::uint64_t, wall_time));
};

// The frames' table: each distinct frame of a capture's call chains (and
// each sampled address), named once, as a local report's rows by function
// name a chain's frames (rows.cpp): the function, module+0xoffset where no
// symbol holds the address, [unknown]+0xaddress (or [kernel]+0x...) where no
// mapping does. A report by call chain joins the chains' addresses to these
// names (store_chains.cpp). A change of its columns is a new
// store_schema_version, as the row's; a column added last is added to an
// older table by ingest, as the row's.
struct StoreFrameRow {
  BOOST_HANA_DEFINE_STRUCT(StoreFrameRow,
    (std::uint64_t, capture),
    (std::uint32_t, pid),
    (std::uint64_t, address),
    (StoreText, module),
    (StoreText, function),
    (StoreText, symbol));
};

struct StoreFieldDescription {
  std::string_view field, description;
};

/// What each field means: the table's column comments come from here (a
/// test checks that the lists match).
inline constexpr StoreFieldDescription store_row_descriptions[] = {
    {"capture", "the capture's identity: a hash of its file's size and content (ingest refuses a capture twice)"},
    {"host", "the machine the capture was taken on (perf's hostname header, or --host)"},
    {"vendor", "the processor's vendor (AuthenticAMD, GenuineIntel, ARM ...)"},
    {"family", "the processor's family"},
    {"model", "the processor's model"},
    {"backend", "the tagop backend that decoded the samples (amd-ibs ...)"},
    {"event", "the event sampled, as perf names it (ibs_op, cpu-clock, cpu/mem-loads,ldlat=30/P ...)"},
    {"period", "what the sample stands for, in the event's units (its period; 0 where the capture does not say)"},
    {"kind", "what was sampled: an instruction fetch or an operation"},
    {"time", "the sample's perf timestamp (nanoseconds of the clock perf record used)"},
    {"pid", "process id"},
    {"tid", "thread id"},
    {"cpu", "the CPU the sample was taken on"},
    {"ip", "instruction (or fetch) address"},
    {"ip_exact", "0 when the address has known skid"},
    {"data_linear", "data linear address, when dc.lin_addr_valid (else 0)"},
    {"data_physical", "data physical address, when dc.phys_addr_valid (else 0)"},
    {"conditions", "the conditions that hold, as bits in the vocabulary's order (_lo: 0-63, _hi: 64-127)"},
    {"observed", "the conditions the sample observed, true or false, as bits (a condition outside is unknown)"},
    {"measured", "bit i: measure i of the measure table was reported"},
    {"m", "the measures, one column each (m_<name>, dots as underscores); 0 where not measured"},
    {"module", "the executable or library holding ip, when known"},
    {"function", "the function holding ip as report --by function names it: its symbol, module+0xoffset where no "
                 "symbol holds it, [unknown]+0xip ([kernel]+0x...) where no mapping does (\"\" in rows of tagop 0.8.1 "
                 "and before)"},
    {"line", "the source line of ip as report --by line names it (file:line from DWARF; module+0xoffset without)"},
    {"data_object", "the data object of the data address as report --by data names it (a symbol of .data/.bss, "
                    "[heap], [stack], module+0xoffset; [no data address] without one)"},
    {"chain", "the call chain's addresses, the interrupted ip first, then the callers (empty without perf record -g)"},
    {"comm", "the process's name at the sample's time (its COMM), as report --by process names it; \"\" where perf "
             "recorded none, and in rows of tagop 0.8.1 and before"},
    {"offset", "where ip is in its module (the file offset), as report --by address places it (module+0xoffset); ip "
               "where no mapping holds it; 0 in rows of tagop 0.8 (captures.tagop_version '')"},
    {"thread_comm", "the thread's own name at the sample's time (the last COMM of its tid), as report --by thread "
                    "names it (tid:name, else its process's); \"\" where it has none, and in rows of tagop 0.8"},
    {"data_access", "the data access as perf c2c counts it, bits: 1 load, 2 store, 4 L1 miss, 8 HITM, 16 remote "
                    "(from perf mem's DATA_SRC or IBS's decode); 0 in rows of tagop 0.9 and before"},
    {"wall_time", "the sample's time of day, ns since the epoch: its perf time placed by perf's clock data (perf "
                  "record -k) or by the file's time as its last sample's (captures.wall_clock says which); 0 where "
                  "neither is known, and in rows of tagop 0.9 and before"},
};

/// What each column of the frames' table means.
inline constexpr StoreFieldDescription store_frame_descriptions[] = {
    {"capture", "the capture's identity (as the samples' capture column)"},
    {"pid", "the process whose address it is"},
    {"address", "a frame's address: a sampled ip, or a call chain's return address"},
    {"module", "the executable or library holding the address, \"\" where no mapping does"},
    {"function", "the frame as a local report's row by function names it: the function, module+0xoffset where no "
                 "symbol holds it, [unknown]+0xaddress ([kernel]+0x...) where no mapping does"},
    {"symbol", "the symbol of the function holding the address, not demangled (report --no-demangle and "
               "--signatures name functions by it, the samples' by their ip's frame); \"\" where none does, and in "
               "rows of tagop 0.10 and before"},
};

}  // namespace tagop::profiles::detail
