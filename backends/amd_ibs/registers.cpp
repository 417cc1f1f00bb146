#include <tagop/amd_ibs/registers.hpp>

#include <cctype>   // std::tolower
#include <cstring>  // std::memcpy
#include <vector>   // std::vector

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::amd_ibs {

namespace {

// The order perf's raw payload carries each unit's registers in (the
// kernel's perf_ibs_handle_irq): the fixed ones in MSR order, then the
// optional ones the capabilities announce.
struct OptionalRegister {
  std::uint32_t cap;
  IbsRegister reg;
};
struct RawLayout {
  std::span<const IbsRegister> fixed;
  std::span<const OptionalRegister> optional;
};

using R = IbsRegister;
constexpr IbsRegister fetch_fixed[] = {R::IbsFetchCtl, R::IbsFetchLinAd, R::IbsFetchPhysAd};
constexpr OptionalRegister fetch_optional[] = {{caps::IbsFetchCtlExtd, R::IbsFetchCtlExtd}};
constexpr IbsRegister op_fixed[] = {R::IbsOpCtl,   R::IbsOpRip,   R::IbsOpData,  R::IbsOpData2,
                                    R::IbsOpData3, R::IbsDcLinAd, R::IbsDcPhysAd};
constexpr OptionalRegister op_optional[] = {{caps::BrnTrgt, R::IbsBrTarget}, {caps::IbsOpData4, R::IbsOpData4}};

RawLayout raw_layout(IbsUnit unit) {
  if (unit == IbsUnit::fetch) return {fetch_fixed, fetch_optional};
  return {op_fixed, op_optional};
}

std::uint64_t load_u64(const std::byte* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

std::optional<IbsRegister> find_register(std::string_view name) {
  for (const RegisterInfo& r : register_table) {
    if (r.name.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < name.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(r.name[i])) == std::tolower(static_cast<unsigned char>(name[i]));
    if (same) return r.id;
  }
  return std::nullopt;
}

std::string_view unit_name(IbsUnit unit) { return unit == IbsUnit::fetch ? "ibs_fetch" : "ibs_op"; }

PerfRawIbs parse_perf_raw(IbsUnit unit, std::span<const std::byte> payload) {
  const RawLayout layout = raw_layout(unit);
  const std::size_t fixed_size = 4 + 8 * layout.fixed.size();
  if (payload.size() < fixed_size)
    throw Error(fmt::format("{} raw payload of {} bytes is shorter than its {} fixed registers ({} bytes)",
                            unit_name(unit), payload.size(), layout.fixed.size(), fixed_size));
  if ((payload.size() - 4) % 8 != 0)
    throw Error(fmt::format("{} raw payload of {} bytes is not a caps word and whole registers (4 + 8n)",
                            unit_name(unit), payload.size()));
  PerfRawIbs out;
  std::memcpy(&out.caps, payload.data(), 4);
  out.registers.unit = unit;
  std::size_t at = 4;
  for (IbsRegister r : layout.fixed) {
    out.registers.set(r, load_u64(payload.data() + at));
    at += 8;
  }
  for (auto [cap, r] : layout.optional) {
    if (!(out.caps & cap) || at + 8 > payload.size()) continue;
    out.registers.set(r, load_u64(payload.data() + at));
    at += 8;
  }
  return out;
}

std::array<std::int16_t, register_count> perf_raw_offsets(IbsUnit unit, std::uint32_t caps_word,
                                                         std::size_t payload_size) {
  const RawLayout layout = raw_layout(unit);
  const std::size_t fixed_size = 4 + 8 * layout.fixed.size();
  if (payload_size < fixed_size || (payload_size - 4) % 8 != 0) {
    const std::vector<std::byte> probe(payload_size);
    parse_perf_raw(unit, probe);  // throws its message for this size
  }
  std::array<std::int16_t, register_count> out;
  out.fill(-1);
  std::size_t at = 4;
  for (IbsRegister r : layout.fixed) {
    out[static_cast<std::size_t>(r)] = static_cast<std::int16_t>(at);
    at += 8;
  }
  for (auto [cap, r] : layout.optional) {
    if (!(caps_word & cap) || at + 8 > payload_size) continue;
    out[static_cast<std::size_t>(r)] = static_cast<std::int16_t>(at);
    at += 8;
  }
  return out;
}

std::size_t perf_raw_size(IbsUnit unit, std::uint32_t caps_word) {
  const RawLayout layout = raw_layout(unit);
  std::size_t n = layout.fixed.size();
  for (auto [cap, r] : layout.optional) n += (caps_word & cap) ? 1 : 0;
  return 4 + 8 * n;
}

void write_perf_raw(const IbsRegisters& regs, std::uint32_t caps_word, std::span<std::byte> out) {
  const RawLayout layout = raw_layout(regs.unit);
  if (out.size() < perf_raw_size(regs.unit, caps_word))
    throw Error("write_perf_raw: output buffer smaller than perf_raw_size()");
  std::memcpy(out.data(), &caps_word, 4);
  std::size_t at = 4;
  auto put = [&](IbsRegister r) {
    const std::uint64_t v = regs.get(r);
    std::memcpy(out.data() + at, &v, 8);
    at += 8;
  };
  for (IbsRegister r : layout.fixed) put(r);
  for (auto [cap, r] : layout.optional)
    if (caps_word & cap) put(r);
}

}  // namespace tagop::amd_ibs
