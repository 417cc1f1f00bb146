#pragma once
// Arm SPE (Statistical Profiling Extension) packets: the bytes the
// profiling buffer holds and `perf record -e arm_spe//` copies into
// PERF_RECORD_AUXTRACE. Each packet is a one-byte header (or a two-byte
// extended header for address and counter packets with a large index),
// then a payload of 0, 1, 2, 4 or 8 bytes, little-endian. The header
// formats are declared once, in `header_layouts()`, and the decoder
// walks that table; field layouts of the payloads are tables too.
//
// Source: Arm ARM (DDI 0487), chapter "Statistical Profiling Extension",
// section "Packet formats"; perf's tools/perf/util/arm-spe-decoder/.
//
//   for (const Packet& p : decode_packets(bytes).packets) fmt::print("{}\n", describe(p));
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstddef>      // std::byte, std::size_t
#include <cstdint>      // std::uint8_t, std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {
namespace arm_spe {

/// What a packet is, by its header.
enum class PacketType : std::uint8_t {
  padding,         ///< 0x00: no payload
  end,             ///< 0x01: ends a record that has no timestamp
  timestamp,       ///< 0x71: the generic timer's count; ends a record
  address,         ///< 0xB0-0xB7 (or extended): PC, branch target, data VA or PA
  counter,         ///< 0x98-0x9F (or extended): total, issue or translation latency
  context,         ///< 0x64-0x67: CONTEXTIDR_EL1 or _EL2
  operation_type,  ///< 0x48-0x4B: other, load/store/atomic, or branch
  events,          ///< 0x42/0x52/0x62/0x72: what happened to the op, a bit each
  data_source,     ///< 0x43/0x53/0x63/0x73: where a load's data came from (implementation defined)
  alignment,       ///< extended header 0x20 0x00-0x0F: padding to a power-of-two boundary
};

/// "PAD", "END", "TS", "ADDR", "LAT", "CONTEXT", "OP-TYPE", "EVENTS",
/// "DATA-SOURCE", "ALIGN": perf's names for the packet types.
std::string_view packet_type_name(PacketType type);

/// One header format: a header byte `b` is of this type when
/// `(b & mask) == value`. Address and counter headers may also come after
/// an extended-header byte (0x20-0x23), which adds two high index bits.
struct HeaderLayout {
  PacketType type;            ///< what a header of this format starts
  std::uint8_t mask;          ///< the bits that identify the type
  std::uint8_t value;         ///< their value
  std::uint8_t index_mask;    ///< the bits of the header that are the packet's index (0: none)
  bool has_payload;           ///< false for padding and end
  bool may_be_extended;       ///< address and counter packets
};

/// The short-header formats, in the order they are tried (none overlaps).
std::span<const HeaderLayout> header_layouts();

/// Address packet indexes (the header's index field).
enum AddressIndex : std::uint8_t {
  address_pc = 0,              ///< the sampled op's instruction address, with EL and NS
  address_branch_target = 1,   ///< a branch's target, with EL and NS
  address_data_virtual = 2,    ///< the data access's virtual address, with a top-byte tag
  address_data_physical = 3,   ///< the data access's physical address, with NS, CH and PAT
  address_prev_branch = 4,     ///< the previous taken branch's target (SPEv1p2)
};

/// Counter packet indexes.
enum CounterIndex : std::uint8_t {
  counter_total_latency = 0,        ///< cycles from dispatch to completion
  counter_issue_latency = 1,        ///< cycles from dispatch to issue
  counter_translation_latency = 2,  ///< cycles to translate the data address
};

/// Operation-type classes (the op-type header's low two bits).
enum OperationClass : std::uint8_t {
  class_other = 0,        ///< neither a memory op nor a branch
  class_load_store = 1,   ///< load, store or atomic
  class_branch = 2,       ///< branch or exception return
};

/// One decoded packet.
struct Packet {
  std::size_t offset = 0;      ///< of the header in the buffer
  std::size_t size = 0;        ///< header and payload, in bytes
  PacketType type = PacketType::padding;  ///< by its header
  std::uint8_t index = 0;      ///< address/counter index, context EL, op-type class
  std::uint8_t payload_size = 0;  ///< bytes: 0, 1, 2, 4 or 8
  std::uint64_t payload = 0;   ///< little-endian, as stored
};

/// Why a packet could not be decoded.
struct PacketError {
  std::size_t offset = 0;  ///< of the byte that could not start a packet
  std::string reason;      ///< "unknown header byte 0x05", "payload runs past the end of the data ..."
};

/// The packet at `bytes[offset]`, or the reason there is none. Never reads
/// past the span.
struct PacketOrError {
  std::optional<Packet> packet;  ///< the packet, when there is one
  PacketError error;  ///< when !packet
};
PacketOrError decode_packet(std::span<const std::byte> bytes, std::size_t offset);

/// Every packet of a buffer, in order. A byte that starts no packet is
/// reported and skipped (one byte, as perf does), and decoding goes on.
struct PacketStream {
  std::vector<Packet> packets;      ///< in buffer order
  std::vector<PacketError> errors;  ///< the bytes that started no packet, in buffer order
};
PacketStream decode_packets(std::span<const std::byte> bytes);

/// One named bit of the events packet.
struct EventBit {
  std::uint8_t bit;              ///< its bit in the payload
  std::string_view name;         ///< perf's name: "L1D-REFILL"
  std::string_view description;  ///< the Arm ARM's meaning
};

/// The events packet's bits that the Arm ARM names, in bit order.
std::span<const EventBit> event_bits();

/// Event bit numbers.
enum EventBitNumber : std::uint8_t {
  ev_exception = 0,
  ev_retired = 1,
  ev_l1d_access = 2,
  ev_l1d_refill = 3,
  ev_tlb_access = 4,
  ev_tlb_walk = 5,
  ev_not_taken = 6,
  ev_mispredicted = 7,
  ev_llc_access = 8,
  ev_llc_miss = 9,
  ev_remote_access = 10,
  ev_alignment = 11,
  ev_sve_partial_predicate = 17,
  ev_sve_empty_predicate = 18,
};

/// The address of an address packet (bits 55:0), with the fields its index
/// carries: EL and NS for instruction addresses, the top-byte tag for data
/// virtual addresses, NS, CH and PAT for physical ones.
struct AddressFields {
  std::uint64_t address = 0;  ///< bits 55:0 of the payload
  unsigned el = 0;            ///< bits 62:61 (PC, branch target)
  bool ns = false;            ///< bit 63 (PC, branch target, PA)
  bool ch = false;            ///< bit 62 (PA): checked access (MTE)
  unsigned pat = 0;           ///< bits 59:56 (PA): physical address tag
  unsigned tag = 0;           ///< bits 63:56 (VA): the top-byte tag
};
AddressFields address_fields(const Packet& p);

/// The address as a 64-bit virtual address the way perf reads it: an
/// instruction address at EL1 or EL2 in Non-secure state, and a data
/// address whose bits 55:52 are all ones, are kernel addresses with a top
/// byte of 0xFF; otherwise the top byte is cleared.
std::uint64_t canonical_address(const Packet& p);

/// The packet in the words perf's `perf report -D` prints after the bytes
/// ("PC 0xffff800008123456 el1 ns=1", "EV RETIRED L1D-ACCESS", "LAT 12 TOT",
/// "LD GP-REG", "B COND"), so that a dump can be compared with perf's.
std::string describe(const Packet& p);

}  // namespace arm_spe
}  // namespace tagop
