// The store's columns, DDL and rows, from the row's declaration
// (store_row_record.hpp), and the predicates as SQL over those columns.

#include <tagop/profiles/store.hpp>

#include <algorithm>  // std::replace
#include <bit>        // std::endian
#include <cstring>    // std::memcpy
#include <cstdio>     // std::FILE
#include <memory>     // std::unique_ptr

#include <boost/hana/accessors.hpp>  // hana::accessors
#include <boost/hana/for_each.hpp>   // hana::for_each
#include <boost/hana/string.hpp>     // hana::to<char const*>
#include <fmt/format.h>              // fmt::format
#include <fmt/ranges.h>              // fmt::join

#include <tagop/engine.hpp>    // required_kinds
#include <tagop/error.hpp>     // tagop::Error
#include <tagop/measures.hpp>  // measure_table

#include "store_row_record.hpp"

namespace tagop::profiles {

namespace {

namespace hana = boost::hana;
using namespace detail;

std::string_view description_of(std::span<const StoreFieldDescription> descriptions, std::string_view field) {
  for (const StoreFieldDescription& d : descriptions)
    if (d.field == field) return d.description;
  throw Error(fmt::format("store row field '{}' has no description (store_row_record.hpp)", field));
}

// The columns of each field type.
void columns_of(const std::uint64_t*, std::string_view name, std::string_view what, std::vector<StoreColumn>& out) {
  out.push_back({std::string(name), "UInt64", std::string(what)});
}
void columns_of(const std::uint32_t*, std::string_view name, std::string_view what, std::vector<StoreColumn>& out) {
  out.push_back({std::string(name), "UInt32", std::string(what)});
}
void columns_of(const StoreText*, std::string_view name, std::string_view what, std::vector<StoreColumn>& out) {
  out.push_back({std::string(name), "String", std::string(what)});
}
void columns_of(const StoreKind*, std::string_view name, std::string_view what, std::vector<StoreColumn>& out) {
  out.push_back({std::string(name), "Enum8('fetch' = 0, 'op' = 1)", std::string(what)});
}
void columns_of(const StoreFlag*, std::string_view name, std::string_view what, std::vector<StoreColumn>& out) {
  out.push_back({std::string(name), "UInt8", std::string(what)});
}
void columns_of(const ConditionSet*, std::string_view name, std::string_view what, std::vector<StoreColumn>& out) {
  out.push_back({fmt::format("{}_lo", name), "UInt64", fmt::format("{} (bits 0-63)", what)});
  out.push_back({fmt::format("{}_hi", name), "UInt64", fmt::format("{} (bits 64-127)", what)});
}
void columns_of(const StoreMeasures*, std::string_view, std::string_view, std::vector<StoreColumn>& out) {
  for (std::size_t m = 0; m < measure_count; ++m)
    out.push_back({measure_column(Measure{static_cast<std::uint8_t>(m)}), "UInt32",
                   fmt::format("{} ({}); 0 where not measured", measure_table[m].description, measure_table[m].unit)});
}
void columns_of(const StoreChain*, std::string_view name, std::string_view what, std::vector<StoreColumn>& out) {
  out.push_back({std::string(name), "Array(UInt64)", std::string(what)});
}

// TabSeparated values: strings escaped as the format says (backslash, tab,
// newline), each value followed by a tab, the row's last by a newline.
void append_escaped(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\0': out += "\\0"; break;
      default: out += c;
    }
  }
}
void append_number(std::string& out, std::uint64_t v) {
  char buffer[24];
  char* p = buffer + sizeof buffer;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  out.append(p, buffer + sizeof buffer);
}
void append_value(std::string& out, std::uint64_t v) { append_number(out, v); }
void append_value(std::string& out, std::uint32_t v) { append_number(out, v); }
void append_value(std::string& out, const StoreText& v) { append_escaped(out, v.text); }
void append_value(std::string& out, const StoreKind& v) { out += v.kind == SampleKind::fetch ? "fetch" : "op"; }
void append_value(std::string& out, const StoreFlag& v) { out += v.value ? '1' : '0'; }
void append_value(std::string& out, const ConditionSet& v) {
  append_number(out, v.words[0]);
  out += '\t';
  append_number(out, v.words[1]);
}
void append_value(std::string& out, const StoreMeasures& v) {
  for (std::size_t m = 0; m < measure_count; ++m) {
    if (m) out += '\t';
    append_number(out, v.sample->has_measure(Measure{static_cast<std::uint8_t>(m)}) ? v.sample->measures[m] : 0);
  }
}
void append_value(std::string& out, const StoreChain& v) {
  out += '[';
  for (std::size_t i = 0; i < v.frames.size(); ++i) {
    if (i) out += ',';
    append_number(out, v.frames[i].address);
  }
  out += ']';
}

