#include <tagop/host.hpp>

#include <algorithm>   // std::sort
#include <filesystem>  // directory_iterator
#include <fstream>     // std::ifstream
#include <sstream>     // std::istringstream

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>  // __get_cpuid, __get_cpuid_max
#endif

namespace tagop {

namespace {

void from_cpuinfo(HostCpu& h) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) break;  // the first processor is enough
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : std::string();
    if (key == "vendor_id") h.vendor = value;
    else if (key == "cpu family") h.family = static_cast<unsigned>(std::stoul(value));
    else if (key == "model") h.model = static_cast<unsigned>(std::stoul(value));
    else if (key == "stepping") h.stepping = static_cast<unsigned>(std::stoul(value));
    else if (key == "model name") h.model_name = value;
    else if (key == "flags") {
      std::istringstream flags(value);
      for (std::string f; flags >> f;) {
        h.hypervisor = h.hypervisor || f == "hypervisor";
        h.ibs_flag = h.ibs_flag || f == "ibs";
      }
    }
  }
  h.source = "/proc/cpuinfo";
}

#if defined(__x86_64__) || defined(__i386__)
void from_cpuid(HostCpu& h) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return;
  char vendor[13] = {};
  for (int i = 0; i < 4; ++i) {
    vendor[i] = static_cast<char>(b >> (8 * i));
    vendor[4 + i] = static_cast<char>(d >> (8 * i));
    vendor[8 + i] = static_cast<char>(c >> (8 * i));
  }
  h.vendor = vendor;
  __get_cpuid(1, &a, &b, &c, &d);
  // SDM Vol. 2A CPUID.01H:EAX, AMD APM Vol. 3: the extended fields add in
  // for family 0Fh (and for Intel family 06h models).
  const unsigned base_family = (a >> 8) & 0xF, ext_family = (a >> 20) & 0xFF;
  const unsigned base_model = (a >> 4) & 0xF, ext_model = (a >> 16) & 0xF;
  h.family = base_family == 0xF ? base_family + ext_family : base_family;
  h.model = (base_family == 0xF || base_family == 0x6) ? (ext_model << 4) | base_model : base_model;
  h.stepping = a & 0xF;
  h.hypervisor = (c >> 31) & 1;
  h.source = "cpuid";
  if (h.vendor != "AuthenticAMD") return;
  const unsigned max_ext = __get_cpuid_max(0x80000000, nullptr);
  if (max_ext >= 0x80000001 && __get_cpuid(0x80000001, &a, &b, &c, &d)) h.ibs_flag = (c >> 10) & 1;
  if (h.ibs_flag && max_ext >= 0x8000001B && __get_cpuid(0x8000001B, &a, &b, &c, &d)) h.ibs_capabilities = a;
}
#endif

}  // namespace

HostCpu detect_host() {
  HostCpu h;
  from_cpuinfo(h);
  const std::string model_name = h.model_name;
#if defined(__x86_64__) || defined(__i386__)
  from_cpuid(h);
  h.model_name = model_name;
#endif
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/bus/event_source/devices", ec))
    h.pmus.push_back(entry.path().filename().string());
  std::sort(h.pmus.begin(), h.pmus.end());
  std::ifstream paranoid("/proc/sys/kernel/perf_event_paranoid");
  int value = 0;
  if (paranoid >> value) h.perf_event_paranoid = value;
  return h;
}

}  // namespace tagop
