#include <tagop/arm_spe/records.hpp>

#include <fmt/format.h>  // fmt::format

namespace tagop::arm_spe {

namespace {

// Whether any packet but padding has been added: an empty record between
// two ends (End after a Timestamp) is no sample.
bool empty(const SpeRecord& r) {
  return !r.pc && !r.branch_target && !r.data_virtual && !r.data_physical && !r.total_latency && !r.issue_latency &&
         !r.translation_latency && !r.context && !r.op_class && !r.has_events && !r.data_source && !r.timestamp;
}

}  // namespace

RecordStream decode_records(std::span<const std::byte> bytes) {
  RecordStream out;
  PacketStream stream = decode_packets(bytes);
  out.errors = std::move(stream.errors);
  SpeRecord r;
  bool started = false;
  auto close = [&](bool ended) {
    if (started && !empty(r)) {
      r.ended = ended;
      out.records.push_back(r);
    }
    r = SpeRecord{};
    started = false;
  };
  for (const Packet& p : stream.packets) {
    if (p.type == PacketType::padding || p.type == PacketType::alignment) continue;
    if (!started) r.offset = p.offset, started = true;
    switch (p.type) {
      case PacketType::end:
        close(true);
        break;
      case PacketType::timestamp:
        r.timestamp = p.payload;
        close(true);
        break;
      case PacketType::address: {
        const std::uint64_t a = canonical_address(p);
        switch (p.index) {
          case address_pc: {
            const AddressFields f = address_fields(p);
            r.pc = a, r.pc_el = f.el, r.pc_ns = f.ns;
            break;
          }
          case address_branch_target: r.branch_target = a; break;
          case address_data_virtual: r.data_virtual = a; break;
          case address_data_physical: r.data_physical = a; break;
          default:
            out.ignored.push_back({p.offset, fmt::format("address packet with index {} (not read)", p.index)});
        }
        break;
      }
      case PacketType::counter: {
        const auto v = static_cast<std::uint16_t>(p.payload);
        if (p.index == counter_total_latency) r.total_latency = v;
        else if (p.index == counter_issue_latency) r.issue_latency = v;
        else if (p.index == counter_translation_latency) r.translation_latency = v;
        else out.ignored.push_back({p.offset, fmt::format("counter packet with index {} (not read)", p.index)});
        break;
      }
      case PacketType::context: r.context = p.payload; break;
      case PacketType::operation_type:
        if (p.index > class_branch) {
          out.ignored.push_back({p.offset, fmt::format("operation type packet of class {} (reserved)", p.index)});
          break;
        }
        r.op_class = p.index;
        r.op_payload = static_cast<std::uint8_t>(p.payload);
        break;
      case PacketType::events:
        r.events = p.payload;
        r.has_events = true;
        break;
      case PacketType::data_source: r.data_source = p.payload; break;
      case PacketType::padding:
      case PacketType::alignment: break;
    }
  }
  close(false);
  return out;
}

}  // namespace tagop::arm_spe