// Native: a block's columns one after the other, each its values in
// their binary form (little-endian numbers, a String as its varint length
// and bytes, an Enum8 as its byte, an Array as its rows' cumulative end
// offsets, UInt64 each, then all their elements). The server reads it
// without parsing: the cheapest format to insert (docs/speed-log.md).
}  // namespace

// Not in the anonymous namespace: StoreBlockWriter::Columns, a class of the
// header's, holds these.
struct NativeColumn {
  std::string data, elements;  // elements: an Array's nested values
};

namespace {

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>(v | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
template <typename T>
void put_raw(std::string& out, T v) {
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);  // x86 and Arm64 Linux: little-endian, as Native is
  out.append(bytes, sizeof v);
}
void put_text(std::string& out, std::string_view text) {
  put_varint(out, text.size());
  out.append(text);
}
// Each puts its field's values into its column(s), and moves past them.
void put_value(NativeColumn*& c, std::uint64_t v) { put_raw((c++)->data, v); }
void put_value(NativeColumn*& c, std::uint32_t v) { put_raw((c++)->data, v); }
void put_value(NativeColumn*& c, const StoreText& v) { put_text((c++)->data, v.text); }
void put_value(NativeColumn*& c, const StoreKind& v) { (c++)->data += static_cast<char>(v.kind == SampleKind::fetch ? 0 : 1); }
void put_value(NativeColumn*& c, const StoreFlag& v) { (c++)->data += static_cast<char>(v.value ? 1 : 0); }
void put_value(NativeColumn*& c, const ConditionSet& v) {
  put_raw((c++)->data, v.words[0]);
  put_raw((c++)->data, v.words[1]);
}
void put_value(NativeColumn*& c, const StoreMeasures& v) {
  for (std::size_t m = 0; m < measure_count; ++m)
    put_raw((c++)->data, v.sample->has_measure(Measure{static_cast<std::uint8_t>(m)}) ? v.sample->measures[m] : 0u);
}
void put_value(NativeColumn*& c, const StoreChain& v) {
  for (const ChainFrame& f : v.frames) put_raw(c->elements, f.address);
  put_raw(c->data, static_cast<std::uint64_t>(c->elements.size() / sizeof(std::uint64_t)));
  ++c;
}

std::string column_list_ddl(const std::vector<StoreColumn>& columns = store_columns()) {
  std::string out;
  for (const StoreColumn& c : columns) {
    if (!out.empty()) out += ",\n";
    std::string comment;
    for (char ch : c.description) {
      if (ch == '\'' || ch == '\\') comment += '\\';
      comment += ch;
    }
    out += fmt::format("  {} {} COMMENT '{}'", c.name, c.type, comment);
  }
  return out;
}

// --- predicates -------------------------------------------------------

// `bitAnd(column, mask) = mask` and friends over the two words of a set.
std::string contains_all(std::string_view column, const ConditionSet& set) {
  std::vector<std::string> parts;
  for (int w = 0; w < 2; ++w)
    if (set.words[w])
      parts.push_back(fmt::format("bitAnd({}_{}, {}) = {}", column, w ? "hi" : "lo", set.words[w], set.words[w]));
  return fmt::format("{}", fmt::join(parts, " AND "));
}
std::string intersects_none(std::string_view column, const ConditionSet& set) {
  std::vector<std::string> parts;
  for (int w = 0; w < 2; ++w)
    if (set.words[w]) parts.push_back(fmt::format("bitAnd({}_{}, {}) = 0", column, w ? "hi" : "lo", set.words[w]));
  return fmt::format("{}", fmt::join(parts, " AND "));
}
// Some condition of `set` is observed false (or, `truth` true: observed true).
std::string observed_with(const ConditionSet& set, bool truth) {
  std::vector<std::string> parts;
  for (int w = 0; w < 2; ++w) {
    if (!set.words[w]) continue;
    const char* word = w ? "hi" : "lo";
    parts.push_back(truth ? fmt::format("bitAnd(bitAnd(observed_{0}, conditions_{0}), {1}) != 0", word, set.words[w])
                          : fmt::format("bitAnd(bitAnd(observed_{0}, bitNot(conditions_{0})), {1}) != 0", word,
                                        set.words[w]));
  }
  return fmt::format("{}", fmt::join(parts, " OR "));
}

std::string all_of(const std::vector<std::string>& parts) {
  std::vector<std::string> kept;
  for (const std::string& p : parts)
    if (!p.empty() && p != "1") kept.push_back(p);
  if (kept.empty()) return "1";
  if (kept.size() == 1) return kept[0];
  std::vector<std::string> wrapped;
  for (const std::string& p : kept) wrapped.push_back(fmt::format("({})", p));
  return fmt::format("{}", fmt::join(wrapped, " AND "));
}
std::string any_of(const std::vector<std::string>& parts) {
  if (parts.empty()) return "0";
  for (const std::string& p : parts)
    if (p == "1") return "1";
  if (parts.size() == 1) return parts[0];
  std::vector<std::string> wrapped;
  for (const std::string& p : parts) wrapped.push_back(fmt::format("({})", p));
  // Parenthesised whole: `capture = 1 AND <this>` must not bind to its first term.
  return fmt::format("({})", fmt::join(wrapped, " OR "));
}

// A term decides yes: it observed every condition it names, its required
// ones hold and its forbidden ones do not (engine.cpp decide()).
std::string term_yes(const Term& t) {
  return all_of({contains_all("observed", t.require | t.forbid), contains_all("conditions", t.require),
                 intersects_none("conditions", t.forbid)});
}
// A term fails: a required condition observed false or a forbidden one observed true.
std::string term_fails(const Term& t) {
  std::vector<std::string> parts;
  if (!t.require.empty()) parts.push_back(observed_with(t.require, false));
  if (!t.forbid.empty()) parts.push_back(observed_with(t.forbid, true));
  return any_of(parts);
}

}  // namespace

