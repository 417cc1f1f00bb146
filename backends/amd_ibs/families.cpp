#include <tagop/amd_ibs/families.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/registers.hpp>  // caps
#include <tagop/error.hpp>              // Error

namespace tagop::amd_ibs {

namespace {

// Families 11h (Griffin) and 14h (Bobcat) have no IBS; 13h was never made.
// Family 18h is Hygon's Dhyana, a Zen 1 that Linux drives with the same IBS
// code (arch/x86/events/amd/ibs.c treats 16h-18h alike).
constexpr IbsFamily families[] = {
    {0x10, "K10"},
    {0x12, "Llano"},
    {0x15, "Bulldozer to Excavator"},
    {0x16, "Jaguar, Puma"},
    {0x17, "Zen, Zen+, Zen 2"},
    {0x18, "Hygon Dhyana"},
    {0x19, "Zen 3, Zen 4"},
    {0x1A, "Zen 5, Zen 6"},
};

struct ModelSpan {
  std::uint8_t family, first, last;
  std::string_view name;
};

// arch/x86/kernel/cpu/amd.c, bsp_init_amd(): the X86_FEATURE_ZEN* model
// ranges (Linux 6.12-6.18; Zen 6 from "x86/CPU/AMD: Add X86_FEATURE_ZEN6",
// 6.16, widened to models 80h-8Fh by "x86/CPU/AMD: Extend Zen6 model
// range", 2025).
constexpr ModelSpan generations[] = {
    {0x17, 0x00, 0x2F, "Zen"},   {0x17, 0x50, 0x5F, "Zen"},   {0x17, 0x30, 0x4F, "Zen 2"},
    {0x17, 0x60, 0x7F, "Zen 2"}, {0x17, 0x90, 0x91, "Zen 2"}, {0x17, 0xA0, 0xAF, "Zen 2"},
    {0x18, 0x00, 0xFF, "Zen"},   {0x19, 0x00, 0x0F, "Zen 3"}, {0x19, 0x20, 0x5F, "Zen 3"},
    {0x19, 0x10, 0x1F, "Zen 4"}, {0x19, 0x60, 0xAF, "Zen 4"}, {0x1A, 0x00, 0x2F, "Zen 5"},
    {0x1A, 0x40, 0x4F, "Zen 5"}, {0x1A, 0x60, 0x7F, "Zen 5"}, {0x1A, 0x50, 0x5F, "Zen 6"},
    {0x1A, 0x80, 0xAF, "Zen 6"}, {0x1A, 0xC0, 0xCF, "Zen 6"},
};

}  // namespace

std::span<const IbsFamily> ibs_families() { return families; }

const IbsFamily* find_ibs_family(unsigned family) {
  for (const IbsFamily& f : families)
    if (f.family == family) return &f;
  return nullptr;
}

std::string ibs_family_list() {
  std::string out;
  for (const IbsFamily& f : families) out += fmt::format("{}{:X}h ({})", out.empty() ? "" : ", ", f.family, f.parts);
  return out;
}

void require_ibs_family(unsigned family) {
  if (find_ibs_family(family)) return;
  throw Error(ErrorCode::not_supported, fmt::format("family {:#x} has no Instruction-Based Sampling layout; the families with IBS are {}",
                          family, ibs_family_list()));
}

std::string_view generation(unsigned family, unsigned model) {
  for (const ModelSpan& g : generations)
    if (g.family == family && model >= g.first && model <= g.last) return g.name;
  return {};
}

std::optional<unsigned> nearest_known_model(unsigned family, unsigned model) {
  if (!generation(family, model).empty()) return std::nullopt;
  std::optional<unsigned> best;
  unsigned best_distance = ~0u;
  for (const ModelSpan& g : generations) {
    if (g.family != family) continue;
    const unsigned near = model < g.first ? g.first : g.last;
    const unsigned distance = near > model ? near - model : model - near;
    if (distance < best_distance) best = near, best_distance = distance;
  }
  return best;  // none for the families before Zen, whose every model has its layout
}

std::uint32_t capabilities_of(unsigned family, unsigned model) {
  std::uint32_t c = caps::IBSFFV | caps::FetchSam | caps::OpSam;
  // Dispatched-op counting came with Family 10h revision 4 (model 4, the
  // RevC parts); every later family has it.
  if (family > 0x10 || model >= 4) c |= caps::OpCnt | caps::RdWrOpCnt;
  if (family >= 0x12) c |= caps::BrnTrgt | caps::OpCntExt | caps::RipInvalidChk;
  if (family > 0x15 || (family == 0x15 && model >= 0x30)) c |= caps::OpBrnFuse;
  if (family > 0x15 || (family == 0x15 && model >= 0x60)) c |= caps::IbsFetchCtlExtd;
  const std::string_view zen = generation(family, model);
  if (zen == "Zen 4" || family >= 0x1A) c |= caps::Zen4Ext;
  if (family >= 0x1A) c |= caps::OpLdLat | caps::OpDtlbPgSize;
  return c;
}

}  // namespace tagop::amd_ibs
