#pragma once
// A streaming reader of perf.data files (the format `perf record` writes).
//
// The file is mapped, and the data section is walked record by record with
// every field read straight from the mapping, bounds-checked; pages already
// read are given back, so memory use does not grow with the file. Damaged
// records are skipped and counted (ReadSummary::skipped), never read out of
// bounds; where a record hides where the next one starts, reading goes on
// at the next plausible record header (ReadSummary::resyncs), and the
// bytes passed over are counted (ReadSummary::unread_bytes). A file that
// shrinks while it is read ends the read where it now ends, keeping what
// was read (ReadSummary::shrunk_to). Memory for the header's tables is
// bounded by the file's size. Only the native byte order is read;
// big-endian, piped and compressed files are refused with what to do
// instead.
//
//   PerfDataReader reader("perf.data");
//   struct : RecordHandler { void sample(const SampleRecord& s) override { ... } } h;
//   ReadSummary summary = reader.read(h);

#include <linux/perf_event.h>  // perf_event_attr

#include <array>        // std::array
#include <concepts>     // std::derived_from, std::same_as
#include <cstring>      // std::memcpy
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <memory>       // std::unique_ptr
#include <optional>     // std::optional
#include <utility>      // std::pair
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_final_v
#include <unordered_map>  // id -> attr
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/page_keeper.hpp>       // PageKeeper
#include <tagop/perf_data_format.hpp>  // FileHeader, Feature, RecordType

namespace tagop TAGOP_API {
namespace perf_data {

/// One event of the capture: its attr, the sample ids that name it, and
/// its name from HEADER_EVENT_DESC ("" without one).
struct EventAttr {
  perf_event_attr attr{};
  std::vector<std::uint64_t> ids;
  std::string name;
};

/// A PMU of the recording machine: "ibs_op" had type 10 there.
struct PmuMapping {
  std::uint32_t type = 0;
  std::string name;
};

/// A HEADER_BUILD_ID entry: the build-id of a file perf saw.
struct BuildIdEntry {
  std::int32_t pid = -1;
  std::uint16_t cpumode = 0;  ///< misc_kernel or misc_user
  std::string build_id;       ///< lowercase hex
  std::string filename;
};

/// What the file says about itself: header, attributes, feature sections.
struct FileInfo {
  std::string path;
  std::uint64_t file_size = 0;
  FileHeader header;
  std::vector<EventAttr> attrs;
  std::optional<std::string> cpuid;  ///< HEADER_CPUID: "AuthenticAMD,25,1,1"
  std::vector<PmuMapping> pmu_mappings;
  std::vector<BuildIdEntry> build_ids;
  std::string hostname, os_release, perf_version;
  /// HEADER_ARCH: the recording machine's `uname -m` ("x86_64"), "" when the file has none.
  std::string arch;
  /// HEADER_CMDLINE: the command that wrote the file, one string per word.
  std::vector<std::string> cmdline;
  /// HEADER_SAMPLE_TIME: the first and the last sample's time (perf's
  /// clock, ns), where perf wrote them (perf 5.1 and later, by default).
  std::optional<std::pair<std::uint64_t, std::uint64_t>> sample_time;
  /// HEADER_CLOCK_DATA (perf record -k CLOCK): one moment as the samples'
  /// clock (`clockid`) and as the time of day (ns since the epoch) read it.
  struct ClockData {
    std::uint32_t clockid = 0;  ///< the samples' clock (CLOCK_MONOTONIC_RAW ...)
    std::uint64_t wall_ns = 0;  ///< the time of day at that moment, ns since the epoch
    std::uint64_t clock_ns = 0;  ///< the clock's reading at that moment, ns
  };
  /// HEADER_CLOCK_DATA, where perf wrote it (perf record -k; perf 5.9 and later).
  std::optional<ClockData> clock_data;
  /// Problems with the header or features that did not stop the reading.
  std::vector<std::string> warnings;
  /// The feature bits whose sections could not be read whole (outside the
  /// file, malformed, or a feature index that is not where the header says),
  /// in bit order; what they would have said is missing from the rest.
  std::vector<unsigned> damaged_features;

