#include <tagop/cpu.hpp>

#include <charconv>  // std::from_chars
#include <vector>    // std::vector

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop {

CpuId CpuId::parse(std::string_view text) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (parts.size() != 4)
    throw Error(fmt::format("CPU id '{}': expected VENDOR,FAMILY,MODEL,STEPPING", text));
  CpuId id;
  id.vendor = std::string(parts[0]);
  unsigned* fields[] = {&id.family, &id.model, &id.stepping};
  for (int i = 0; i < 3; ++i) {
    const std::string_view p = parts[i + 1];
    const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), *fields[i]);
    if (ec != std::errc{} || end != p.data() + p.size())
      throw Error(fmt::format("CPU id '{}': '{}' is not a decimal number", text, p));
  }
  return id;
}

std::string CpuId::to_string() const {
  return fmt::format("{} family {:#x} model {:#x} stepping {}", vendor, family, model, stepping);
}

}  // namespace tagop