std::string store_table_name() { return fmt::format("tagop_samples_v{}", store_schema_version); }
std::string store_captures_table_name() { return fmt::format("tagop_captures_v{}", store_schema_version); }

std::string measure_column(Measure m) {
  std::string name = fmt::format("m_{}", m.name());
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

namespace {

// The columns of a declared row (StoreRow, StoreFrameRow), in its order.
template <typename Row>
std::vector<StoreColumn> columns_of_row(std::span<const StoreFieldDescription> descriptions) {
  std::vector<StoreColumn> out;
  hana::for_each(hana::accessors<Row>(), [&](auto field) {
    using Type = std::decay_t<decltype(hana::second(field)(std::declval<Row&>()))>;
    const char* name = hana::to<const char*>(hana::first(field));
    columns_of(static_cast<const Type*>(nullptr), name, description_of(descriptions, name), out);
  });
  return out;
}

// A declared row as a TabSeparated line.
template <typename Row>
void append_line(const Row& row, std::string& out) {
  bool first = true;
  hana::for_each(hana::accessors<Row>(), [&](auto field) {
    if (!first) out += '\t';
    first = false;
    append_value(out, hana::second(field)(row));
  });
  out += '\n';
}

}  // namespace

std::vector<StoreColumn> store_columns() { return columns_of_row<StoreRow>(store_row_descriptions); }

std::string store_frames_table_name() { return fmt::format("tagop_frames_v{}", store_schema_version); }

std::vector<StoreColumn> store_frame_columns() { return columns_of_row<StoreFrameRow>(store_frame_descriptions); }

std::string store_create_frames_table(std::string_view table) {
  return fmt::format("CREATE TABLE IF NOT EXISTS {} (\n{}\n) ENGINE = MergeTree() ORDER BY (capture, pid, address)\n"
                     "-- tagop store schema {}",
                     table, column_list_ddl(store_frame_columns()), store_schema_version);
}

void append_frame_row(const StoreFrame& frame, std::string& out) {
  append_line(StoreFrameRow{frame.capture, frame.pid, frame.address, {frame.module}, {frame.function}, {frame.symbol}}, out);
}

std::string store_create_table(std::string_view table) {
  return fmt::format("CREATE TABLE IF NOT EXISTS {} (\n{}\n) ENGINE = MergeTree() ORDER BY (host, capture, time)\n"
                     "-- tagop store schema {}",
                     table, column_list_ddl(), store_schema_version);
}

std::string store_create_distributed_table(std::string_view table, std::string_view cluster,
                                           std::string_view database, std::string_view local_table) {
  return fmt::format("CREATE TABLE IF NOT EXISTS {} (\n{}\n) ENGINE = Distributed({}, {}, {}, capture)", table,
                     column_list_ddl(), cluster, database, local_table);
}

std::vector<StoreColumn> store_captures_columns() {
  std::vector<StoreColumn> out{
      {"capture", "UInt64", "the capture's identity (the samples' capture column)"},
      {"host", "String", "the machine it was taken on"},
      {"file", "String", "the file ingested"},
      {"rows", "UInt64", "the rows (samples) ingested"},
      {"ingested", "DateTime", "when its ingest finished"},
  };
  for (const char* unit : {"fetch", "op"}) {
    out.push_back({fmt::format("{}_period_requested", unit), "UInt64",
                   "IBS: the unit's event's attr.sample_period (0: sampled by frequency)"});
    for (const char* what : {"samples", "sum", "min", "max"})
      out.push_back({fmt::format("{}_period_{}", unit, what), "UInt64",
                     fmt::format("IBS: the {} of the unit's samples' MaxCnt x 16", what == std::string_view("samples") ? "count" : what)});
  }
  out.push_back({"op_counts_ops", "UInt8", "IBS: 1 when the op samples' IbsOpCntCtl counted dispatched ops (else cycles)"});
  for (const char* unit : {"fetch", "op"}) {
    out.push_back({fmt::format("{}_filter_population", unit), "String",
                   "IBS: a predicate every sample of the unit meets under its sampling filter (L3MissOnly, ldlat); '' "
                   "without one"});
    out.push_back({fmt::format("{}_filter_load_latency", unit), "UInt32", "IBS: the unit's ldlat filter, cycles; 0 without"});
  }
  out.push_back({"tagop_version", "String",
                 "the tagop that ingested it (0.9.0 ...); '' for tagop 0.8, whose rows have no offset nor thread_comm"});
  // What tagop diff --source matches events by, as perf diff (and the
  // local diff) does: their attrs' type and config, whatever their names.
  out.push_back({"event_names", "Array(String)",
                 "the capture's events as the samples' event column names them (empty: ingested before tagop 0.10)"});
  out.push_back({"event_types", "Array(UInt32)", "each event's perf_event_attr.type, in event_names' order"});
  out.push_back({"event_configs", "Array(UInt64)", "each event's perf_event_attr.config, in event_names' order"});
  out.push_back({"wall_clock", "String",
                 "how its samples' wall_time was found: 'perf clock data' (perf record -k), 'file time' (the file's "
                 "modification time as its last sample's, perf report's 'captured on'), '' not known"});
  out.push_back({"damage", "String",
                 "what its reading met, as report --strict says it (records skipped, the file truncated ...); '' "
                 "intact, and for captures ingested before tagop 0.11 (captures.tagop_version)"});
  return out;
}

std::string store_create_captures_table(std::string_view table) {
  std::string columns;
  for (const StoreColumn& c : store_captures_columns()) columns += fmt::format("{}{} {}", columns.empty() ? "" : ", ", c.name, c.type);
  return fmt::format("CREATE TABLE IF NOT EXISTS {} ({}) ENGINE = MergeTree() ORDER BY (host, capture)", table, columns);
}

std::string predicate_sql(const Predicate& predicate) {
  std::vector<std::string> terms;
  for (const Term& t : predicate.terms()) terms.push_back(term_yes(t));
  return any_of(terms);
}

QuerySql query_sql(const Query& query) {
  QuerySql out;
  const Predicate& p = query.predicate;
  out.kind = all_of({contains_all("conditions", required_kinds(p))});
  out.yes = predicate_sql(p);
  std::vector<std::string> fails;
  for (const Term& t : p.terms()) fails.push_back(term_fails(t));
  out.no = fails.empty() ? "1" : all_of(fails);
  if (p.terms().empty()) out.no = "1";
  for (const Term& t : p.terms())
    if (term_fails(t) == "0") out.no = "0";  // a term that cannot fail: never no
  const std::string measured =
      query.sums ? fmt::format("bitAnd(measured, {}) != 0", std::uint64_t{1} << query.sums->index) : "1";
  out.match = all_of({out.kind, out.yes, measured});
  const std::string neither = fmt::format("NOT ({}) AND NOT ({})", out.yes, out.no);
  out.undecided = all_of({out.kind, query.sums ? fmt::format("({}) OR (({}) AND NOT ({}))", neither, out.yes, measured)
                                               : neither});
  // Decidable together: some term's conditions are all observed by some
  // row of the kind (engine.hpp ObservedTogether), per word.
  std::vector<std::string> decidable;
  for (const Term& t : p.terms()) {
    const ConditionSet named = t.require | t.forbid;
    std::vector<std::string> words;
    for (int w = 0; w < 2; ++w)
      if (named.words[w])
        words.push_back(fmt::format("bitAnd(groupBitOrIf(observed_{0}, {1}), {2}) = {2}", w ? "hi" : "lo", out.kind,
                                    named.words[w]));
    decidable.push_back(all_of(words));
  }
  const std::string together = p.terms().empty() ? "1" : any_of(decidable);
  out.count = fmt::format("countIf({})", out.match);
  out.total = query.sums ? fmt::format("sumIf({}, {})", measure_column(*query.sums), out.match) : "0";
  out.undecided_count = together == "1" ? fmt::format("countIf({})", out.undecided)
                                        : fmt::format("if({}, countIf({}), countIf({}))", together, out.undecided,
                                                      out.kind);
  return out;
}

std::uint64_t capture_identity(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) throw Error(fmt::format("{}: cannot open it to compute its identity", path));
  // FNV-1a's idea over 8-byte words with a multiply-xorshift mix: fast
  // enough to read a capture at the disk's speed, and any byte changes it.
  std::uint64_t h = 0x9E3779B97F4A7C15ull, size = 0;
  std::vector<unsigned char> buffer(1 << 20);
  for (;;) {
    const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), file.get());
    if (n == 0) break;
    size += n;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      // The word's bytes little-endian, as the loop that built it byte by
      // byte read them (the same identities); one load where the bytes
      // were 8 (a fifth of ingest's instructions went here).
      std::uint64_t w = 0;
      std::memcpy(&w, buffer.data() + i, 8);
      if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
      h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 29;
    }
    for (; i < n; ++i) h = (h ^ buffer[i]) * 0x100000001B3ull;
  }
  if (std::ferror(file.get())) throw Error(fmt::format("{}: read error while computing its identity", path));
  h = (h ^ size) * 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

