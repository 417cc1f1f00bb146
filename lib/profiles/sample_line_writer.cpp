#include <tagop/profiles/sample_lines.hpp>

#include <algorithm>  // std::min
#include <array>      // std::array
#include <bit>        // std::countl_zero
#include <charconv>   // std::to_chars
#include <cstring>    // std::memcpy
#include <future>     // std::async
#include <ostream>    // std::ostream
#include <string>     // std::string
#include <vector>     // std::vector

#include <boost/hana/accessors.hpp>  // hana::accessors
#include <boost/hana/for_each.hpp>   // hana::for_each
#include <boost/hana/string.hpp>     // hana::to<char const*>

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>     // tagop::Error
#include <tagop/measures.hpp>  // measure_table

#include "huge_page_advice.hpp"  // advise_huge_pages
#include "sample_line_record.hpp"

namespace tagop::profiles {

namespace hana = boost::hana;

ConditionSet every_condition() {
  ConditionSet all;
  for (std::size_t i = 0; i < condition_count; ++i) all.insert(Condition{static_cast<std::uint8_t>(i)});
  return all;
}

EscapedSymbol EscapedSymbol::of(const SampleSymbol& symbol) {
  EscapedSymbol out;
  auto escape = [](std::string& to, std::string_view text) {
    if (text.empty()) return;
    to.clear();
    append_json_string(to, text);
  };
  escape(out.function, symbol.function);
  escape(out.module, symbol.module);
  return out;
}

namespace detail {

// A key (`,"ip":`) padded to a fixed width, so that copying it is a
// fixed-size copy the compiler inlines; the line's bound leaves that much
// room past its end.
struct Key {
  static constexpr std::size_t width = 32;
  std::array<char, width> bytes{};
  std::string_view text;  // the key itself (long ones are copied from here)

  explicit Key(std::string key) : owned(std::move(key)) {
    text = owned;
    std::memcpy(bytes.data(), owned.data(), std::min(owned.size(), width));
  }
  Key(const Key& o) : Key(o.owned) {}
  Key& operator=(const Key&) = delete;

