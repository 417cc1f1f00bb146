#pragma once
// One shard of a report's tallies: the samples whose addresses hash to it,
// each reduced to its kind (an IBS payload's key -> kind in one probe)
// and counted in its entry, with its measures or period summed beside it.
// The reading thread hands samples over as Items (walk.hpp); a Tally is
// one thread's, and nothing in it is shared.

#include <array>    // std::array
#include <cstddef>  // std::byte
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <cstring>  // std::memcpy
#include <optional>  // std::optional
#include <span>     // std::span
#include <unordered_map>  // data sources' kinds
#include <vector>   // std::vector

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/error.hpp>                 // Error
#include <tagop/perf_data_reader.hpp>      // Skipped
#include <tagop/report/report.hpp>         // PeriodSeen

#include "entry_table.hpp"
#include "kinds.hpp"

namespace tagop::report {

/// A sample as the reading thread hands it on: 32 bytes, in four 8-byte
/// words. Its small fields share words, so that an item is made in
/// registers and stored whole: one made field by field on the stack and
/// copied on in 16-byte parts stalled every copy (a store forwarded to a
/// wider load), half of the reading thread's time in a run of samples.
struct Item {
  /// IBS: the raw payload; other events: the period.
  std::uint64_t payload_or_period = 0;
  std::uint64_t ip = 0;  // the record's (IBS: the interrupt's, for IbsRipInvalid)
  std::uint64_t place = 0;  // space | chain << 32
  // raw_size | raw_at << 16 | event << 32 | unit << 48 | flags << 56; a
  // sample with a data source has its id (Walk's) where raw_size is, and
  // its weight's 24 bits where raw_at and unit are.
  std::uint64_t facts = 0;
  // data_src: other events, a sample with a data source; weighted: its
  // event's samples carry a weight. data_address: `ip` is the sample's
  // data address (SplitBy::data), not to be read from its IBS payload.
  static constexpr std::uint8_t ibs = 1, filtered_out = 2, data_src = 4, weighted = 8, data_address = 16;  // flags

  /// An IBS sample: its payload of `raw_size` bytes at `raw_at` in its record.
  static Item of_ibs(const std::byte* raw, std::uint64_t ip, std::uint32_t raw_size, std::uint32_t raw_at,
                     amd_ibs::IbsUnit unit, std::uint8_t flags = ibs) {
    return {reinterpret_cast<std::uint64_t>(raw), ip, 0,
            std::uint64_t{static_cast<std::uint16_t>(raw_size)} | std::uint64_t{static_cast<std::uint16_t>(raw_at)} << 16 |
                std::uint64_t{static_cast<std::uint8_t>(unit)} << 48 | std::uint64_t{flags} << 56};
  }
  /// A sample of another event, counted by its period.
  static Item of_event(std::uint32_t event, std::uint64_t ip, std::uint64_t period) {
    return {period, ip, 0, std::uint64_t{static_cast<std::uint16_t>(event)} << 32};
  }

  std::uint32_t space() const { return static_cast<std::uint32_t>(place); }
  std::uint32_t chain() const { return static_cast<std::uint32_t>(place >> 32); }
  void set_space(std::uint32_t space) { place = (place & ~std::uint64_t{0xFFFFFFFF}) | space; }
  void set_chain(std::uint32_t chain) { place = (place & 0xFFFFFFFF) | std::uint64_t{chain} << 32; }
  std::uint16_t raw_size() const { return static_cast<std::uint16_t>(facts); }  // IBS
  std::uint16_t raw_at() const { return static_cast<std::uint16_t>(facts >> 16); }  // IBS: of the payload in its record
  std::uint16_t event() const { return static_cast<std::uint16_t>(facts >> 32); }   // other events
  /// Other events: the id of the sample's PERF_SAMPLE_DATA_SRC value (Walk::data_src_values()).
  std::uint16_t data_src_id() const { return static_cast<std::uint16_t>(facts); }
  /// Other events: the sample's weight (its load latency), at most max_weight.
  std::uint32_t weight() const {
    return static_cast<std::uint32_t>((facts >> 16) & 0xFFFF) | static_cast<std::uint32_t>((facts >> 48) & 0xFF) << 16;
  }
  static constexpr std::uint32_t max_weight = 0xFFFFFF;
  /// `weight`: nullopt for an event whose samples carry none.
  void set_data_src(std::uint16_t id, std::optional<std::uint32_t> weight) {
    const std::uint32_t w = weight.value_or(0);
    facts = (facts & (std::uint64_t{0xFFFF} << 32 | std::uint64_t{0xFF} << 56)) | id |
            std::uint64_t{w & 0xFFFF} << 16 | std::uint64_t{(w >> 16) & 0xFF} << 48 |
            std::uint64_t{static_cast<std::uint8_t>(weight ? data_src | weighted : data_src)} << 56;
  }
  amd_ibs::IbsUnit unit() const { return static_cast<amd_ibs::IbsUnit>(static_cast<std::uint8_t>(facts >> 48)); }
  std::uint8_t flags() const { return static_cast<std::uint8_t>(facts >> 56); }
  void add_flags(std::uint8_t f) { facts |= std::uint64_t{f} << 56; }