StoreRowWriter::StoreRowWriter(StoreCapture capture) : capture_(std::move(capture)) {}

namespace {

StoreRow row_of(const StoreCapture& capture, const Sample& s, const SampleSymbol& symbol, const StoreEvent& event,
                const StoreSource& source) {
  return StoreRow{capture.id,
                  {capture.host},
                  {capture.vendor},
                  capture.family,
                  capture.model,
                  {capture.backend},
                  {event.name},
                  event.period,
                  {s.kind()},
                  s.time,
                  s.pid,
                  s.tid,
                  s.cpu,
                  s.ip,
                  {s.ip_exact},
                  s.data_linear,
                  s.data_physical,
                  s.conditions,
                  s.observed,
                  s.measured,
                  {&s},
                  {symbol.module},
                  {symbol.function},
                  {source.line},
                  {source.data_object},
                  {s.chain},
                  {source.comm},
                  source.offset,
                  {source.thread_comm},
                  source.data_access,
                  source.wall_time};
}

}  // namespace

void StoreRowWriter::append(const Sample& s, const SampleSymbol& symbol, std::string& out, const StoreEvent& event,
                            const StoreSource& source) const {
  append_line(row_of(capture_, s, symbol, event, source), out);
}

struct StoreBlockWriter::Columns {
  std::vector<StoreColumn> columns = store_columns();
  std::vector<NativeColumn> values = std::vector<NativeColumn>(columns.size());
};

