#include "libpfm_lookup.hpp"

#include <cstdlib>  // setenv

#include <perfmon/pfmlib.h>  // pfm_initialize, pfm_find_event, pfm_get_event_info

namespace tagop::cli {

namespace {

bool initialise() {
  static const bool ok = [] {
    // Without this libpfm4 only encodes the PMUs of this machine; the
    // lookup is meant to answer for any x86 processor.
    ::setenv("LIBPFM_ENCODE_INACTIVE", "1", 0);
    return pfm_initialize() == PFM_SUCCESS;
  }();
  return ok;
}

std::string text(const char* s) { return s ? std::string(s) : std::string(); }

std::string attribute_kind(pfm_attr_t type) {
  switch (type) {
    case PFM_ATTR_UMASK: return "umask";
    case PFM_ATTR_MOD_BOOL: return "modifier (boolean)";
    case PFM_ATTR_MOD_INTEGER: return "modifier (integer)";
    case PFM_ATTR_RAW_UMASK: return "raw umask";
    default: return "attribute";
  }
}

}  // namespace

std::optional<LibpfmEvent> libpfm_find(std::string_view name) {
  if (!initialise()) return std::nullopt;
  const int idx = pfm_find_event(std::string(name).c_str());
  if (idx < 0) return std::nullopt;
  pfm_event_info_t info{};
  info.size = sizeof info;
  if (pfm_get_event_info(idx, PFM_OS_NONE, &info) != PFM_SUCCESS) return std::nullopt;
  pfm_pmu_info_t pmu{};
  pmu.size = sizeof pmu;
  if (pfm_get_pmu_info(info.pmu, &pmu) != PFM_SUCCESS) return std::nullopt;
  LibpfmEvent e{.pmu = text(pmu.name),
                .pmu_title = text(pmu.desc),
                .name = text(info.name),
                .code = info.code,
                .precise = info.is_precise != 0,
                .description = text(info.desc),
                .attributes = {},
                .encoding = {}};
  std::uint64_t codes[4] = {};
  std::uint64_t* codes_ptr = codes;
  pfm_pmu_encode_arg_t arg{};
  arg.size = sizeof arg;
  arg.codes = codes_ptr;
  arg.count = 4;
  if (pfm_get_os_event_encoding(std::string(name).c_str(), PFM_PLM3, PFM_OS_NONE, &arg) == PFM_SUCCESS && arg.count > 0)
    e.encoding = codes[0];
  for (int i = 0; i < info.nattrs; ++i) {
    pfm_event_attr_info_t a{};
    a.size = sizeof a;
    if (pfm_get_event_attr_info(idx, i, PFM_OS_NONE, &a) != PFM_SUCCESS) continue;
    e.attributes.push_back({.name = text(a.name),
                            .kind = attribute_kind(a.type),
                            .code = a.code,
                            .is_default = a.is_dfl != 0,
                            .precise = a.is_precise != 0,
                            .description = text(a.desc)});
  }
  return e;
}

}  // namespace tagop::cli
