#pragma once
// An SPE packet encoder for the tests, written from the Arm ARM's packet
// formats (not from tagop's decoder): each function appends one packet's
// bytes, header first, payload little-endian.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace spe_bytes {

struct Buffer {
  std::vector<std::byte> bytes;

  void byte(unsigned b) { bytes.push_back(std::byte(b & 0xFF)); }
  void le(std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) byte(unsigned(v >> (8 * i)));
  }
  // sz field (header bits 5:4) for a payload of n bytes.
  static unsigned sz(unsigned n) { return n == 1 ? 0 : n == 2 ? 1 : n == 4 ? 2 : 3; }

  void pad() { byte(0x00); }
  void end() { byte(0x01); }
  void timestamp(std::uint64_t t) { byte(0x71), le(t, 8); }  // 0b0111_0001: sz=3
  // Address: 0b1011_0iii, 8 bytes; an index of 8 or more needs the
  // extended header 0b0010_00ii before it.
  void address(unsigned index, std::uint64_t payload) {
    if (index >= 8) byte(0x20 | (index >> 3));
    byte(0xB0 | (index & 7)), le(payload, 8);
  }
  // PC or branch target: bits 55:0 the address, 62:61 EL, 63 NS.
  static std::uint64_t code_address(std::uint64_t va, unsigned el, bool ns) {
    return (va & 0x00FFFFFFFFFFFFFFull) | (std::uint64_t(el) << 61) | (std::uint64_t(ns) << 63);
  }
  // Counter: 0b1001_1iii, 2 bytes.
  void counter(unsigned index, std::uint16_t cycles) {
    if (index >= 8) byte(0x20 | (index >> 3));
    byte(0x98 | (index & 7)), le(cycles, 2);
  }
  // Events: 0b01ss_0010, n bytes.
  void events(std::uint64_t bits, unsigned n = 2) { byte(0x42 | (sz(n) << 4)), le(bits, n); }
  // Data source: 0b01ss_0011.
  void data_source(std::uint64_t v, unsigned n = 2) { byte(0x43 | (sz(n) << 4)), le(v, n); }
  // Context: 0b0110_01ii (ii: 0 CONTEXTIDR_EL1, 1 _EL2), 4 bytes.
  void context(std::uint32_t id, unsigned el2 = 0) { byte(0x64 | el2), le(id, 4); }
  // Operation type: 0b0100_10cc, 1 byte.
  void op_type(unsigned cls, unsigned payload) { byte(0x48 | cls), le(payload, 1); }
  void load(unsigned subclass = 0) { op_type(1, subclass & 0xFE); }
  void store(unsigned subclass = 0) { op_type(1, (subclass & 0xFE) | 1); }
  void branch(bool conditional, bool indirect) { op_type(2, (indirect ? 2 : 0) | (conditional ? 1 : 0)); }
  void other() { op_type(0, 0); }
};

// Event bit numbers (Arm ARM, events packet).
inline constexpr unsigned retired = 1, l1d_access = 2, l1d_refill = 3, tlb_access = 4, tlb_walk = 5,
                          not_taken = 6, mispredicted = 7, llc_access = 8, llc_miss = 9, remote_access = 10,
                          alignment = 11;
inline constexpr std::uint64_t bit(unsigned n) { return std::uint64_t{1} << n; }

}  // namespace spe_bytes
