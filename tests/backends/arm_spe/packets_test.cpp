// The SPE packet and record decoder on packets built from the Arm ARM's
// formats (spe_bytes.hpp), with every expected value worked out by hand
// from the spec, and on damaged and random input.

#include <catch2/catch.hpp>

#include <tagop/arm_spe/packets.hpp>
#include <tagop/arm_spe/records.hpp>

#include "../../splitmix.hpp"
#include "spe_bytes.hpp"

using namespace tagop::arm_spe;
using namespace spe_bytes;

TEST_CASE("SPE short headers decode to their type index and payload size", "[spe]") {
  struct Row {
    std::vector<unsigned> bytes;
    PacketType type;
    unsigned index, payload_size;
    std::uint64_t payload;
  };
  // Headers by hand: 0xB3 = address index 3 (sz 11: 8 bytes); 0x9A =
  // counter index 2 (sz 01: 2 bytes); 0x62 = events sz 10 (4 bytes); 0x53 =
  // data source sz 01; 0x65 = context EL2 sz 10; 0x4A = op type class 2.
  const Row rows[] = {
      {{0x00}, PacketType::padding, 0, 0, 0},
      {{0x01}, PacketType::end, 0, 0, 0},
      {{0x71, 1, 2, 3, 4, 5, 6, 7, 8}, PacketType::timestamp, 0, 8, 0x0807060504030201},
      {{0xB3, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80}, PacketType::address, 3, 8, 0x8070605040302010},
      {{0x9A, 0x34, 0x12}, PacketType::counter, 2, 2, 0x1234},
      {{0x62, 0x0E, 0x00, 0x02, 0x00}, PacketType::events, 0, 4, 0x0002000E},
      {{0x53, 0x0B, 0x00}, PacketType::data_source, 0, 2, 0x000B},
      {{0x65, 0x2A, 0, 0, 0}, PacketType::context, 1, 4, 42},
      {{0x4A, 0x03}, PacketType::operation_type, 2, 1, 3},
      // Extended header 0x21: index bits 4:3 = 01, then 0xB2: index 2 -> 10.
      {{0x21, 0xB2, 1, 0, 0, 0, 0, 0, 0, 0}, PacketType::address, 10, 8, 1},
      {{0x23, 0x9F, 5, 0}, PacketType::counter, 31, 2, 5},
  };
  for (const Row& row : rows) {
    std::vector<std::byte> b;
    for (unsigned x : row.bytes) b.push_back(std::byte(x));
    const PacketOrError r = decode_packet(b, 0);
    INFO("header 0x" << std::hex << row.bytes[0]);
    REQUIRE(r.packet);
    CHECK(r.packet->type == row.type);
    CHECK(unsigned(r.packet->index) == row.index);
    CHECK(unsigned(r.packet->payload_size) == row.payload_size);
    CHECK(r.packet->payload == row.payload);
    CHECK(r.packet->size == row.bytes.size());
  }
}

TEST_CASE("SPE address packets give EL NS and perf's canonical addresses", "[spe]") {
  Buffer b;
  // A user PC at EL0, Non-secure: the top byte is cleared.
  b.address(address_pc, Buffer::code_address(0x401234, 0, true));
  // A kernel PC at EL1, Non-secure: 0xffff800008123456 stored as its low
  // 56 bits, so the top byte 0xff comes back.
  b.address(address_pc, Buffer::code_address(0xffff800008123456, 1, true));
  // A data VA with a top-byte tag 0x5a: the tag is not part of the address.
  b.address(address_data_virtual, 0x5a00007ffc001000);
  // A kernel data VA (bits 55:52 all ones) gets 0xff back on top.
  b.address(address_data_virtual, 0x00ff000012345678);
  // A PA with NS=1 CH=0 PAT=3.
  b.address(address_data_physical, 0x8300000087654000);
  const PacketStream s = decode_packets(b.bytes);
  REQUIRE(s.errors.empty());
  REQUIRE(s.packets.size() == 5);
  CHECK(canonical_address(s.packets[0]) == 0x401234);
  CHECK(address_fields(s.packets[0]).el == 0);
  CHECK(address_fields(s.packets[0]).ns);
  CHECK(canonical_address(s.packets[1]) == 0xffff800008123456);
  CHECK(address_fields(s.packets[1]).el == 1);
  CHECK(canonical_address(s.packets[2]) == 0x00007ffc001000);
  CHECK(address_fields(s.packets[2]).tag == 0x5a);
  CHECK(canonical_address(s.packets[3]) == 0xffff000012345678);
  CHECK(canonical_address(s.packets[4]) == 0x87654000);
  CHECK(address_fields(s.packets[4]).pat == 3);
  CHECK(address_fields(s.packets[4]).ns);
  CHECK_FALSE(address_fields(s.packets[4]).ch);
  CHECK(describe(s.packets[1]) == "PC 0xff800008123456 el1 ns=1");
  CHECK(describe(s.packets[4]) == "PA 0x87654000 ns=1 ch=0 pat=3");
}

