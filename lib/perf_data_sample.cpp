// The layout of PERF_RECORD_SAMPLE and of the sample_id_all trailer: every
// sample_type bit the kernel defines, in the order perf_output_sample()
// writes them. The uapi header's comment puts AUX before the page sizes and
// leaves CGROUP out; the kernel and perf's evsel__parse_sample() write and
// read PHYS_ADDR, CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE, then AUX, and so
// does this.

#include <bit>      // std::popcount
#include <cstddef>  // offsetof
#include <cstring>  // std::memcpy
#include <type_traits>  // std::is_standard_layout_v

#include <tagop/perf_data_reader.hpp>

namespace tagop::perf_data {

namespace {

class Cursor {
 public:
  explicit Cursor(std::span<const std::byte> body) : p_(body.data()), end_(body.data() + body.size()) {}

  bool u64(std::uint64_t& out) {
    if (end_ - p_ < 8) return false;
    std::memcpy(&out, p_, 8);
    p_ += 8;
    return true;
  }
  bool u32_pair(std::uint32_t& a, std::uint32_t& b) {
    if (end_ - p_ < 8) return false;
    std::memcpy(&a, p_, 4);
    std::memcpy(&b, p_ + 4, 4);
    p_ += 8;
    return true;
  }
  bool u32(std::uint32_t& out) {
    if (end_ - p_ < 4) return false;
    std::memcpy(&out, p_, 4);
    p_ += 4;
    return true;
  }
  bool bytes(std::uint64_t n, std::span<const std::byte>& out) {
    if (static_cast<std::uint64_t>(end_ - p_) < n) return false;
    out = {p_, static_cast<std::size_t>(n)};
    p_ += n;
    return true;
  }
  /// n elements of `each` bytes, without overflow in n * each.
  bool array(std::uint64_t n, std::uint64_t each, std::span<const std::byte>& out) {
    if (n > static_cast<std::uint64_t>(end_ - p_) / each) return false;
    return bytes(n * each, out);
  }

