#pragma once
// JSON lines: one decoded sample per line, for engines that ingest them
// (DuckDB, Spark, BigQuery, jq). Each line holds the sample's kind, time,
// pid/tid/cpu, addresses (hex strings, so 64-bit addresses survive engines
// whose numbers are doubles), the conditions that hold, the conditions the
// mechanism could not see, the measures, and the symbol:
//
//   {"kind":"op","time":1234,"pid":42,"tid":42,"cpu":1,"ip":"0x401234",...,
//    "conditions":["op","load","dc.miss"],"unknown":[],"measures":{"dc.miss_latency":180},
//    "symbol":"work","module":"/usr/bin/prog"}
//
// The record is declared once (profiles/sample_line_record.hpp); the line
// and its JSON Schema (profiles/schemas/sample-line.schema.json) both come
// from it. Memory stays flat: lines go through a fixed-size buffer.
// Speed: one reused buffer that lines are written into in place, each condition
// list serialized once per set, symbols escaped once by the caller.
// Strings that are not UTF-8 get U+FFFD for each bad sequence, as every
// other JSON output of tagop does (nlohmann's replace handler).
// Not thread-safe: a SampleLineWriter is used from one thread (with
// write_behind(), a thread of its own writes the stream meanwhile); the
// free functions only read their arguments.

#include <cstdint>      // std::uint64_t
#include <future>       // std::future: write_behind()
#include <iosfwd>       // std::ostream
#include <memory>       // std::unique_ptr
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <unordered_map>  // condition lists by set
#include <vector>         // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/conditions.hpp>  // ConditionSet
#include <tagop/sample.hpp>      // Sample

namespace tagop TAGOP_API {
namespace profiles {

/// Where a sample's address is, as the caller resolved it; "" when not known.
struct SampleSymbol {
  std::string_view function;
  std::string_view module;
};

/// A SampleSymbol's two strings as JSON values ("null" when not known),
/// escaped once: a caller that meets the same symbol for many samples
/// keeps one and writes it with each (SampleLineWriter::write_escaped).
struct EscapedSymbol {
  std::string function = "null", module = "null";
  static EscapedSymbol of(const SampleSymbol& symbol);
};

/// A sample of an event that is not IBS (cpu-clock, cycles ...), as perf
/// records it.
struct EventSample {
  std::string_view event_json;  ///< the event's name as a JSON string (append_json_string)
  std::uint64_t time = 0;
  std::uint32_t pid = 0, tid = 0;
  std::optional<std::uint32_t> cpu;  ///< when the capture has PERF_SAMPLE_CPU
  std::uint64_t ip = 0, period = 0;
};

namespace detail {
struct Text;
struct Key;
}

/// Every condition of the vocabulary.
ConditionSet every_condition();

class SampleLineWriter {
 public:
  /// `scope`: the conditions the sampling mechanism reports (for IBS, what
  /// the decoder can observe for the family); those of them a sample did
  /// not observe are its "unknown" list.
  explicit SampleLineWriter(std::ostream& out, ConditionSet scope = every_condition());
  SampleLineWriter(const SampleLineWriter&) = delete;
  SampleLineWriter& operator=(const SampleLineWriter&) = delete;
  /// Flushes; a failure here is lost: call flush() to see it.
  ~SampleLineWriter();

  void write(const Sample& sample, const SampleSymbol& symbol = {});
  /// The same line, with a symbol escaped beforehand.
  void write_escaped(const Sample& sample, const EscapedSymbol& symbol);
  /// A line of a capture without IBS (profiles/schemas/event-line.schema.json).
  void write_event(const EventSample& sample, const EscapedSymbol& symbol);
  /// The same lines, their symbol not known yet (their module's symbols
  /// are still being read, on another thread): written in order with the
  /// others, their symbol and module left open, so that the work of the
  /// lines goes on meanwhile. Nothing from the first held line on reaches
  /// the stream until fill_held() gives them their symbols.
  void write_held(const Sample& sample);
  /// write_event() of a line whose symbol is not known yet (write_held()).
  void write_event_held(const EventSample& sample);
  /// The lines held.
  std::size_t held() const { return holes_.size(); }
  /// The bytes from the first held line on: what waits.
  std::size_t held_bytes() const { return holes_.empty() ? 0 : used_ - holes_.front().line; }
  /// Gives each held line its symbol, in the order they were written
  /// (`symbols[i]` the i-th's), and lets them go to the stream.
  void fill_held(std::span<const EscapedSymbol* const> symbols);
  /// Changes the scope for the samples written next: an IBS fetch sample
  /// and an op sample see different conditions.
  void set_scope(ConditionSet scope) { scope_ = scope; }
  /// Writes what is buffered, up to the first held line, and waits for
  /// it to be written. Throws tagop::Error when the stream fails.
  void flush();
  /// Whether the stream is written on a thread of its own, while the next
  /// lines are made (writing a file of lines was a fifth of an export's
  /// time, spent in the kernel): worth it where a CPU is idle. Off by
  /// default.
  void write_behind(bool on) { behind_ = on; }
  std::uint64_t lines() const { return lines_; }

 private:
  struct Appender;
  struct SetHash {
    std::size_t operator()(const ConditionSet& s) const;
  };
  /// A held line's place: where it starts, and where its symbol goes (its
  /// last two fields, symbol and module, and its end are left out).
  struct Hole {
    std::size_t line = 0, at = 0;
    const std::vector<detail::Key>* keys = nullptr;  ///< the record's, symbol's and module's last
  };
  void write_line(const Sample& sample, detail::Text function, detail::Text module, bool held);
  void write_event_line(const EventSample& sample, detail::Text function, detail::Text module, bool held);
  /// Writes a record's line, of at most `size` bytes; a held one without
  /// its last two fields.
  template <typename Record>
  void put_line(const Record& line, const std::vector<detail::Key>& keys, std::size_t size, bool held);
  /// `set` as a JSON list of names, made once per set: a capture's samples
  /// fall in a few hundred kinds, each with the same lists.
  const std::string& condition_list(const ConditionSet& set);

  std::ostream& out_;
  ConditionSet scope_;
  /// Room for `n` more bytes at the buffer's end (flushing to make it).
  char* room(std::size_t n);

  /// Grows the buffer to hold `n` bytes (while lines are held).
  void grow(std::size_t n);
  /// Hands what is buffered, up to the first held line, to the stream: to
  /// the thread that writes it, with write_behind().
  void send();
  /// Waits for the thread's last write; throws when it failed.
  void wait_written();

  /// Lines are written in place, up to used_; not value-initialised (a
  /// buffer grown while lines are held is written before it is read).
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
  std::vector<Hole> holes_;  ///< the held lines, in order
  bool behind_ = false;
  /// With write_behind(): the buffer being written, and its write (last:
  /// destroyed first, its destructor waits for the write).
  std::unique_ptr<char[]> spare_;
  std::size_t spare_capacity_ = 0;
  std::future<bool> written_;
  std::string scratch_list_;
  std::unordered_map<ConditionSet, std::string, SetHash> lists_;
  std::uint64_t lines_ = 0;
};

/// The JSON Schema of one line, generated from the record's declaration:
/// the text of profiles/schemas/sample-line.schema.json.
std::string sample_line_schema();
/// The same of a line of a capture without IBS: event-line.schema.json.
std::string event_line_schema();

/// `text` as a JSON string literal with its quotes: escapes as nlohmann's
/// dump() does, and U+FFFD for each sequence that is not UTF-8, as its
/// replace handler does.
void append_json_string(std::string& out, std::string_view text);

}  // namespace profiles
}  // namespace tagop
