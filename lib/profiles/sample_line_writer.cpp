#include <tagop/profiles/sample_lines.hpp>

#include <algorithm>  // std::min
#include <array>      // std::array
#include <bit>        // std::countl_zero
#include <charconv>   // std::to_chars
#include <cstring>    // std::memcpy
#include <ostream>    // std::ostream
#include <vector>     // std::vector

#include <boost/hana/accessors.hpp>  // hana::accessors
#include <boost/hana/for_each.hpp>   // hana::for_each
#include <boost/hana/string.hpp>     // hana::to<char const*>

#include <tagop/error.hpp>     // tagop::Error
#include <tagop/measures.hpp>  // measure_table

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
    : out_(out), scope_(scope), buffer_(2 * flush_size) {}

SampleLineWriter::~SampleLineWriter() {
  try {
    flush();
  } catch (const Error&) {
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
  write_line(s, Text{escaped.function}, Text{escaped.module});
}

void SampleLineWriter::write_escaped(const Sample& s, const EscapedSymbol& symbol) {
  write_line(s, Text{symbol.function}, Text{symbol.module});
}

char* SampleLineWriter::room(std::size_t n) {
  if (used_ + n > buffer_.size()) {
    flush();
    if (n > buffer_.size()) buffer_.resize(n);
  }
  return buffer_.data() + used_;
}

void SampleLineWriter::write_line(const Sample& s, detail::Text function, detail::Text module) {
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
  put_line(line, keys, bound + function.text.size() + module.text.size());
}

void SampleLineWriter::write_event(const EventSample& e, const EscapedSymbol& symbol) {
  static const auto keys = field_keys<EventLine>();
  static const std::size_t bound = line_bound(keys, {});
  const EventLine line{
      EventName{e.event_json}, e.time, e.pid, e.tid, OptionalNumber{e.cpu}, Address{e.ip}, e.period,
      Text{symbol.function},   Text{symbol.module},
  };
  put_line(line, keys, bound + e.event_json.size() + symbol.function.size() + symbol.module.size());
}

template <typename Record>
void SampleLineWriter::put_line(const Record& line, const std::vector<Key>& keys, std::size_t size) {
  char* const start = room(size);
  char* p = start;
  const Appender append_value{*this, p};
  std::size_t i = 0;
  hana::for_each(hana::accessors<Record>(), [&](auto field) {
    p = put(p, keys[i++]);
    append_value(hana::second(field)(line));
  });
  p = put(p, "}\n");
  used_ += static_cast<std::size_t>(p - start);
  ++lines_;
  if (used_ >= flush_size) flush();
}

void SampleLineWriter::flush() {
  if (used_ == 0) return;
  out_.write(buffer_.data(), static_cast<std::streamsize>(used_));
  used_ = 0;
  if (!out_.flush()) throw Error("sample lines: writing failed (the output stream reported an error)");
}

}  // namespace tagop::profiles