StoreBlockWriter::StoreBlockWriter(StoreCapture capture)
    : capture_(std::move(capture)), columns_(std::make_unique<Columns>()) {}
StoreBlockWriter::~StoreBlockWriter() = default;
StoreBlockWriter::StoreBlockWriter(StoreBlockWriter&&) noexcept = default;
StoreBlockWriter& StoreBlockWriter::operator=(StoreBlockWriter&&) noexcept = default;

void StoreBlockWriter::append(const Sample& s, const SampleSymbol& symbol, const StoreEvent& event,
                              const StoreSource& source) {
  const StoreRow row = row_of(capture_, s, symbol, event, source);
  NativeColumn* column = columns_->values.data();
  hana::for_each(hana::accessors<StoreRow>(), [&](auto field) { put_value(column, hana::second(field)(row)); });
  ++rows_;
}

void StoreBlockWriter::flush(std::string& out) {
  if (rows_ == 0) return;
  put_varint(out, columns_->columns.size());
  put_varint(out, rows_);
  for (std::size_t i = 0; i < columns_->columns.size(); ++i) {
    NativeColumn& c = columns_->values[i];
    put_text(out, columns_->columns[i].name);
    put_text(out, columns_->columns[i].type);
    out += c.data;
    out += c.elements;
    c.data.clear();
    c.elements.clear();
  }
  rows_ = 0;
}

}  // namespace tagop::profiles