  bool has_feature(unsigned bit) const { return (header.features[bit / 64] >> (bit % 64)) & 1; }
  /// The type number of a PMU by name, from HEADER_PMU_MAPPINGS.
  std::optional<std::uint32_t> pmu_type(std::string_view name) const;
  /// Whether every record says when it happened: samples by TIME, the
  /// others by their sample_id_all trailer. Only then can a reader put the
  /// records in time order, as perf does.
  bool timed() const;
  /// Each attr's name as reports show it, by index: HEADER_EVENT_DESC's
  /// name, or "type T config 0xC" where the file has none. A name that an
  /// earlier attr has already gets "#2", "#3"... (`perf record -e
  /// cpu-clock -e cpu-clock` names both "cpu-clock"), so that every event
  /// has a column and a key of its own.
  std::vector<std::string> event_names() const;
};

/// The identity fields a record carries (every field of a sample; the
/// sample_id_all trailer of the others).
struct SampleId {
  std::uint32_t pid = 0, tid = 0, cpu = 0;
  std::uint64_t time = 0, id = 0, stream_id = 0;
  const EventAttr* attr = nullptr;
};

/// A PERF_RECORD_SAMPLE, every field its attr's sample_type selects, in
/// the kernel's order. The reader reuses one SampleRecord per event, so the
/// object itself (its numbers and its spans) is valid only during the
/// handler call: copy what is kept. The bytes its spans view are the
/// mapping's, and stay readable until read() returns (see RecordHandler).
struct SampleRecord {
  std::uint64_t offset = 0;  ///< of the record in the file
  std::uint16_t misc = 0;
  std::uint16_t size = 0;  ///< of the record, its header included
  const EventAttr* attr = nullptr;
  std::uint32_t event = 0;  ///< the index of attr in FileInfo::attrs
  std::uint64_t sample_type = 0;
  std::uint64_t ip = 0, addr = 0, period = 0;
  SampleId id;
  std::span<const std::byte> read;          ///< read_format values, as recorded
  std::uint64_t callchain_nr = 0;
  std::span<const std::byte> callchain;     ///< callchain_nr u64 addresses
  std::span<const std::byte> raw;           ///< after the u32 size
  std::uint64_t branch_nr = 0, branch_hw_index = 0;
  std::span<const std::byte> branches;      ///< branch_nr {from, to, flags}
  std::uint64_t regs_user_abi = 0;
  std::span<const std::byte> regs_user;
  std::span<const std::byte> stack_user;
  std::uint64_t stack_user_dyn_size = 0;
  std::uint64_t weight = 0, data_src = 0, transaction = 0;
  std::uint64_t regs_intr_abi = 0;
  std::span<const std::byte> regs_intr;
  std::uint64_t phys_addr = 0, cgroup = 0, data_page_size = 0, code_page_size = 0;
  std::span<const std::byte> aux;
};

/// PERF_RECORD_MMAP and MMAP2.
struct MmapRecord {
  std::uint64_t offset = 0;
  std::uint16_t misc = 0;
  bool mmap2 = false;
  std::uint32_t pid = 0, tid = 0;
  std::uint64_t start = 0, len = 0, pgoff = 0;
  std::uint32_t prot = 0, flags = 0;  ///< MMAP2 only
  std::string_view filename;
  std::string build_id;  ///< lowercase hex, MMAP2 with misc_mmap_build_id
  SampleId id;
};

struct CommRecord {
  std::uint64_t offset = 0;
  std::uint32_t pid = 0, tid = 0;
  bool exec = false;
  std::string_view comm;
  SampleId id;
};

/// PERF_RECORD_FORK and EXIT.
struct TaskRecord {
  std::uint64_t offset = 0;
  bool fork = false;
  std::uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;
  std::uint64_t time = 0;
  SampleId id;
};

/// PERF_RECORD_LOST (samples lost in the ring buffer) and LOST_SAMPLES.
struct LostRecord {
  std::uint64_t offset = 0;
  bool lost_samples = false;
  std::uint64_t event_id = 0;  ///< LOST only
  std::uint64_t lost = 0;
  SampleId id;
};

/// PERF_RECORD_AUXTRACE_INFO: which AUX trace the file holds.
struct AuxtraceInfoRecord {
  std::uint64_t offset = 0;  ///< of the record in the file
  std::uint32_t type = 0;  ///< perf's enum auxtrace_type: 4 is Arm SPE
  std::span<const std::byte> priv;  ///< the private u64s, as recorded (perf's arm-spe.h: PMU type, per-CPU mmaps)
};

/// PERF_RECORD_AUXTRACE and the piece of AUX buffer that follows it.
struct AuxtraceRecord {
  std::uint64_t offset = 0;      ///< of the record in the file
  std::uint64_t aux_offset = 0;  ///< where the piece begins in its AUX buffer's stream
  std::uint64_t reference = 0;   ///< perf's reference of the piece (a TSC or a count), not used here
  std::uint32_t idx = 0;         ///< the AUX buffer's (mmap's) index
  std::uint32_t tid = 0;         ///< the thread whose it is; 0xFFFFFFFF: any
  std::uint32_t cpu = 0;         ///< the CPU whose buffer it is; 0xFFFFFFFF: any
  std::span<const std::byte> data;  ///< the trace bytes (with perf record's padding to 8 bytes)
};

/// The reader calls these in file order. The records handed over are
/// valid during the call only (they are reused); the bytes their spans
/// view (a sample's raw payload, its callchain ...) stay readable until
/// read() returns, so a handler may copy the spans (not the records) and
/// queue them for other threads. After read() returns, a file that shrank
/// would fault on them: do not keep them longer.
class RecordHandler {
 public:
  virtual ~RecordHandler() = default;
  virtual void sample(const SampleRecord&) {}
  /// The sample_type bits whose fields sample() reads: the reader may skip
  /// the others, which then hold 0 or an earlier sample's values (it checks
  /// every field's size all the same).
  virtual std::uint64_t sample_fields() const { return ~std::uint64_t{0}; }
  virtual void mmap(const MmapRecord&) {}
  virtual void comm(const CommRecord&) {}
  virtual void task(const TaskRecord&) {}
  virtual void lost(const LostRecord&) {}
  /// PERF_RECORD_AUXTRACE_INFO.
  virtual void auxtrace_info(const AuxtraceInfoRecord&) {}
  /// PERF_RECORD_AUXTRACE, with its data (skipped when the data runs past
  /// the end of the data section: the summary says so).
  virtual void auxtrace(const AuxtraceRecord&) {}
  /// Called every few tens of MiB with the data bytes done so far.
  virtual void progress(std::uint64_t /*done*/, std::uint64_t /*total*/) {}
  /// PERF_RECORD_FINISHED_ROUND: perf record wrote every CPU's buffer once
  /// since the last. A record of an earlier round may have a later time
  /// than one of this round, but none of a round before the last has: the
  /// bound perf report orders the records by (ordered_events).
  virtual void finished_round() {}
};

/// Records that could not be used, the first of them, and why.
struct Skipped {
  std::uint64_t count = 0;
  std::uint64_t first_offset = 0;
  std::string first_reason;
  void add(std::uint64_t offset, std::string_view reason);
  /// Adds another count; the first is the one at the lower offset.
  void merge(const Skipped& other);
};

struct ReadSummary {
  std::uint64_t records = 0;
  std::uint64_t samples = 0;
  std::uint64_t lost = 0;  ///< samples the kernel reported lost
  std::array<std::uint64_t, record_user_last + 1> by_type{};
  Skipped skipped;
  std::uint64_t data_bytes = 0;  ///< of the data section walked
  /// Bytes of the data section not read as records: a damaged record and
  /// what was passed over to the next plausible header after it, a partial
  /// record at the end, the part of a file that shrank while it was read.
  std::uint64_t unread_bytes = 0;
  /// Times a record hid where the next one starts (a size below its own
  /// header's, or past the end of the data) and reading went on at the next
  /// plausible record header.
  std::uint64_t resyncs = 0;
  /// The data section ended inside a record (a truncated file).
  bool truncated = false;
  /// The file's size once it had shrunk while it was read; the records
  /// from there on were not read.
  std::optional<std::uint64_t> shrunk_to;
  std::vector<std::string> warnings;
};

/// Parses the body of a PERF_RECORD_SAMPLE (after its header) as `attr`
/// lays it out. Returns "" when it fits, else which field ran past the end.
/// `out.attr` and `out.offset` are left to the caller.
std::string_view parse_sample(const perf_event_attr& attr, std::span<const std::byte> body, SampleRecord& out);

/// Where the fields of a sample sit when all of them have a fixed size but
/// RAW, which comes last: the layout of most captures (perf record's IBS,
/// cpu-clock and cycles samples), computed once per event, so that a
/// sample is read by a few copies from fixed offsets instead of field by
/// field.
struct FixedSampleLayout {
  bool usable = false;  ///< the sample_type has only such fields
  std::uint16_t size = 0;  ///< bytes of the fixed fields, RAW's size included
  /// An 8-byte field: from its offset in the body to its SampleRecord
  /// member's offset in the record; in the kernel's order, so that ID
  /// overwrites IDENTIFIER as in parse_sample().
  struct Copy {
    std::uint16_t from = 0, to = 0;
  };
  std::array<Copy, 9> copies{};
  std::uint8_t copy_count = 0;
  std::int16_t raw = -1;  ///< RAW's u32 size; the payload follows
  /// Copies only the fields of `wanted` (sample_type bits).
  static FixedSampleLayout of(const perf_event_attr& attr, std::uint64_t wanted = ~std::uint64_t{0});
};

/// parse_sample, by `layout` where it is usable (the same result, but for
/// the fields the layout does not want). Once per sample: inline.
inline std::string_view parse_sample(const FixedSampleLayout& layout, const perf_event_attr& attr,
                                     std::span<const std::byte> body, SampleRecord& out) {
  if (!layout.usable || body.size() < layout.size) return parse_sample(attr, body, out);  // it says which is short
  const std::byte* p = body.data();
  auto* record = reinterpret_cast<std::byte*>(&out);
  out.sample_type = attr.sample_type;
  for (std::size_t i = 0; i < layout.copy_count; ++i)
    std::memcpy(record + layout.copies[i].to, p + layout.copies[i].from, 8);
  if (layout.raw >= 0) {
    std::uint32_t n;
    std::memcpy(&n, p + layout.raw, 4);
    if (n > body.size() - layout.size) return "RAW";
    out.raw = body.subspan(layout.size, n);
  }
  return {};
}

/// Where `field` (a sample_type bit of FixedSampleLayout's fields; for
/// RAW, its u32 size) sits in the body of a sample of `attr`, when the
/// attr's layout is usable and has the field; nullopt otherwise.
std::optional<std::uint16_t> fixed_offset(const perf_event_attr& attr, std::uint64_t field);

/// A final handler may take a sample straight from the mapping, before the
/// reader parses it: `record` is the whole record, header first, lying in
/// the data section; `event` is its attr's index. True: the handler took
/// it, and the reader counts it as a good sample; false: the reader parses
/// it and calls sample(), or counts it as damaged. A handler must take
/// only samples that parse: for instance ones of the same event, record
/// size and raw size as a sample it was given whole.
template <typename Handler>
concept TakesSamplesInPlace = requires(Handler& h, std::uint32_t event, const std::byte* record, std::uint16_t size) {
  { h.sample_in_place(event, record, size) } -> std::same_as<bool>;
};

/// A final handler may also take whole runs of samples, reading records
/// itself from `at` while they are samples it takes, but not past `stop`
/// (the next progress call) nor the data's `end`; it adds the samples it
/// took to `samples` and returns where it stopped: at `at` when it took
/// none. It must take only what sample_in_place() would, and finds each
/// sample's event by PerfDataReader::sample_ids().
template <typename Handler>
concept TakesSampleRuns = requires(Handler& h, const std::byte* bytes, std::uint64_t at, std::uint64_t& samples) {
  { h.sample_run(bytes, at, at, at, samples) } -> std::same_as<std::uint64_t>;
};

/// Parses the sample_id_all trailer at the end of a non-sample record body.
/// Returns false when the body is too short for it.
bool parse_sample_id(const perf_event_attr& attr, std::span<const std::byte> body, SampleId& out);

/// Bytes of the sample_id_all trailer that `attr` gives every non-sample record.
std::size_t sample_id_size(const perf_event_attr& attr);

/// Thread safety: not thread-safe: one read() at a time per reader;
/// info() is immutable after construction and safe to share.
class PerfDataReader {
 public:
  /// Maps the file and reads its header, attributes and features. Throws
  /// tagop::Error when the file cannot be used at all (missing, not
  /// perf.data, big-endian, piped, compressed, attributes unreadable).
  explicit PerfDataReader(const std::string& path);
  /// The same over bytes in memory (tests, fuzzing); they must outlive it.
  PerfDataReader(std::span<const std::byte> bytes, std::string name);
  ~PerfDataReader();
  PerfDataReader(PerfDataReader&&) noexcept;
  PerfDataReader& operator=(PerfDataReader&&) noexcept;