 private:
  std::string owned;
};

}  // namespace detail

namespace {

using namespace detail;

// Lines reach the stream in writes of this size (or more): few system calls.
constexpr std::size_t flush_size = 1 << 20;

// A buffer's size. Its pages cost only once written: lines between two
// writes use its first megabytes again and again, and lines held while
// their symbols are read (export_lines.cpp holds up to 64 MiB) grow into
// the rest in place. Growing it by doubling copied what was held and
// faulted each page in twice: a tenth of a -g capture's lines.
constexpr std::size_t buffer_size = std::size_t{64} << 20;

// A buffer of `n` bytes, its pages filled in 2 MiB at a time.
std::unique_ptr<char[]> fresh_buffer(std::size_t n) {
  std::unique_ptr<char[]> buffer(new char[n]);
  advise_huge_pages(buffer.get(), n);
  return buffer;
}

char* put(char* p, std::string_view text) {
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}

// The longest forms of a decimal number and of a quoted hex one.
constexpr std::size_t number_size = 20, hex_size = 3 + 16 + 1;

char* put(char* p, const Key& key) {
  if (key.text.size() > Key::width) return put(p, key.text);
  std::memcpy(p, key.bytes.data(), Key::width);
  return p + key.text.size();
}

// Each byte's two hex digits, and each number below 100's two decimal ones:
// a line's numbers are written two digits a step.
constexpr auto hex_pairs = [] {
  constexpr char digits[] = "0123456789abcdef";
  std::array<char, 512> pairs{};
  for (std::size_t i = 0; i < 256; ++i) {
    pairs[2 * i] = digits[i >> 4];
    pairs[2 * i + 1] = digits[i & 15];
  }
  return pairs;
}();
constexpr auto decimal_pairs = [] {
  std::array<char, 200> pairs{};
  for (std::size_t i = 0; i < 100; ++i) {
    pairs[2 * i] = static_cast<char>('0' + i / 10);
    pairs[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return pairs;
}();

// A hex number, a byte at a time from the lowest.
char* put_hex(char* p, std::uint64_t v) {
  const int count = (67 - std::countl_zero(v | 1)) / 4;  // ceil(significant bits / 4), at least 1
  char* const end = p + count;
  char* q = end;
  for (; q - p >= 2; v >>= 8) {
    q -= 2;
    std::memcpy(q, &hex_pairs[2 * (v & 0xff)], 2);
  }
  if (q > p) *p = hex_pairs[2 * (v & 15) + 1];
  return end;
}

// `v` < 10^4 as four digits, leading zeros and all.
char* put_four_digits(char* p, std::uint32_t v) {
  std::memcpy(p, &decimal_pairs[2 * (v / 100)], 2);
  std::memcpy(p + 2, &decimal_pairs[2 * (v % 100)], 2);
  return p + 4;
}

// A decimal number: its last eight digits in two groups of four worked out
// apart, the rest by to_chars. A nanosecond time has twelve, and to_chars'
// one chain of divisions by 100 made the numbers a third of a line's time.
char* put_decimal(char* p, std::uint64_t v) {
  constexpr std::uint64_t eight_digits = 100'000'000;
  if (v < eight_digits) return std::to_chars(p, p + number_size, v).ptr;
  const auto low = static_cast<std::uint32_t>(v % eight_digits);
  p = put_decimal(p, v / eight_digits);
  p = put_four_digits(p, low / 10'000);
  return put_four_digits(p, low % 10'000);
}

// `"name":` of each field, made once from the record's declaration: `{"`
// before the first, `,"` before the others.
template <typename Record>
std::vector<Key> field_keys() {
  std::vector<Key> keys;
  hana::for_each(hana::accessors<Record>(), [&](auto field) {
    keys.emplace_back(std::string(keys.empty() ? "{\"" : ",\"") + hana::to<char const*>(hana::first(field)) + "\":");
  });
  return keys;
}

// `"name":` of each measure.
std::vector<Key> measure_keys() {
  std::vector<Key> keys;
  for (std::size_t m = 0; m < measure_count; ++m) keys.emplace_back("\"" + std::string(measure_table[m].name) + "\":");
  return keys;
}

// What a line can hold at most, symbol and module aside: every field at
// its longest form, each condition list holding the whole vocabulary.
std::size_t line_bound(const std::vector<Key>& keys, const std::vector<Key>& measures) {
  // "}\n", each value's longest scalar form, and a padded key's overhang.
  std::size_t n = 2 + keys.size() * (hex_size + number_size) + Key::width;
  for (const Key& k : keys) n += k.text.size();
  std::size_t list = 2;
  for (std::size_t c = 0; c < condition_count; ++c) list += condition_table[c].name.size() + 3;
  n += 2 * list + 2;
  for (const Key& m : measures) n += m.text.size() + number_size + 1;
  return n;
}

ConditionSet without(ConditionSet a, const ConditionSet& b) {
  a.erase(b);
  return a;
}

// Held lines once their symbols are known: the buffer's text, cut at each
// hole, and the tails that go there.
struct FilledLines {
  const char* text = nullptr;
  std::size_t size = 0;
  std::vector<std::size_t> holes;      ///< where each tail goes in text
  std::string tails;                   ///< every tail, one after the other
  std::vector<std::size_t> tail_ends;  ///< where each ends in tails

  // Through a block of flush_size: the stream's own buffer is smaller than
  // most pieces, which made a system call of each.
  bool write_to(std::ostream& out) const {
    std::vector<char> block;
    block.reserve(flush_size);
    const auto append = [&](const char* p, std::size_t n) {
      while (n > 0) {
        const std::size_t k = std::min(n, flush_size - block.size());
        block.insert(block.end(), p, p + k);
        p += k;
        n -= k;
        if (block.size() == flush_size) {
          out.write(block.data(), static_cast<std::streamsize>(block.size()));
          block.clear();
        }
      }
    };
    std::size_t from = 0, tail_from = 0;
    for (std::size_t i = 0; i < holes.size(); ++i) {
      append(text + from, holes[i] - from);
      append(tails.data() + tail_from, tail_ends[i] - tail_from);
      from = holes[i];
      tail_from = tail_ends[i];
    }
    append(text + from, size - from);
    out.write(block.data(), static_cast<std::streamsize>(block.size()));
    return static_cast<bool>(out.flush());
  }
};

}  // namespace

// The JSON form of each field type, written in place at `p`, which has
// room for line_bound() (the caller reserved it).
struct SampleLineWriter::Appender {
  SampleLineWriter& w;
  char*& p;

  void operator()(std::uint64_t v) const { p = put_decimal(p, v); }
  void operator()(std::uint32_t v) const { (*this)(std::uint64_t{v}); }
  void operator()(bool v) const { p = put(p, v ? "true" : "false"); }
  void operator()(KindName v) const {
    *p++ = '"';
    p = put(p, v.name);  // "fetch" or "op": nothing to escape
    *p++ = '"';
  }
  void operator()(Address v) const {
    p = put(p, "\"0x");
    p = put_hex(p, v.value);
    *p++ = '"';
  }
  void operator()(OptionalAddress v) const {
    if (v.value) (*this)(Address{*v.value});
    else p = put(p, "null");
  }
  void operator()(ConditionNames v) const { p = put(p, w.condition_list(v.set)); }
  void operator()(MeasureValues v) const {
    static const std::vector<Key> keys = measure_keys();
    *p++ = '{';
    bool first = true;
    for (std::uint32_t bits = v.sample->measured; bits != 0; bits &= bits - 1) {
      const auto m = static_cast<std::size_t>(__builtin_ctz(bits));
      if (m >= measure_count) break;
      if (!first) *p++ = ',';
      first = false;
      p = put(p, keys[m]);
      (*this)(v.sample->measures[m]);
    }
    *p++ = '}';
  }
  void operator()(Text v) const { p = put(p, v.text); }  // escaped by write()
  void operator()(EventName v) const { p = put(p, v.json); }
  void operator()(OptionalNumber v) const {
    if (v.value) (*this)(std::uint64_t{*v.value});
    else p = put(p, "null");
  }
};

SampleLineWriter::SampleLineWriter(std::ostream& out, ConditionSet scope)
    : out_(out), scope_(scope), buffer_(fresh_buffer(buffer_size)), capacity_(buffer_size) {}

SampleLineWriter::~SampleLineWriter() {
  try {
    flush();
  } catch (const std::exception&) {
    // A destructor cannot report it; flush() does.
  }
}

const std::string& SampleLineWriter::condition_list(const ConditionSet& set) {
  auto it = lists_.find(set);
  if (it != lists_.end()) return it->second;
  std::string list = "[";
  for (std::size_t word = 0; word < set.words.size(); ++word)
    for (std::uint64_t bits = set.words[word]; bits != 0; bits &= bits - 1) {
      const auto index = static_cast<std::uint8_t>(word * 64 + static_cast<std::size_t>(__builtin_ctzll(bits)));
      if (list.size() > 1) list += ',';
      list += '"';
      list += condition_table[index].name;  // vocabulary names need no escaping
      list += '"';
    }
  list += ']';
  // A capture has a few hundred kinds; past a bound (memory stays flat on
  // any input) a list is made each time.
  if (lists_.size() >= 4096) {
    scratch_list_ = std::move(list);
    return scratch_list_;
  }
  return lists_.emplace(set, std::move(list)).first->second;
}

std::size_t SampleLineWriter::SetHash::operator()(const ConditionSet& s) const {
  return std::hash<std::uint64_t>{}(s.words[0] * 0x9E3779B97F4A7C15ULL ^ s.words[1]);
}

void SampleLineWriter::write(const Sample& s, const SampleSymbol& symbol) {
  const EscapedSymbol escaped = EscapedSymbol::of(symbol);
  write_line(s, Text{escaped.function}, Text{escaped.module}, false);
}

void SampleLineWriter::write_escaped(const Sample& s, const EscapedSymbol& symbol) {
  write_line(s, Text{symbol.function}, Text{symbol.module}, false);
}

void SampleLineWriter::write_held(const Sample& s) { write_line(s, {}, {}, true); }

void SampleLineWriter::write_event(const EventSample& e, const EscapedSymbol& symbol) {
  write_event_line(e, Text{symbol.function}, Text{symbol.module}, false);
}

void SampleLineWriter::write_event_held(const EventSample& e) { write_event_line(e, {}, {}, true); }

char* SampleLineWriter::room(std::size_t n) {
  if (used_ + n > capacity_) {
    // Held lines stay: the buffer grows instead.
    if (holes_.empty()) send();
    if (used_ + n > capacity_) grow(std::max(2 * capacity_, used_ + n));
  }
  return buffer_.get() + used_;
}

void SampleLineWriter::grow(std::size_t n) {
  std::unique_ptr<char[]> larger = fresh_buffer(n);
  std::memcpy(larger.get(), buffer_.get(), used_);
  buffer_ = std::move(larger);
  capacity_ = n;
}

void SampleLineWriter::fill_held(std::span<const EscapedSymbol* const> symbols) {
  if (symbols.size() != holes_.size())
    throw Error(fmt::format("sample lines: {} symbols for {} held lines", symbols.size(), holes_.size()));
  if (holes_.empty()) return;
  // Each hole's tail, `,"symbol":F,"module":M}\n`, is made apart, and the
  // lines go to the stream as the text before the first hole, its tail,
  // the text up to the next hole ...: nothing held moves (shifting it
  // right to make room was a copy of all of it).
  FilledLines filled;
  filled.holes.reserve(holes_.size());
  filled.tail_ends.reserve(holes_.size());
  for (std::size_t i = 0; i < holes_.size(); ++i) {
    const std::vector<Key>& keys = *holes_[i].keys;
    filled.tails += keys[keys.size() - 2].text;
    filled.tails += symbols[i]->function;
    filled.tails += keys.back().text;
    filled.tails += symbols[i]->module;
    filled.tails += "}\n";
    filled.holes.push_back(holes_[i].at);
    filled.tail_ends.push_back(filled.tails.size());
  }
  filled.size = used_;
  holes_.clear();
  used_ = 0;
  if (behind_) {
    // The held text is written from where it is, on the writer's thread;
    // the next lines go to the spare buffer.
    wait_written();
    if (!spare_) {
      spare_ = fresh_buffer(capacity_);
      spare_capacity_ = capacity_;
    }
    std::swap(buffer_, spare_);
    std::swap(capacity_, spare_capacity_);
    filled.text = spare_.get();
    written_ = std::async(std::launch::async, [this, filled = std::move(filled)] { return filled.write_to(out_); });
  } else {
    filled.text = buffer_.get();
    if (!filled.write_to(out_)) throw Error("sample lines: writing failed (the output stream reported an error)");
  }
}

void SampleLineWriter::write_line(const Sample& s, detail::Text function, detail::Text module, bool held) {
  static const auto keys = field_keys<SampleLine>();
  static const std::size_t bound = line_bound(keys, measure_keys());
  auto optional = [](bool present, std::uint64_t v) {
    return OptionalAddress{present ? std::optional<std::uint64_t>(v) : std::nullopt};
  };
  const bool fetch = s.kind() == SampleKind::fetch;
  const SampleLine line{
      KindName{fetch ? "fetch" : "op"},
      s.time,
      s.pid,
      s.tid,
      s.cpu,
      Address{s.ip},
      s.ip_exact,
      optional(s.conditions.contains(condition("itlb.translated")), s.ip_physical),
      optional(s.conditions.contains(condition("dc.lin_addr_valid")), s.data_linear),
      optional(s.conditions.contains(condition("dc.phys_addr_valid")), s.data_physical),
      optional(s.branch_target != 0, s.branch_target),
      ConditionNames{s.conditions},
      ConditionNames{without(scope_, s.observed)},
      MeasureValues{&s},
      function,
      module,
  };
  put_line(line, keys, bound + function.text.size() + module.text.size(), held);
}

void SampleLineWriter::write_event_line(const EventSample& e, detail::Text function, detail::Text module, bool held) {
  static const auto keys = field_keys<EventLine>();
  static const std::size_t bound = line_bound(keys, {});
  const EventLine line{
      EventName{e.event_json}, e.time, e.pid, e.tid, OptionalNumber{e.cpu}, Address{e.ip}, e.period,
      function,                module,
  };
  put_line(line, keys, bound + e.event_json.size() + function.text.size() + module.text.size(), held);
}

template <typename Record>
void SampleLineWriter::put_line(const Record& line, const std::vector<Key>& keys, std::size_t size, bool held) {
  char* const start = room(size);
  char* p = start;
  const Appender append_value{*this, p};
  // A held line's symbol and module, its last two fields, come with
  // fill_held().
  const std::size_t fields = held ? keys.size() - 2 : keys.size();
  std::size_t i = 0;
  hana::for_each(hana::accessors<Record>(), [&](auto field) {
    if (i >= fields) return;
    p = put(p, keys[i++]);
    append_value(hana::second(field)(line));
  });
  if (held) holes_.push_back({used_, used_ + static_cast<std::size_t>(p - start), &keys});
  else p = put(p, "}\n");
  used_ += static_cast<std::size_t>(p - start);
  ++lines_;
  if (used_ >= flush_size && holes_.empty()) send();
}

void SampleLineWriter::flush() {
  send();
  wait_written();
}

void SampleLineWriter::send() {
  // What comes before the first held line's symbol can go.
  const std::size_t ready = holes_.empty() ? used_ : holes_.front().at;
  if (ready == 0) return;
  const std::size_t rest = used_ - ready;
  if (behind_) {
    // The last write is done with the spare buffer; this one's bytes go
    // there, and the rest stays to be written into.
    wait_written();
    if (spare_capacity_ < capacity_) {
      spare_ = fresh_buffer(capacity_);
      spare_capacity_ = capacity_;
    }
    std::memcpy(spare_.get(), buffer_.get() + ready, rest);
    std::swap(buffer_, spare_);
    std::swap(capacity_, spare_capacity_);
    written_ = std::async(std::launch::async, [this, ready] {
      out_.write(spare_.get(), static_cast<std::streamsize>(ready));
      return static_cast<bool>(out_.flush());
    });
  } else {
    out_.write(buffer_.get(), static_cast<std::streamsize>(ready));
    std::memmove(buffer_.get(), buffer_.get() + ready, rest);
    if (!out_.flush()) throw Error("sample lines: writing failed (the output stream reported an error)");
  }
  used_ = rest;
  for (Hole& h : holes_) {
    h.line = h.line > ready ? h.line - ready : 0;
    h.at -= ready;
  }
}

void SampleLineWriter::wait_written() {
  if (written_.valid() && !written_.get())
    throw Error("sample lines: writing failed (the output stream reported an error)");
}

}  // namespace tagop::profiles
