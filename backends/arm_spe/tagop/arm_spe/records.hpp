#pragma once
// Arm SPE records: the packets of one sampled operation, gathered. A record
// ends at an End packet or at a Timestamp packet (which belongs to it);
// padding and alignment packets lie between packets and mean nothing.
//
//   RecordStream s = decode_records(aux_bytes);
//   for (const SpeRecord& r : s.records) if (r.is_load()) ...
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstddef>      // std::byte, std::size_t
#include <cstdint>      // std::uint16_t, std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/arm_spe/packets.hpp>  // Packet, PacketError

namespace tagop TAGOP_API {
namespace arm_spe {

/// One sampled operation's packets, read.
struct SpeRecord {
  std::size_t offset = 0;  ///< of its first packet in the buffer
  std::optional<std::uint64_t> pc;             ///< the op's instruction address (canonical_address)
  std::optional<std::uint64_t> branch_target;  ///< a branch's target
  std::optional<std::uint64_t> data_virtual;   ///< the access's virtual address (its tag removed)
  std::optional<std::uint64_t> data_physical;  ///< the access's physical address
  unsigned pc_el = 0;     ///< the exception level the op ran at (PC packet)
  bool pc_ns = false;     ///< Non-secure state (PC packet)
  std::optional<std::uint16_t> total_latency;        ///< cycles from dispatch to completion
  std::optional<std::uint16_t> issue_latency;        ///< cycles from dispatch to issue
  std::optional<std::uint16_t> translation_latency;  ///< cycles to translate the data address
  std::optional<std::uint64_t> context;  ///< CONTEXTIDR (the thread id, where the kernel writes it)
  std::optional<std::uint8_t> op_class;  ///< OperationClass
  std::uint8_t op_payload = 0;           ///< the op-type packet's payload (subclass bits)
  std::uint64_t events = 0;              ///< the events packet's bits (0 when none)
  bool has_events = false;               ///< an events packet was present
  std::optional<std::uint64_t> data_source;  ///< implementation-defined (see data_sources.hpp)
  std::optional<std::uint64_t> timestamp;    ///< the generic timer's count
  bool ended = false;  ///< closed by End or Timestamp (false: the buffer ended inside it)

  /// Whether event bit `bit` (EventBitNumber) is set.
  bool event(unsigned bit) const { return (events >> bit) & 1; }
  bool is_load() const { return op_class == class_load_store && !(op_payload & 1); }   ///< a load (or a load-type atomic)
  bool is_store() const { return op_class == class_load_store && (op_payload & 1); }   ///< a store
  bool is_branch() const { return op_class == class_branch; }                         ///< a branch or exception return
  bool is_conditional_branch() const { return is_branch() && (op_payload & 1); }      ///< COND
  bool is_indirect_branch() const { return is_branch() && (op_payload & 0xFE) == 0x02; }  ///< IND, as perf 6.1 reads it
};

/// The records of a buffer, and the packets that could not be decoded.
struct RecordStream {
  std::vector<SpeRecord> records;   ///< in buffer order
  std::vector<PacketError> errors;  ///< the bytes that started no packet
  /// Packets that made no sense where they stood (an address packet with an
  /// index this decoder does not know), with their offsets.
  std::vector<PacketError> ignored;
};

/// Decodes a buffer of SPE packets into records. A damaged byte is
/// reported and skipped, as `decode_packets` does; records around it are
/// kept. A last record that the buffer ends inside is kept with `ended`
/// false.
RecordStream decode_records(std::span<const std::byte> bytes);

}  // namespace arm_spe
}  // namespace tagop