  const FileInfo& info() const { return info_; }
  /// The file's bytes, as mapped (a SampleRecord's offset is where its
  /// record starts in them).
  std::span<const std::byte> bytes() const { return bytes_; }

  /// How a sample record names its event, for a handler that reads runs
  /// of samples itself: the event of a record of at least `id_at + 8`
  /// bytes is `events[id - base] - 1`, its id read at `id_at` (from the
  /// record's start) and within `events` (0 there: no event); with
  /// `id_at` 0 every sample is event 0. Nullopt when ids are looked up
  /// otherwise (too sparse for a table).
  struct SampleIds {
    std::size_t id_at = 0;
    std::uint64_t base = 0;
    std::span<const std::uint32_t> events;
  };
  std::optional<SampleIds> sample_ids() const {
    if (id_position_ == IdPosition::none) return SampleIds{};
    if (!dense_ids_) return std::nullopt;
    return SampleIds{sizeof(RecordHeader) + id_offset_, dense_id_base_, attr_by_dense_id_};
  }

  /// Walks the data section once, calling the handler for each record it
  /// knows; skips the others by their size, and damaged ones with a count.
  ReadSummary read(RecordHandler& handler);
  /// Keeps the pages `bytes` behind the reading mapped in the reads that
  /// follow (PageKeeper::behind when less; 0: that alone): for a handler
  /// that hands records on to threads that read their bytes later, as far
  /// as those may lag. A page given back under such a thread is read in
  /// again and kept: with a report's workers 2 MiB behind, the whole file.
  void keep_behind(std::uint64_t bytes);
  /// The same for a final handler: its sample() is called directly, not
  /// through the vtable, and may inline into the loop where its definition
  /// is in sight (most records are samples).
  template <typename Handler>
    requires std::derived_from<Handler, RecordHandler> && std::is_final_v<Handler>
  ReadSummary read(Handler& handler) {
    return walk(handler);
  }