 private:
  const std::byte* p_;
  const std::byte* end_;
};

// read_format: a group gives nr then its members, else one value.
bool read_values(Cursor& c, std::uint64_t read_format, std::span<const std::byte>& out) {
  const std::uint64_t per_value = 1 + ((read_format & PERF_FORMAT_ID) ? 1 : 0) + ((read_format & PERF_FORMAT_LOST) ? 1 : 0);
  const std::uint64_t times = ((read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 1 : 0) +
                              ((read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 1 : 0);
  if (!(read_format & PERF_FORMAT_GROUP)) return c.array(per_value + times, 8, out);
  Cursor peek = c;
  std::uint64_t nr = 0;
  if (!peek.u64(nr)) return false;
  if (nr > (std::uint64_t{1} << 32)) return false;
  return c.array(1 + times + nr * per_value, 8, out);
}

bool regs(Cursor& c, std::uint64_t mask, std::uint64_t& abi, std::span<const std::byte>& out) {
  if (!c.u64(abi)) return false;
  if (abi == 0) return true;  // PERF_SAMPLE_REGS_ABI_NONE: no registers follow
  return c.array(static_cast<std::uint64_t>(std::popcount(mask)), 8, out);
}

}  // namespace

std::string_view parse_sample(const perf_event_attr& attr, std::span<const std::byte> body, SampleRecord& s) {
  const std::uint64_t t = attr.sample_type;
  s.sample_type = t;
  Cursor c(body);
  if ((t & PERF_SAMPLE_IDENTIFIER) && !c.u64(s.id.id)) return "IDENTIFIER";
  if ((t & PERF_SAMPLE_IP) && !c.u64(s.ip)) return "IP";
  if ((t & PERF_SAMPLE_TID) && !c.u32_pair(s.id.pid, s.id.tid)) return "TID";
  if ((t & PERF_SAMPLE_TIME) && !c.u64(s.id.time)) return "TIME";
  if ((t & PERF_SAMPLE_ADDR) && !c.u64(s.addr)) return "ADDR";
  if ((t & PERF_SAMPLE_ID) && !c.u64(s.id.id)) return "ID";
  if ((t & PERF_SAMPLE_STREAM_ID) && !c.u64(s.id.stream_id)) return "STREAM_ID";
  if (t & PERF_SAMPLE_CPU) {
    std::uint32_t reserved = 0;
    if (!c.u32_pair(s.id.cpu, reserved)) return "CPU";
  }
  if ((t & PERF_SAMPLE_PERIOD) && !c.u64(s.period)) return "PERIOD";
  if ((t & PERF_SAMPLE_READ) && !read_values(c, attr.read_format, s.read)) return "READ";
  if (t & PERF_SAMPLE_CALLCHAIN) {
    if (!c.u64(s.callchain_nr) || !c.array(s.callchain_nr, 8, s.callchain)) return "CALLCHAIN";
  }
  if (t & PERF_SAMPLE_RAW) {
    std::uint32_t size = 0;
    if (!c.u32(size) || !c.bytes(size, s.raw)) return "RAW";
  }
  if (t & PERF_SAMPLE_BRANCH_STACK) {
    if (!c.u64(s.branch_nr)) return "BRANCH_STACK";
    if ((attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) && !c.u64(s.branch_hw_index)) return "BRANCH_STACK";
    if (!c.array(s.branch_nr, 24, s.branches)) return "BRANCH_STACK";
  }
  if ((t & PERF_SAMPLE_REGS_USER) && !regs(c, attr.sample_regs_user, s.regs_user_abi, s.regs_user)) return "REGS_USER";
  if (t & PERF_SAMPLE_STACK_USER) {
    std::uint64_t size = 0;
    if (!c.u64(size) || !c.bytes(size, s.stack_user)) return "STACK_USER";
    if (size != 0 && !c.u64(s.stack_user_dyn_size)) return "STACK_USER";
  }
  if ((t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) && !c.u64(s.weight)) return "WEIGHT";
  if ((t & PERF_SAMPLE_DATA_SRC) && !c.u64(s.data_src)) return "DATA_SRC";
  if ((t & PERF_SAMPLE_TRANSACTION) && !c.u64(s.transaction)) return "TRANSACTION";
  if ((t & PERF_SAMPLE_REGS_INTR) && !regs(c, attr.sample_regs_intr, s.regs_intr_abi, s.regs_intr)) return "REGS_INTR";
  if ((t & PERF_SAMPLE_PHYS_ADDR) && !c.u64(s.phys_addr)) return "PHYS_ADDR";
  if ((t & PERF_SAMPLE_CGROUP) && !c.u64(s.cgroup)) return "CGROUP";
  if ((t & PERF_SAMPLE_DATA_PAGE_SIZE) && !c.u64(s.data_page_size)) return "DATA_PAGE_SIZE";
  if ((t & PERF_SAMPLE_CODE_PAGE_SIZE) && !c.u64(s.code_page_size)) return "CODE_PAGE_SIZE";
  if (t & PERF_SAMPLE_AUX) {
    std::uint64_t size = 0;
    if (!c.u64(size) || !c.bytes(size, s.aux)) return "AUX";
  }
  return {};
}

namespace {

// The fixed-size fields a sample may have before RAW, in the kernel's
// order: READ and CALLCHAIN, which also come before RAW, have sizes of
// their own and make a layout unusable. TID's pid and tid are adjacent in
// SampleId, so it is one 8-byte copy too; so is CPU, whose reserved u32
// lands in the padding after SampleId::cpu.
static_assert(std::is_standard_layout_v<SampleRecord>, "members are copied to by offset");
static_assert(offsetof(SampleId, tid) == offsetof(SampleId, pid) + 4);
static_assert(offsetof(SampleId, time) == offsetof(SampleId, cpu) + 8, "cpu has 4 bytes of padding after it");
constexpr std::uint16_t in_id(std::size_t member) { return static_cast<std::uint16_t>(offsetof(SampleRecord, id) + member); }

struct FixedField {
  std::uint64_t bit;
  std::uint16_t to;  // the member's offset in SampleRecord
};
constexpr std::uint16_t raw_field = 0xFFFF;  // not a copy
constexpr FixedField fixed_fields[] = {
    {PERF_SAMPLE_IDENTIFIER, in_id(offsetof(SampleId, id))},
    {PERF_SAMPLE_IP, offsetof(SampleRecord, ip)},
    {PERF_SAMPLE_TID, in_id(offsetof(SampleId, pid))},
    {PERF_SAMPLE_TIME, in_id(offsetof(SampleId, time))},
    {PERF_SAMPLE_ADDR, offsetof(SampleRecord, addr)},
    {PERF_SAMPLE_ID, in_id(offsetof(SampleId, id))},
    {PERF_SAMPLE_STREAM_ID, in_id(offsetof(SampleId, stream_id))},
    {PERF_SAMPLE_CPU, in_id(offsetof(SampleId, cpu))},
    {PERF_SAMPLE_PERIOD, offsetof(SampleRecord, period)},
    {PERF_SAMPLE_RAW, raw_field},  // its u32 size; the data follows
};

}  // namespace

FixedSampleLayout FixedSampleLayout::of(const perf_event_attr& attr, std::uint64_t wanted) {
  FixedSampleLayout l;
  std::uint64_t known = 0;
  for (const FixedField& f : fixed_fields) {
    known |= f.bit;
    if (!(attr.sample_type & f.bit)) continue;
    if (f.to == raw_field) {
      l.raw = static_cast<std::int16_t>(l.size);
      l.size = static_cast<std::uint16_t>(l.size + 4);
      continue;
    }
    if (wanted & f.bit) l.copies[l.copy_count++] = {l.size, f.to};  // else skipped over
    l.size = static_cast<std::uint16_t>(l.size + 8);
  }
  l.usable = (attr.sample_type & ~known) == 0;
  return l;
}

std::optional<std::uint16_t> fixed_offset(const perf_event_attr& attr, std::uint64_t field) {
  const FixedSampleLayout l = FixedSampleLayout::of(attr, field);
  if (!l.usable) return std::nullopt;
  if (field == PERF_SAMPLE_RAW) return l.raw >= 0 ? std::optional<std::uint16_t>(l.raw) : std::nullopt;
  return l.copy_count == 1 ? std::optional<std::uint16_t>(l.copies[0].from) : std::nullopt;
}

std::size_t sample_id_size(const perf_event_attr& attr) {
  if (!attr.sample_id_all) return 0;
  const std::uint64_t t = attr.sample_type;
  std::size_t n = 0;
  for (std::uint64_t bit : {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
                            PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER})
    if (t & bit) n += 8;
  return n;
}

bool parse_sample_id(const perf_event_attr& attr, std::span<const std::byte> body, SampleId& out) {
  const std::size_t size = sample_id_size(attr);
  if (size == 0) return true;
  if (body.size() < size) return false;
  Cursor c(body.subspan(body.size() - size));
  const std::uint64_t t = attr.sample_type;
  std::uint32_t reserved = 0;
  if (t & PERF_SAMPLE_TID) c.u32_pair(out.pid, out.tid);
  if (t & PERF_SAMPLE_TIME) c.u64(out.time);
  if (t & PERF_SAMPLE_ID) c.u64(out.id);
  if (t & PERF_SAMPLE_STREAM_ID) c.u64(out.stream_id);
  if (t & PERF_SAMPLE_CPU) c.u32_pair(out.cpu, reserved);
  if (t & PERF_SAMPLE_IDENTIFIER) c.u64(out.id);
  return true;
}

}  // namespace tagop::perf_data