  const std::byte* raw() const { return reinterpret_cast<const std::byte*>(payload_or_period); }
};
static_assert(sizeof(Item) == 32);

class Tally {
 public:
  /// `file`: the capture as mapped (damaged payloads' offsets); `width`:
  /// the sums of each entry (EntryTable).
  /// `data_src_values`: the data sources by id (Walk's), which the
  /// reading thread fills before it hands on a sample of a new one.
  Tally(const amd_ibs::IbsCapture* capture, const Predicate* where, std::uint32_t needed_measures,
        std::uint8_t width, std::size_t events, const std::byte* file,
        const std::vector<std::uint64_t>* data_src_values = nullptr);
  Tally(Tally&&) noexcept;
  Tally& operator=(Tally&&) = delete;

  void add(const Item& item);
  /// Fetches what add(item) will read first: an IBS payload's lines.
  [[gnu::always_inline]] void prefetch(const Item& item) const {
    if (!(item.flags() & Item::ibs)) return;
    __builtin_prefetch(item.raw(), 0, 3);
    __builtin_prefetch(item.raw() + item.raw_size() - 1, 0, 3);
  }
  /// Counts the samples in flight and ends the period runs.
  void finish();

  KindTable& kinds() { return kinds_; }
  EntryTable& entries() { return entries_; }
  const std::array<PeriodSeen, 2>& periods() const { return periods_; }
  const perf_data::Skipped& damaged() const { return damaged_; }

 private:
  void ibs(const Item& item);
  // A sample with a data source: its kind by (event, data source), once
  // per pair. Out of line: the common sample has none.
  [[gnu::noinline]] void with_data_src(const Item& item);
  // A caps word that disagrees with its payload or processor is said once:
  // checked when a payload comes in a layout (caps word, size) other than
  // the last, which the decoder compares anyway.
  [[gnu::noinline]] void check_payload(const Item& item);
  void decoded(const Item& item, std::span<const std::byte> raw);
  void count_period(amd_ibs::IbsUnit unit, std::uint64_t control);
  void end_period_runs();

  // A sample is counted a few samples after it is queued, so that the
  // cache misses of its entry overlap the work of the samples between.
  struct Pending {
    std::uint64_t ip, place, hash;  // place: Item::place, Entry::place()
    const KeyKind* key_kind;  // IBS: where the payload has the measures; else null
    std::uint64_t raw_or_period;  // IBS: the payload's address; else the period
    std::uint32_t kind;
  };
  // A power of two. 16, not 8: at 100 k addresses (tables of 8 and 32
  // MiB, past the L2 cache) a fetch from memory outlasted 8 samples' work
  // (204 ms against 216 for the report); at 10 k no slower.
  static constexpr std::size_t pending_depth = 16;
  void queue(std::uint64_t ip, std::uint64_t place, std::uint32_t kind, const KeyKind* key_kind,
             std::uint64_t raw_or_period);
  void count(const Pending& p);