 private:
  // One read of the data section: what the loop keeps between records.
  struct Walk {
    ReadSummary sum;
    std::uint64_t begin = 0, end = 0;
    std::optional<PageKeeper> pages;
    bool compressed_seen = false;
    std::uint64_t first_resync = 0;  ///< where records were first lost
    // One record per event, reused: each sample rewrites the fields the
    // handler wants, and no record is cleared per sample.
    std::vector<SampleRecord> samples;      ///< by event
    std::vector<FixedSampleLayout> layouts;  ///< by event
  };
  template <typename Handler>
  ReadSummary walk(Handler& handler);
  static constexpr std::uint64_t progress_every = PageKeeper::step;  ///< bytes between progress calls
  // The parts of walk() off its hot path (a good sample, a record header
  // that fits), out of line, for every handler type.
  bool start(Walk& w, RecordHandler& handler);
  void reached(Walk& w, RecordHandler& handler, std::uint64_t at);
  // A record whose header does not fit: counts it, and returns where
  // reading goes on (resync_point(), or the end).
  std::uint64_t bad_header(Walk& w, std::uint64_t at);
  // Where records start again from `from` on (perf's 8-byte alignment of
  // records kept): a plausible header followed by another or by the end of
  // the data; the end when there is none.
  std::uint64_t resync_point(const Walk& w, std::uint64_t from) const;
  // The size of the record at `at` when its header makes sense, else 0.
  std::uint64_t plausible_record(const Walk& w, std::uint64_t at) const;
  // The file's size when it shrank under the mapping, else nullopt.
  std::optional<std::uint64_t> shrunk_to() const;
  // A sample that names no event (`short_field` empty) or whose field
  // runs past its end: counts it as skipped.
  void bad_sample(Walk& w, std::uint64_t at, const RecordHeader& rh, std::string_view short_field);
  // Any record but a sample: returns where the next one starts.
  std::uint64_t other_record(Walk& w, RecordHandler& handler, std::uint64_t at, const RecordHeader& rh);
  ReadSummary finish(Walk& w, RecordHandler& handler, std::uint64_t at);

