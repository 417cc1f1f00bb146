#pragma once
// The IBS registers: their names as the AMD manuals spell them, their MSR
// addresses, and a raw sample as the hardware (or perf's raw payload) gives
// it.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int16_t, std::uint8_t, std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {
namespace amd_ibs {

enum class IbsUnit : std::uint8_t { fetch, op };

enum class IbsRegister : std::uint8_t {
  IbsFetchCtl,
  IbsFetchLinAd,
  IbsFetchPhysAd,
  IbsFetchCtlExtd,
  IbsOpCtl,
  IbsOpRip,
  IbsOpData,
  IbsOpData2,
  IbsOpData3,
  IbsDcLinAd,
  IbsDcPhysAd,
  IbsBrTarget,
  IbsOpData4,
  IbsCtl,
};

struct RegisterInfo {
  IbsRegister id;
  std::string_view name;
  std::uint32_t msr;
  IbsUnit unit;
};

inline constexpr RegisterInfo register_table[] = {
    {IbsRegister::IbsFetchCtl, "IbsFetchCtl", 0xC0011030, IbsUnit::fetch},
    {IbsRegister::IbsFetchLinAd, "IbsFetchLinAd", 0xC0011031, IbsUnit::fetch},
    {IbsRegister::IbsFetchPhysAd, "IbsFetchPhysAd", 0xC0011032, IbsUnit::fetch},
    {IbsRegister::IbsFetchCtlExtd, "IbsFetchCtlExtd", 0xC001103C, IbsUnit::fetch},
    {IbsRegister::IbsOpCtl, "IbsOpCtl", 0xC0011033, IbsUnit::op},
    {IbsRegister::IbsOpRip, "IbsOpRip", 0xC0011034, IbsUnit::op},
    {IbsRegister::IbsOpData, "IbsOpData", 0xC0011035, IbsUnit::op},
    {IbsRegister::IbsOpData2, "IbsOpData2", 0xC0011036, IbsUnit::op},
    {IbsRegister::IbsOpData3, "IbsOpData3", 0xC0011037, IbsUnit::op},
    {IbsRegister::IbsDcLinAd, "IbsDcLinAd", 0xC0011038, IbsUnit::op},
    {IbsRegister::IbsDcPhysAd, "IbsDcPhysAd", 0xC0011039, IbsUnit::op},
    {IbsRegister::IbsBrTarget, "IbsBrTarget", 0xC001103B, IbsUnit::op},
    {IbsRegister::IbsOpData4, "IbsOpData4", 0xC001103D, IbsUnit::op},
    {IbsRegister::IbsCtl, "IbsCtl", 0xC001103A, IbsUnit::op},
};

inline constexpr std::size_t register_count = std::size(register_table);

constexpr const RegisterInfo& info(IbsRegister r) { return register_table[static_cast<std::size_t>(r)]; }

/// Finds a register by its AMD name, ignoring case ("ibsopdata3" works).
std::optional<IbsRegister> find_register(std::string_view name);

std::string_view unit_name(IbsUnit unit);  // "ibs_fetch", "ibs_op"

/// CPUID 8000_001B EAX: the IBS capabilities. perf puts this word first in
/// every raw IBS sample.
namespace caps {
inline constexpr std::uint32_t IBSFFV = 1u << 0;
inline constexpr std::uint32_t FetchSam = 1u << 1;
inline constexpr std::uint32_t OpSam = 1u << 2;
inline constexpr std::uint32_t RdWrOpCnt = 1u << 3;
inline constexpr std::uint32_t OpCnt = 1u << 4;
inline constexpr std::uint32_t BrnTrgt = 1u << 5;
inline constexpr std::uint32_t OpCntExt = 1u << 6;
inline constexpr std::uint32_t RipInvalidChk = 1u << 7;
inline constexpr std::uint32_t OpBrnFuse = 1u << 8;
inline constexpr std::uint32_t IbsFetchCtlExtd = 1u << 9;
inline constexpr std::uint32_t IbsOpData4 = 1u << 10;
inline constexpr std::uint32_t Zen4Ext = 1u << 11;          // Linux IBS_CAPS_ZEN4: L3MissOnly, DataSrcHi ...
inline constexpr std::uint32_t OpLdLat = 1u << 12;          // load-latency filter in IbsOpCtl (Zen 5)
inline constexpr std::uint32_t IbsDis = 1u << 13;
inline constexpr std::uint32_t FetchLat = 1u << 14;         // fetch-latency filter
inline constexpr std::uint32_t Bit63Filter = 1u << 15;      // privilege filter on address bit 63
inline constexpr std::uint32_t StrmStRmtSocket = 1u << 16;  // IbsOpData2 StrmSt and RmtSocket
inline constexpr std::uint32_t OpDtlbPgSize = 1u << 19;     // IbsOpData3 reports one DTLB page size (Zen 5)
}  // namespace caps

/// One raw sample: the registers of one unit, with which of them are known.
struct IbsRegisters {
  IbsUnit unit = IbsUnit::op;
  std::array<std::uint64_t, register_count> value{};
  std::uint32_t present = 0;  ///< bit i: value[i] was given

  void set(IbsRegister r, std::uint64_t v) {
    value[static_cast<std::size_t>(r)] = v;
    present |= 1u << static_cast<unsigned>(r);
  }
  std::uint64_t get(IbsRegister r) const { return value[static_cast<std::size_t>(r)]; }
  bool has(IbsRegister r) const { return (present >> static_cast<unsigned>(r)) & 1; }
};

/// The registers of a PERF_SAMPLE_RAW payload of the ibs_fetch or ibs_op
/// PMU: `payload` is what follows the u32 size (the caps word, then the
/// registers as u64 in MSR order, then the optional ones the caps announce).
/// The payload's own size decides how many registers there are; an optional
/// register the caps announce but the payload lacks is simply absent.
/// Throws tagop::Error when the payload is shorter than the unit's fixed
/// registers or not 4 + 8n bytes.
struct PerfRawIbs {
  std::uint32_t caps = 0;
  IbsRegisters registers;
};
PerfRawIbs parse_perf_raw(IbsUnit unit, std::span<const std::byte> payload);

/// Where parse_perf_raw finds each register in such a payload: its byte
/// offset in the payload, or -1 when the payload does not have it. Throws
/// as parse_perf_raw does for a payload it refuses. For readers that take
/// the registers straight from the payload.
std::array<std::int16_t, register_count> perf_raw_offsets(IbsUnit unit, std::uint32_t caps, std::size_t payload_size);

/// The inverse, for writers of perf.data: caps, then the registers the
/// caps announce, in the kernel's order.
std::size_t perf_raw_size(IbsUnit unit, std::uint32_t caps);
void write_perf_raw(const IbsRegisters& regs, std::uint32_t caps, std::span<std::byte> out);

}  // namespace amd_ibs
}  // namespace tagop
