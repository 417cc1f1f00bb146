#include <tagop/emulate/tool_trace.hpp>

#include <algorithm>  // std::min, std::sort
#include <cstring>    // std::memcpy

namespace tagop::emulate {

namespace {

template <typename T>
T read_at(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

ToolTraceParser::ToolTraceParser(std::uint32_t root) { released_.insert(root); }

void ToolTraceParser::feed(std::span<const char> bytes, ToolTraceSink& sink) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const unsigned char* end = p + bytes.size();
  // A frame begun in the last read: complete it first.
  if (!partial_.empty()) {
    std::size_t want = header_size;
    if (partial_.size() >= 8) want = read_at<std::uint32_t>(reinterpret_cast<const unsigned char*>(partial_.data()) + 4);
    while (p < end && (partial_.size() < want || partial_.size() < 8)) {
      if (partial_.size() < 8) {
        partial_.push_back(static_cast<char>(*p++));
        if (partial_.size() == 8)
          want = read_at<std::uint32_t>(reinterpret_cast<const unsigned char*>(partial_.data()) + 4);
        if (want < header_size || want > 65536) break;
        continue;
      }
      const std::size_t take = std::min<std::size_t>(want - partial_.size(), static_cast<std::size_t>(end - p));
      partial_.append(reinterpret_cast<const char*>(p), take);
      p += take;
    }
    if (partial_.size() >= 8 && (want < header_size || want > 65536)) {
      ++bad_frames_;  // not a frame: the stream cannot be resynchronised
      partial_.clear();
      return;
    }
    if (partial_.size() < 8 || partial_.size() < want) return;
    const std::string whole = std::move(partial_);
    partial_.clear();
    frame(reinterpret_cast<const unsigned char*>(whole.data()), whole.size(), sink);
  }
  while (p < end) {
    const std::size_t left = static_cast<std::size_t>(end - p);
    if (left < 8) {
      partial_.assign(reinterpret_cast<const char*>(p), left);
      return;
    }
    std::size_t length = read_at<std::uint32_t>(p + 4);
    if (read_at<std::uint32_t>(p) != magic || length < header_size || length > 65536) {
      // Not a frame: the stream is damaged and cannot be resynchronised.
      ++bad_frames_;
      return;
    }
    if (left < length) {
      partial_.assign(reinterpret_cast<const char*>(p), left);
      return;
    }
    frame(p, length, sink);
    p += length;
  }
}

void ToolTraceParser::frame(const unsigned char* p, std::size_t n, ToolTraceSink& sink) {
  if (n < header_size || read_at<std::uint32_t>(p) != magic) {
    ++bad_frames_;
    return;
  }
  const auto pid = read_at<std::uint32_t>(p + 8);
  const auto tid = read_at<std::uint32_t>(p + 12);
  if (!released_.contains(pid)) {
    held_[pid].emplace_back(reinterpret_cast<const char*>(p), n);
    return;
  }
  records(pid, tid, p + header_size, p + n, sink);
}

void ToolTraceParser::hand_on(std::uint32_t pid, std::uint32_t tid, Thread& t, std::uint64_t next_ip,
                              ToolTraceSink& sink) {
  t.pending.next_ip = next_ip;
  t.have = false;
  sink.instruction(pid, tid, t.pending);
}

void ToolTraceParser::records(std::uint32_t pid, std::uint32_t tid, const unsigned char* p,
                              const unsigned char* end, ToolTraceSink& sink) {
  Thread* t = &thread(pid, tid);
  const auto damaged = [&] { ++bad_frames_; };
  while (p < end) {
    const std::size_t left = static_cast<std::size_t>(end - p);
    switch (*p) {
      case 'I': {
        if (left < 10) return damaged();
        const auto ip = read_at<std::uint64_t>(p + 2);
        if (t->have) hand_on(pid, tid, *t, ip, sink);
        t->pending.ip = ip;
        t->pending.size = p[1] & 0x1fU;
        t->pending.valgrind_exits = static_cast<std::int8_t>(p[1] >> 5);
        t->pending.access_count = 0;
        t->have = true;
        ++instructions_;
        p += 10;
        break;
      }
      case 'L':
      case 'S':
      case 'M': {
        if (left < 11) return damaged();
        if (t->have) {
          TraceInstruction& i = t->pending;
          if (i.access_count < TraceInstruction::max_accesses)
            i.accesses[i.access_count] = {read_at<std::uint64_t>(p + 3), read_at<std::uint16_t>(p + 1),
                                          *p == 'L'   ? AccessKind::load
                                          : *p == 'S' ? AccessKind::store
                                                      : AccessKind::modify};
          ++i.access_count;
        }
        p += 11;
        break;
      }
      case 'T': {
        if (left < 5) return damaged();
        tid = read_at<std::uint32_t>(p + 1);
        t = &thread(pid, tid);
        p += 5;
        break;
      }
      case 'X': {
        if (left < 7) return damaged();
        const std::size_t n = read_at<std::uint16_t>(p + 5);
        if (left < 7 + n) return damaged();
        end_process(pid, sink);
        sink.program(pid, read_at<std::uint32_t>(p + 1), std::string(reinterpret_cast<const char*>(p + 7), n));
        t = &thread(pid, tid);
        p += 7 + n;
        break;
      }
      case 'F': {
        if (left < 5) return damaged();
        const auto child = read_at<std::uint32_t>(p + 1);
        // The fork's own instruction is done in both processes: hand it on
        // (it returns to the next instruction) before the state is copied.
        if (t->have) hand_on(pid, tid, *t, t->pending.ip + t->pending.size, sink);
        if (!released_.contains(child)) {
          sink.forked(pid, child);
          release(child, sink);
        }
        p += 5;
        break;
      }
      case 'P': {
        if (left < 27) return damaged();
        const std::size_t n = read_at<std::uint16_t>(p + 25);
        if (left < 27 + n) return damaged();
        const auto start = read_at<std::uint64_t>(p + 1);
        sink.mapping(pid, {.start = start, .end = start + read_at<std::uint64_t>(p + 9),
                           .pgoff = read_at<std::uint64_t>(p + 17),
                           .path = std::string(reinterpret_cast<const char*>(p + 27), n)});
        p += 27 + n;
        break;
      }
      default: return damaged();
    }
  }
}

// Each thread of `pid` ends (an exec replaces them all): their last instructions go on.
void ToolTraceParser::end_process(std::uint32_t pid, ToolTraceSink& sink) {
  for (auto it = threads_.begin(); it != threads_.end();) {
    if (it->first >> 32 != pid) {
      ++it;
      continue;
    }
    if (it->second.have) hand_on(pid, static_cast<std::uint32_t>(it->first), it->second, 0, sink);
    it = threads_.erase(it);
  }
}

void ToolTraceParser::release(std::uint32_t pid, ToolTraceSink& sink) {
  released_.insert(pid);
  const auto it = held_.find(pid);
  if (it == held_.end()) return;
  const std::vector<std::string> frames = std::move(it->second);
  held_.erase(it);
  for (const std::string& f : frames) frame(reinterpret_cast<const unsigned char*>(f.data()), f.size(), sink);
}

void ToolTraceParser::finish(ToolTraceSink& sink) {
  if (!partial_.empty()) ++bad_frames_;  // a frame cut short
  partial_.clear();
  // Children whose fork never showed (their parent's trace was lost): on their own.
  while (!held_.empty()) release(held_.begin()->first, sink);
  std::vector<std::uint64_t> keys;
  for (const auto& [key, t] : threads_)
    if (t.have) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (std::uint64_t key : keys)
    hand_on(static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key), threads_[key], 0, sink);
  threads_.clear();
}

}  // namespace tagop::emulate
