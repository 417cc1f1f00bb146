#include <tagop/profiles/sample_lines.hpp>

#include <algorithm>  // std::min
#include <array>      // std::array
#include <bit>        // std::countl_zero
#include <charconv>   // std::to_chars
#include <cstring>    // std::memcpy
#include <future>     // std::async
#include <ostream>    // std::ostream
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

// A hex number, nibble by nibble from the lowest.
char* put_hex(char* p, std::uint64_t v) {
  static constexpr char digits[] = "0123456789abcdef";
  const int count = (67 - std::countl_zero(v | 1)) / 4;  // ceil(significant bits / 4), at least 1
  for (int i = count - 1; i >= 0; --i) {
    p[i] = digits[v & 15];
    v >>= 4;
  }
  return p + count;
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

}  // namespace

// The JSON form of each field type, written in place at `p`, which has
// room for line_bound() (the caller reserved it).
struct SampleLineWriter::Appender {
  SampleLineWriter& w;
  char*& p;

  void operator()(std::uint64_t v) const { p = std::to_chars(p, p + number_size, v).ptr; }
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
    : out_(out), scope_(scope), buffer_(new char[2 * flush_size]), capacity_(2 * flush_size) {}

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
  std::unique_ptr<char[]> larger(new char[n]);
  // Megabytes, filled at once: in 2 MiB pages, not a fault every 4 KiB.
  advise_huge_pages(larger.get(), n);
  std::memcpy(larger.get(), buffer_.get(), used_);
  buffer_ = std::move(larger);
  capacity_ = n;
}

void SampleLineWriter::fill_held(std::span<const EscapedSymbol* const> symbols) {
  if (symbols.size() != holes_.size())
    throw Error(fmt::format("sample lines: {} symbols for {} held lines", symbols.size(), holes_.size()));
  // Each hole's tail: `,"symbol":F,"module":M}\n`.
  const auto tail_size = [&](std::size_t i) {
    const std::vector<Key>& keys = *holes_[i].keys;
    return keys[keys.size() - 2].text.size() + symbols[i]->function.size() + keys.back().text.size() +
           symbols[i]->module.size() + 2;
  };
  std::size_t size = used_;
  for (std::size_t i = 0; i < holes_.size(); ++i) size += tail_size(i);
  if (size > capacity_) grow(size);
  // In place, from the last hole back: the text after each moves right by
  // the tails before it.
  char* const base = buffer_.get();
  std::size_t from_end = used_, to_end = size;
  for (std::size_t i = holes_.size(); i-- > 0;) {
    const std::size_t at = holes_[i].at, text = from_end - at;
    to_end -= text;
    std::memmove(base + to_end, base + at, text);
    const std::vector<Key>& keys = *holes_[i].keys;
    to_end -= tail_size(i);
    char* p = base + to_end;
    p = put(p, keys[keys.size() - 2].text);
    p = put(p, symbols[i]->function);
    p = put(p, keys.back().text);
    p = put(p, symbols[i]->module);
    put(p, "}\n");
    from_end = at;
  }
  used_ = size;
  holes_.clear();
  if (used_ >= flush_size) send();
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
      spare_.reset(new char[capacity_]);
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
