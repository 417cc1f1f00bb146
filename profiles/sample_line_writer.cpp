#include <tagop/profiles/sample_lines.hpp>

#include <charconv>  // std::to_chars
#include <ostream>   // std::ostream

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

namespace {

using namespace detail;

// A line is flushed to the stream once the buffer holds this much.
constexpr std::size_t flush_size = 1 << 20;

void append_number(std::string& out, std::uint64_t v) {
  char digits[20];
  const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
  out.append(digits, end);
}

void append_hex(std::string& out, std::uint64_t v) {
  char digits[3 + 16] = {'"', '0', 'x'};  // the quote, 0x, and up to 16 hex digits
  const auto end = std::to_chars(digits + 3, digits + sizeof digits, v, 16).ptr;
  out.append(digits, end);
  out += '"';
}

// The JSON form of each field type.
void append(std::string& out, std::uint64_t v) { append_number(out, v); }
void append(std::string& out, std::uint32_t v) { append_number(out, v); }
void append(std::string& out, bool v) { out += v ? "true" : "false"; }
void append(std::string& out, KindName v) { append_json_string(out, v.name); }
void append(std::string& out, Address v) { append_hex(out, v.value); }
void append(std::string& out, OptionalAddress v) {
  if (v.value) append_hex(out, *v.value);
  else out += "null";
}
void append(std::string& out, ConditionNames v) {
  out += '[';
  bool first = true;
  for (std::size_t word = 0; word < v.set.words.size(); ++word)
    for (std::uint64_t bits = v.set.words[word]; bits != 0; bits &= bits - 1) {
      const auto index = static_cast<std::uint8_t>(word * 64 + static_cast<std::size_t>(__builtin_ctzll(bits)));
      if (!first) out += ',';
      first = false;
      out += '"';
      out += condition_table[index].name;  // vocabulary names need no escaping
      out += '"';
    }
  out += ']';
}
void append(std::string& out, MeasureValues v) {
  out += '{';
  bool first = true;
  for (std::size_t m = 0; m < measure_count; ++m) {
    if (!((v.sample->measured >> m) & 1)) continue;
    if (!first) out += ',';
    first = false;
    out += '"';
    out += measure_table[m].name;
    out += "\":";
    append_number(out, v.sample->measures[m]);
  }
  out += '}';
}
void append(std::string& out, Text v) {
  if (v.text.empty()) out += "null";
  else append_json_string(out, v.text);
}

ConditionSet without(ConditionSet a, const ConditionSet& b) {
  a.words[0] &= ~b.words[0];
  a.words[1] &= ~b.words[1];
  return a;
}

}  // namespace

SampleLineWriter::SampleLineWriter(std::ostream& out, ConditionSet scope) : out_(out), scope_(scope) {
  buffer_.reserve(flush_size + 4096);
}

SampleLineWriter::~SampleLineWriter() {
  try {
    flush();
  } catch (const Error&) {
    // A destructor cannot report it; flush() does.
  }
}

void SampleLineWriter::write(const Sample& s, const SampleSymbol& symbol) {
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
      Text{symbol.function},
      Text{symbol.module},
  };
  buffer_ += '{';
  bool first = true;
  hana::for_each(hana::accessors<SampleLine>(), [&](auto field) {
    if (!first) buffer_ += ',';
    first = false;
    buffer_ += '"';
    buffer_ += hana::to<char const*>(hana::first(field));
    buffer_ += "\":";
    append(buffer_, hana::second(field)(line));
  });
  buffer_ += "}\n";
  ++lines_;
  if (buffer_.size() >= flush_size) flush();
}

void SampleLineWriter::flush() {
  if (buffer_.empty()) return;
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
  if (!out_.flush()) throw Error("sample lines: writing failed (the output stream reported an error)");
}

}  // namespace tagop::profiles