  const amd_ibs::IbsCapture* capture_;
  const std::byte* file_;
  KindTable kinds_;
  std::vector<std::uint32_t> event_kinds_;  // other events: their kinds
  const std::vector<std::uint64_t>* data_src_values_;
  std::unordered_map<std::uint32_t, std::uint32_t> data_src_kinds_;  // event << 16 | data source id -> kind
  EntryTable entries_;
  std::array<Pending, pending_depth> pending_{};
  std::uint64_t queued_ = 0;
  perf_data::Skipped damaged_;
  // By unit: the period of the last control register and the samples
  // since that had it; added to the counts when it changes, which is rare.
  struct PeriodRun {
    std::uint64_t mask = 0;                  // IbsCapture::period_bits
    std::uint64_t bits = ~std::uint64_t{0};  // of the control: none yet
    amd_ibs::IbsCapture::Period period;
    std::uint64_t samples = 0;
  };
  std::array<PeriodRun, 2> period_runs_{};
  std::array<PeriodSeen, 2> periods_{};
};

// Once per sample: inline.

[[gnu::always_inline]] inline void Tally::count_period(amd_ibs::IbsUnit unit, std::uint64_t control) {
  PeriodRun& run = period_runs_[static_cast<std::size_t>(unit)];
  const std::uint64_t bits = control & run.mask;
  if (bits != run.bits) [[unlikely]] {
    periods_[static_cast<std::size_t>(unit)].add(run.period, run.samples);
    run = {run.mask, bits, capture_->period_of(unit, control), 0};
  }
  ++run.samples;
}

[[gnu::always_inline]] inline void Tally::count(const Pending& p) {
  const std::size_t slot = entries_.find(p.ip, p.place, p.kind, p.hash);
  ++entries_.at(slot).count;
  std::uint64_t* sums = entries_.sums(slot);
  if (p.key_kind) p.key_kind->add_measures(reinterpret_cast<const std::byte*>(p.raw_or_period), sums);
  else sums[0] += p.raw_or_period;
}

[[gnu::always_inline]] inline void Tally::queue(std::uint64_t ip, std::uint64_t place, std::uint32_t kind,
                                                const KeyKind* key_kind, std::uint64_t raw_or_period) {
  const std::uint64_t hash = EntryTable::hash(ip, place, kind);
  // A table that fits in the L2 cache has no misses to hide.
  if (entries_.cached()) return count(Pending{ip, place, hash, key_kind, raw_or_period, kind});
  entries_.prefetch(hash);
  Pending& slot = pending_[queued_++ & (pending_depth - 1)];
  if (queued_ > pending_depth) count(slot);
  slot = Pending{ip, place, hash, key_kind, raw_or_period, kind};
}

[[gnu::always_inline]] inline void Tally::ibs(const Item& item) {
  const std::span<const std::byte> raw{item.raw(), item.raw_size()};
  const amd_ibs::FastIbsDecoder& decoder = kinds_.decoder();
  const std::uint64_t layout_changes = decoder.layout_changes();
  amd_ibs::FastIbsDecoder::Key key;
  std::uint64_t control = 0;
  bool keyed;
  try {
    keyed = decoder.key_of(item.unit(), raw, key, control);
  } catch (const Error& e) {
    check_payload(item);
    damaged_.add(static_cast<std::uint64_t>(raw.data() - item.raw_at() - file_), e.what());
    return;
  }
  if (decoder.layout_changes() != layout_changes) [[unlikely]] check_payload(item);
  // Filtered-out samples are read all the same: their period counts.
  count_period(item.unit(), control);
  if (item.flags() & Item::filtered_out) return;
  const KeyKind* key_kind = keyed ? kinds_.find(key, raw) : nullptr;
  if (!key_kind) return decoded(item, raw);
  ++key_kind->samples;
  if (key_kind->verdict != Verdict::passes) return;
  std::uint64_t ip = item.ip;  // IbsRipInvalid: the interrupted ip, as perf recorded it
  if (!key_kind->rip_invalid && !(item.flags() & Item::data_address)) std::memcpy(&ip, raw.data() + key_kind->ip_at, 8);
  queue(ip, item.place, key_kind->kind, key_kind, reinterpret_cast<std::uint64_t>(raw.data()));
}

[[gnu::always_inline]] inline void Tally::add(const Item& item) {
  if (item.flags() & Item::ibs) return ibs(item);
  if (item.flags() & Item::data_src) [[unlikely]] return with_data_src(item);
  const std::uint32_t kind = event_kinds_[item.event()];
  Kind& k = kinds_.kinds()[kind];
  ++k.samples;
  // With --where, a sample without a data source decides nothing.
  if (k.verdict != Verdict::passes) return;
  queue(item.ip, item.place, kind, nullptr, item.payload_or_period);
}

}  // namespace tagop::report