TEST_CASE("SPE records end at End or Timestamp and keep every field", "[spe]") {
  Buffer b;
  // A load that missed the L1D, at EL0.
  b.address(address_pc, Buffer::code_address(0x400100, 0, true));
  b.events(bit(retired) | bit(l1d_access) | bit(l1d_refill) | bit(tlb_access));
  b.load();
  b.data_source(0x8);
  b.counter(counter_total_latency, 120);
  b.counter(counter_issue_latency, 7);
  b.address(address_data_virtual, 0x7ffc0010);
  b.counter(counter_translation_latency, 3);
  b.address(address_data_physical, 0x8000000000abc000);  // NS=1
  b.context(1234);
  b.timestamp(0x1000);
  b.pad(), b.pad();
  // A mispredicted conditional branch, taken, ended by End.
  b.address(address_pc, Buffer::code_address(0x400200, 0, true));
  b.branch(true, false);
  b.events(bit(retired) | bit(mispredicted));
  b.address(address_branch_target, Buffer::code_address(0x400400, 0, true));
  b.counter(counter_total_latency, 2);
  b.end();
  // An indirect branch in a record the buffer ends inside.
  b.address(address_pc, Buffer::code_address(0x400300, 0, true));
  b.branch(false, true);
  const RecordStream s = decode_records(b.bytes);
  CHECK(s.errors.empty());
  REQUIRE(s.records.size() == 3);
  const SpeRecord& load = s.records[0];
  CHECK(load.offset == 0);
  CHECK(load.pc == 0x400100u);
  CHECK(load.is_load());
  CHECK_FALSE(load.is_store());
  CHECK(load.event(ev_l1d_refill));
  CHECK_FALSE(load.event(ev_tlb_walk));
  CHECK(load.data_source == 8u);
  CHECK(load.total_latency == 120);
  CHECK(load.issue_latency == 7);
  CHECK(load.translation_latency == 3);
  CHECK(load.data_virtual == 0x7ffc0010u);
  CHECK(load.data_physical == 0xabc000u);
  CHECK(load.context == 1234u);
  CHECK(load.timestamp == 0x1000u);
  CHECK(load.ended);
  const SpeRecord& br = s.records[1];
  CHECK(br.is_conditional_branch());
  CHECK_FALSE(br.is_indirect_branch());
  CHECK(br.event(ev_mispredicted));
  CHECK(br.branch_target == 0x400400u);
  CHECK_FALSE(br.timestamp);
  CHECK(br.ended);
  CHECK(s.records[2].is_indirect_branch());
  CHECK_FALSE(s.records[2].ended);
}

TEST_CASE("SPE damaged packets are reported with their offsets and skipped", "[spe]") {
  SECTION("a packet cut short by the end of the data") {
    Buffer b;
    b.address(address_pc, 0x400000);
    b.end();
    b.counter(counter_total_latency, 9);
    b.bytes.pop_back();  // the counter's last payload byte
    const PacketStream s = decode_packets(b.bytes);
    REQUIRE(s.packets.size() == 2);
    // The counter header at 10 and its one payload byte at 11 start no packet.
    REQUIRE(s.errors.size() == 2);
    CHECK(s.errors[0].offset == 10);
    CHECK(s.errors[0].reason.find("runs past the end") != std::string::npos);
  }
  SECTION("an unknown header between two records") {
    Buffer b;
    b.other();
    b.end();
    b.byte(0x05);  // 0b0000_0101: no packet has this header
    b.other();
    b.end();
    const RecordStream s = decode_records(b.bytes);
    REQUIRE(s.errors.size() == 1);
    CHECK(s.errors[0].offset == 3);
    CHECK(s.errors[0].reason == "unknown header byte 0x05");
    CHECK(s.records.size() == 2);
  }
  SECTION("an extended header as the last byte") {
    Buffer b;
    b.end();
    b.byte(0x21);
    const PacketStream s = decode_packets(b.bytes);
    REQUIRE(s.errors.size() == 1);
    CHECK(s.errors[0].offset == 1);
  }
  SECTION("an extended header before a byte that is no address or counter") {
    Buffer b;
    b.byte(0x20), b.byte(0x42), b.byte(0), b.byte(0);
    const PacketOrError r = decode_packet(b.bytes, 0);
    CHECK_FALSE(r.packet);
    CHECK(r.error.reason.find("names no address or counter packet") != std::string::npos);
  }
}

TEST_CASE("SPE random bytes never make the decoder read past its input", "[spe]") {
  std::uint64_t state = 37;
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::byte> bytes(splitmix(state) % 64);
    for (std::byte& x : bytes) x = std::byte(splitmix(state) & 0xFF);
    const RecordStream s = decode_records(bytes);
    std::size_t covered = 0;
    for (const PacketError& e : s.errors) {
      CHECK(e.offset < bytes.size());
      ++covered;
    }
    const PacketStream p = decode_packets(bytes);
    for (const Packet& pk : p.packets) {
      CHECK(pk.offset + pk.size <= bytes.size());
      covered += pk.size;
    }
    // Every byte is in one packet or one error.
    CHECK(covered == bytes.size());
  }
}