  struct Mapping;
  void parse_header();
  void parse_attrs();
  void parse_features();
  // The index in info_.attrs of the event with this id, or of a sample's.
  static constexpr std::uint32_t no_event = 0xFFFFFFFFu;
  std::uint32_t event_of_id(std::uint64_t id) const;
  std::uint32_t sample_event(std::span<const std::byte> body) const;
  const EventAttr* trailer_attr(std::span<const std::byte> body) const;

  std::unique_ptr<Mapping> mapping_;
  std::span<const std::byte> bytes_;
  FileInfo info_;
  std::unordered_map<std::uint64_t, std::uint32_t> attr_by_id_;
  // The same by id - dense_id_base_ (index + 1; 0: no such id), when the
  // ids span fewer than dense_id_limit numbers.
  static constexpr std::uint64_t dense_id_limit = 1 << 16;
  std::uint64_t dense_id_base_ = 0;
  std::vector<std::uint32_t> attr_by_dense_id_;
  std::uint64_t dense_ids_ = 0;  ///< attr_by_dense_id_.size(), kept: compared once per sample
  // Where a sample's id sits: at the front (IDENTIFIER), at a fixed
  // offset (ID after fixed fields), or nowhere (a single attr).
  enum class IdPosition { none, identifier, fixed } id_position_ = IdPosition::none;
  std::size_t id_offset_ = 0;  ///< of the id in a sample's body: 0 with IDENTIFIER
};

// Once per record: in the header, with the loop of a final handler.
inline std::uint32_t PerfDataReader::event_of_id(std::uint64_t id) const {
  if (const std::uint64_t at = id - dense_id_base_; at < dense_ids_) return attr_by_dense_id_[at] - 1;  // 0 - 1: no_event
  if (dense_ids_) return no_event;
  const auto it = attr_by_id_.find(id);
  return it == attr_by_id_.end() ? no_event : it->second;
}

inline std::uint32_t PerfDataReader::sample_event(std::span<const std::byte> body) const {
  if (id_position_ == IdPosition::none) return 0;
  // IDENTIFIER is at offset 0.
  if (body.size() < id_offset_ + 8) return no_event;
  std::uint64_t id;
  std::memcpy(&id, body.data() + id_offset_, 8);
  return event_of_id(id);
}

template <typename Handler>
ReadSummary PerfDataReader::walk(Handler& handler) {
  Walk w;
  if (!start(w, handler)) return std::move(w.sum);
  const std::byte* const bytes = bytes_.data();
  const std::uint64_t end = w.end;
  std::uint64_t at = w.begin, next_progress = at + progress_every, samples = 0;
  while (at < end) {
    if (at >= next_progress) {
      reached(w, handler, at);
      next_progress = at + progress_every;
    }
    if constexpr (TakesSampleRuns<Handler>) {
      if (const std::uint64_t to = handler.sample_run(bytes, at, end, next_progress, samples); to != at) {
        at = to;
        continue;
      }
    }
    RecordHeader rh;
    if (end - at < sizeof rh) {
      at = bad_header(w, at);
      continue;
    }
    std::memcpy(&rh, bytes + at, sizeof rh);
    // One compare for both: a size below the header's wraps around.
    if (std::uint64_t{rh.size} - sizeof rh > end - at - sizeof rh) {
      at = bad_header(w, at);
      continue;
    }
    // The common record, a sample, here; a damaged one and the other
    // records out of line.
    if (rh.type == record_sample) {
      const std::span<const std::byte> body{bytes + at + sizeof rh, rh.size - sizeof rh};
      std::string_view short_field;  ///< stays empty when the sample's id names no event
      if (const std::uint32_t event = sample_event(body); event != no_event) {
        if constexpr (TakesSamplesInPlace<Handler>) {
          if (handler.sample_in_place(event, bytes + at, rh.size)) {
            ++samples;
            at += rh.size;
            continue;
          }
        }
        SampleRecord& s = w.samples[event];
        short_field = parse_sample(w.layouts[event], s.attr->attr, body, s);
        if (short_field.empty()) {
          s.offset = at;
          s.misc = rh.misc;
          s.size = rh.size;
          ++samples;
          handler.sample(s);
          at += rh.size;
          continue;
        }
      }
      bad_sample(w, at, rh, short_field);
      at += rh.size;
      continue;
    }
    at = other_record(w, handler, at, rh);
  }
  // Counted here, not per sample: the loop keeps its count in a register.
  w.sum.samples += samples;
  w.sum.records += samples;
  w.sum.by_type[record_sample] += samples;
  return finish(w, handler, at);
}

}  // namespace perf_data
}  // namespace tagop
