#include <tagop/arm_spe/packets.hpp>

#include <array>  // std::array

#include <fmt/format.h>  // fmt::format

namespace tagop::arm_spe {

namespace {

// The short headers (Arm ARM, "Packet formats"; perf's SPE_HEADER0_*).
// A header byte's bits 5:4, where the type has a payload, give its size:
// 1 << sz bytes.
constexpr HeaderLayout layouts[] = {
    {PacketType::padding, 0xFF, 0x00, 0x00, false, false},
    {PacketType::end, 0xFF, 0x01, 0x00, false, false},
    {PacketType::timestamp, 0xFF, 0x71, 0x00, true, false},
    {PacketType::events, 0xCF, 0x42, 0x00, true, false},
    {PacketType::data_source, 0xCF, 0x43, 0x00, true, false},
    {PacketType::context, 0xFC, 0x64, 0x03, true, false},
    {PacketType::operation_type, 0xFC, 0x48, 0x03, true, false},
    {PacketType::address, 0xF8, 0xB0, 0x07, true, true},
    {PacketType::counter, 0xF8, 0x98, 0x07, true, true},
};

// An extended header's first byte: 0b001000xx, xx the index's bits 4:3.
constexpr std::uint8_t extended_mask = 0xFC, extended_value = 0x20;
// After it, 0x00 makes an alignment packet.
constexpr std::uint8_t alignment_second_byte = 0x00;

constexpr EventBit events_table[] = {
    {ev_exception, "EXCEPTION-GEN", "the op generated an exception"},
    {ev_retired, "RETIRED", "the op retired (was not discarded after speculation)"},
    {ev_l1d_access, "L1D-ACCESS", "the op accessed the L1 data cache"},
    {ev_l1d_refill, "L1D-REFILL", "the op's access missed the L1 data cache and refilled it"},
    {ev_tlb_access, "TLB-ACCESS", "the op's access looked up the data TLB"},
    {ev_tlb_walk, "TLB-REFILL", "the op's access missed every TLB level and needed a translation table walk"},
    {ev_not_taken, "NOT-TAKEN", "the conditional branch was not taken"},
    {ev_mispredicted, "MISPRED", "the branch was mispredicted"},
    {ev_llc_access, "LLC-ACCESS", "the access looked up the last-level cache"},
    {ev_llc_miss, "LLC-REFILL", "the access missed the last-level cache"},
    {ev_remote_access, "REMOTE-ACCESS", "the access's data came from another socket"},
    {ev_alignment, "ALIGNMENT", "the access was misaligned (crossed an alignment boundary)"},
    {ev_sve_partial_predicate, "SVE-PARTIAL-PRED", "the SVE op had a partly active predicate"},
    {ev_sve_empty_predicate, "SVE-EMPTY-PRED", "the SVE op had an all-inactive predicate"},
};

std::uint64_t load_le(std::span<const std::byte> bytes, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t(std::to_integer<std::uint8_t>(bytes[at + i])) << (8 * i);
  return v;
}

PacketOrError failure(std::size_t offset, std::string reason) {
  return PacketOrError{std::nullopt, PacketError{offset, std::move(reason)}};
}

// Appends perf's words for an op-type packet; false where perf prints the
// raw payload instead (a class it does not know).
bool describe_operation(const Packet& p, std::string& out) {
  const std::uint64_t v = p.payload;
  switch (p.index) {
    case class_other:
      if ((v & 0x89) == 0x08) {
        out += fmt::format("SVE-OTHER EVLEN {}", 32 << ((v >> 4) & 7));
        if (v & 0x02) out += " FP";
        if (v & 0x04) out += " PRED";
      } else {
        out += (v & 1) ? "OTHER COND-SELECT" : "OTHER INSN-OTHER";
      }
      return true;
    case class_load_store: {
      out += (v & 1) ? "ST" : "LD";
      if ((v & 0xE2) == 0x02) {  // atomic, exclusive or acquire/release
        if (v & 0x04) out += " AT";
        if (v & 0x08) out += " EXCL";
        if (v & 0x10) out += " AR";
      }
      switch (v & 0xFE) {
        case 0x04: out += " SIMD-FP"; break;
        case 0x00: out += " GP-REG"; break;
        case 0x10: out += " UNSPEC-REG"; break;
        case 0x30: out += " NV-SYSREG"; break;
        default: break;
      }
      if ((v & 0x0A) == 0x08) {  // SVE load or store
        out += fmt::format(" EVLEN {}", 32 << ((v >> 4) & 7));
        if (v & 0x04) out += " PRED";
        if (v & 0x80) out += " SG";
      }
      return true;
    }
    case class_branch:
      out += "B";
      if (v & 1) out += " COND";
      if ((v & 0xFE) == 0x02) out += " IND";
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string_view packet_type_name(PacketType type) {
  switch (type) {
    case PacketType::padding: return "PAD";
    case PacketType::end: return "END";
    case PacketType::timestamp: return "TS";
    case PacketType::address: return "ADDR";
    case PacketType::counter: return "LAT";
    case PacketType::context: return "CONTEXT";
    case PacketType::operation_type: return "OP-TYPE";
    case PacketType::events: return "EVENTS";
    case PacketType::data_source: return "DATA-SOURCE";
    case PacketType::alignment: return "ALIGN";
  }
  return "?";
}

std::span<const HeaderLayout> header_layouts() { return layouts; }
std::span<const EventBit> event_bits() { return events_table; }

PacketOrError decode_packet(std::span<const std::byte> bytes, std::size_t offset) {
  if (offset >= bytes.size()) return failure(offset, "no data at this offset");
  const std::size_t left = bytes.size() - offset;
  std::uint8_t header = std::to_integer<std::uint8_t>(bytes[offset]);
  std::size_t header_size = 1;
  std::uint8_t index_high = 0;
  bool extended = false;
  if ((header & extended_mask) == extended_value) {
    if (left < 2)
      return failure(offset, fmt::format("extended header 0x{:02x} is the last byte of the data", header));
    extended = true;
    index_high = static_cast<std::uint8_t>((header & 0x03) << 3);
    const std::uint8_t second = std::to_integer<std::uint8_t>(bytes[offset + 1]);
    if (second == alignment_second_byte) {
      // Padding to a 2^(n+1)-byte boundary of the buffer.
      const std::size_t alignment = std::size_t{1} << ((header & 0x0F) + 1);
      const std::size_t size = alignment - (offset & (alignment - 1));
      if (size > left)
        return failure(offset, fmt::format("alignment packet to {} bytes needs {} bytes, {} are left", alignment,
                                           size, left));
      return PacketOrError{Packet{.offset = offset, .size = size, .type = PacketType::alignment}, {}};
    }
    header = second;
    header_size = 2;
  }
  for (const HeaderLayout& layout : layouts) {
    if ((header & layout.mask) != layout.value) continue;
    if (extended && !layout.may_be_extended) break;
    Packet p{.offset = offset, .type = layout.type};
    p.index = static_cast<std::uint8_t>(index_high | (header & layout.index_mask));
    if (layout.has_payload) p.payload_size = static_cast<std::uint8_t>(1u << ((header >> 4) & 3));
    p.size = header_size + p.payload_size;
    if (p.size > left)
      return failure(offset, fmt::format("{} packet of {} bytes runs past the end of the data ({} bytes left)",
                                         packet_type_name(p.type), p.size, left));
    p.payload = load_le(bytes, offset + header_size, p.payload_size);
    return PacketOrError{p, {}};
  }
  return failure(offset, extended ? fmt::format("extended header 0x{:02x} 0x{:02x} names no address or counter packet",
                                                std::to_integer<std::uint8_t>(bytes[offset]), header)
                                  : fmt::format("unknown header byte 0x{:02x}", header));
}

PacketStream decode_packets(std::span<const std::byte> bytes) {
  PacketStream out;
  for (std::size_t at = 0; at < bytes.size();) {
    PacketOrError r = decode_packet(bytes, at);
    if (r.packet) {
      at += r.packet->size;
      out.packets.push_back(*r.packet);
    } else {
      out.errors.push_back(std::move(r.error));
      at += 1;  // as perf: the next byte may start a packet
    }
  }
  return out;
}

AddressFields address_fields(const Packet& p) {
  const std::uint64_t v = p.payload;
  AddressFields f;
  f.address = v & ((std::uint64_t{1} << 56) - 1);
  switch (p.index) {
    case address_pc:
    case address_branch_target:
    case address_prev_branch:
      f.ns = (v >> 63) & 1;
      f.el = (v >> 61) & 3;
      break;
    case address_data_virtual:
      f.tag = static_cast<unsigned>(v >> 56);
      break;
    case address_data_physical:
      f.ns = (v >> 63) & 1;
      f.ch = (v >> 62) & 1;
      f.pat = (v >> 56) & 0xF;
      break;
    default:
      break;
  }
  return f;
}

std::uint64_t canonical_address(const Packet& p) {
  const AddressFields f = address_fields(p);
  std::uint64_t a = f.address;
  switch (p.index) {
    case address_pc:
    case address_branch_target:
      if (f.ns && (f.el == 1 || f.el == 2)) a |= std::uint64_t{0xFF} << 56;
      break;
    case address_data_virtual:
      if (((a >> 52) & 0xF) == 0xF) a |= std::uint64_t{0xFF} << 56;
      break;
    default:
      break;
  }
  return a;
}

std::string describe(const Packet& p) {
  const std::string_view name = packet_type_name(p.type);
  std::string out;
  bool known = true;
  switch (p.type) {
    case PacketType::padding:
    case PacketType::end:
    case PacketType::alignment:
      out = name;
      break;
    case PacketType::timestamp:
    case PacketType::data_source:
      out = fmt::format("{} {}", name, static_cast<long long>(p.payload));
      break;
    case PacketType::context:
      out = fmt::format("{} 0x{:x} el{}", name, p.payload, p.index + 1);
      break;
    case PacketType::events:
      out = "EV";
      for (const EventBit& e : events_table)
        if ((p.payload >> e.bit) & 1) out += fmt::format(" {}", e.name);
      break;
    case PacketType::counter:
      out = fmt::format("{} {} ", name, static_cast<unsigned short>(p.payload));
      if (p.index == counter_total_latency) out += "TOT";
      if (p.index == counter_issue_latency) out += "ISSUE";
      if (p.index == counter_translation_latency) out += "XLAT";
      break;
    case PacketType::operation_type:
      known = describe_operation(p, out);
      break;
    case PacketType::address: {
      const AddressFields f = address_fields(p);
      static constexpr std::array<std::string_view, 2> code_names{"PC", "TGT"};
      if (p.index == address_pc || p.index == address_branch_target)
        out = fmt::format("{} 0x{:x} el{} ns={}", code_names[p.index], f.address, f.el, int(f.ns));
      else if (p.index == address_data_virtual)
        out = fmt::format("VA 0x{:x}", p.payload);
      else if (p.index == address_data_physical)
        out = fmt::format("PA 0x{:x} ns={} ch={} pat={:x}", f.address, int(f.ns), int(f.ch), f.pat);
      else
        known = false;
      break;
    }
  }
  // perf prints what it cannot name as the raw payload and index.
  if (!known) out = fmt::format("{} 0x{:x} ({})", name, p.payload, p.index);
  return out;
}

}  // namespace tagop::arm_spe
