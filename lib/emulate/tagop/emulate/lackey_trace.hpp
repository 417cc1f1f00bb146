#pragma once
// Valgrind lackey's instruction and memory trace (--trace-mem=yes), parsed
// as it streams from a pipe: "I  addr,size" for each instruction executed,
// then " L addr,size", " S addr,size" or " M addr,size" for each of its
// loads, stores and modifies (a load and a store of the same bytes).
// Valgrind's own messages ("==pid== ...", "--pid-- ...") are kept aside
// for errors.
//
//   LackeyTraceParser parser;
//   parser.feed(bytes, [&](const TraceInstruction& i) { ... });  // as bytes arrive
//   parser.finish(on_instruction);                               // at the end
// Not thread-safe: a parser reads one stream from one thread.

#include <array>        // std::array
#include <cstdint>      // std::uint64_t, std::uint32_t
#include <cstring>      // std::memchr
#include <span>         // std::span
#include <string>       // std::string
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {
namespace emulate {

enum class AccessKind : std::uint8_t { load, store, modify };

struct DataAccess {
  std::uint64_t address = 0;
  std::uint32_t size = 0;
  AccessKind kind = AccessKind::load;
};

struct TraceInstruction {
  static constexpr std::size_t max_accesses = 64;
  std::uint64_t ip = 0;
  std::uint32_t size = 0;
  std::uint32_t access_count = 0;  ///< the first max_accesses are kept
  std::array<DataAccess, max_accesses> accesses{};
  /// The address of the instruction executed next (0 at the end of the
  /// trace): where a branch went.
  std::uint64_t next_ip = 0;
  /// The conditional exits that Valgrind's translation of the instruction
  /// kept after VEX's optimiser (Cachegrind counts each one reached as a
  /// conditional branch), as tagop's tool saw them; -1 where the trace
  /// does not say (Lackey's). Fewer than the instruction's kind implies
  /// where the optimiser decided a guard: see CoreModel::valgrind_exits.
  std::int8_t valgrind_exits = -1;
};

class LackeyTraceParser {
 public:
  /// Parses what `bytes` completes; an instruction is handed on once the
  /// next one starts (its accesses are then all known, and where it went).
  template <typename OnInstruction>
  void feed(std::span<const char> bytes, OnInstruction&& on_instruction);
  /// The end of the trace: hands on the last instruction.
  template <typename OnInstruction>
  void finish(OnInstruction&& on_instruction);

  /// Lines that were neither trace nor Valgrind messages (damage).
  std::uint64_t bad_lines() const { return bad_lines_; }
  /// Valgrind's own messages, the last few (for errors).
  const std::vector<std::string>& messages() const { return messages_; }
  std::uint64_t instructions() const { return instructions_; }

 private:
  // Parses one whole line (without its '\n'); returns true when it
  // started a new instruction, so that the previous one is complete.
  bool line(const char* p, const char* end);
  void message(const char* p, const char* end);

  TraceInstruction pending_{}, current_{};
  bool have_current_ = false;
  std::string partial_;  ///< a line cut by the end of a read
  std::vector<std::string> messages_;
  std::uint64_t bad_lines_ = 0;
  std::uint64_t instructions_ = 0;
};

namespace detail {
// Hex digit values, -1 for anything else.
extern const std::int8_t hex_value[256];
}  // namespace detail

inline bool LackeyTraceParser::line(const char* p, const char* end) {
  // "I  0401ab70,3" or " L 1fff000608,8": the kind at 0 or 1, the address from 3.
  if (end - p < 6 || (p[0] != 'I' && p[0] != ' ') || p[2] != ' ') {
    message(p, end);
    return false;
  }
  const char kind = p[0] == 'I' ? 'I' : p[1];
  p += 3;
  std::uint64_t address = 0;
  int digits = 0;
  for (; p < end && *p != ','; ++p, ++digits) {
    const std::int8_t v = detail::hex_value[static_cast<unsigned char>(*p)];
    if (v < 0 || digits == 16) return ++bad_lines_, false;
    address = address << 4 | static_cast<std::uint64_t>(v);
  }
  if (p == end || digits == 0) return ++bad_lines_, false;
  std::uint32_t size = 0;
  for (++p; p < end; ++p) {
    const unsigned d = static_cast<unsigned>(*p - '0');
    if (d > 9 || size > 100000) return ++bad_lines_, false;
    size = size * 10 + d;
  }
  switch (kind) {
    case 'I':
      pending_ = current_;
      current_.ip = address;
      current_.size = size;
      current_.access_count = 0;
      ++instructions_;
      if (have_current_) return true;
      have_current_ = true;
      return false;
    case 'L':
    case 'S':
    case 'M': {
      if (!have_current_) return ++bad_lines_, false;
      if (current_.access_count < TraceInstruction::max_accesses)
        current_.accesses[current_.access_count] = {
            address, size, kind == 'L' ? AccessKind::load : kind == 'S' ? AccessKind::store : AccessKind::modify};
      ++current_.access_count;
      return false;
    }
    default: ++bad_lines_; return false;
  }
}

template <typename OnInstruction>
void LackeyTraceParser::feed(std::span<const char> bytes, OnInstruction&& on_instruction) {
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  auto complete = [&](const char* b, const char* e) {
    if (line(b, e)) {
      pending_.next_ip = current_.ip;
      on_instruction(static_cast<const TraceInstruction&>(pending_));
    }
  };
  if (!partial_.empty()) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (!nl) {
      partial_.append(p, end);
      return;
    }
    partial_.append(p, nl);
    complete(partial_.data(), partial_.data() + partial_.size());
    partial_.clear();
    p = nl + 1;
  }
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (!nl) {
      partial_.assign(p, end);
      return;
    }
    complete(p, nl);
    p = nl + 1;
  }
}

template <typename OnInstruction>
void LackeyTraceParser::finish(OnInstruction&& on_instruction) {
  if (!partial_.empty()) {
    const std::string last = std::move(partial_);
    partial_.clear();
    feed(std::span<const char>(last.data(), last.size()), on_instruction);
    if (!partial_.empty()) {  // no newline at the end
      const std::string rest = std::move(partial_);
      partial_.clear();
      if (line(rest.data(), rest.data() + rest.size())) {
        pending_.next_ip = current_.ip;
        on_instruction(static_cast<const TraceInstruction&>(pending_));
      }
    }
  }
  if (have_current_) {
    current_.next_ip = 0;
    on_instruction(static_cast<const TraceInstruction&>(current_));
    have_current_ = false;
  }
}

}  // namespace emulate
}  // namespace tagop
