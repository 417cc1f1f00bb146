#include <tagop/emulate/marker.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/emulate/microarchitecture.hpp>  // find_microarchitecture

namespace tagop::emulate {

namespace {
// The words that open the mark; the model follows them.
constexpr const char* words[] = {"tagop", "emulate", "--as"};
}  // namespace

std::string Emulation::label() const {
  return title.empty() ? fmt::format("emulated (model: {})", model) : fmt::format("emulated (model: {}, {})", model, title);
}

std::vector<std::string> emulation_cmdline(const std::string& model, const std::vector<std::string>& command) {
  std::vector<std::string> out(std::begin(words), std::end(words));
  out.push_back(model);
  out.emplace_back("--");
  out.insert(out.end(), command.begin(), command.end());
  return out;
}

std::optional<Emulation> emulation_of(const perf_data::FileInfo& info) {
  const auto& c = info.cmdline;
  constexpr std::size_t n = std::size(words);
  if (c.size() < n + 1) return std::nullopt;
  for (std::size_t i = 0; i < n; ++i)
    if (c[i] != words[i]) return std::nullopt;
  Emulation e;
  e.model = c[n];
  if (const MicroarchSpec* m = find_microarchitecture(e.model)) e.title = std::string(m->title);
  for (std::size_t i = n + 2; i < c.size(); ++i) e.command += (e.command.empty() ? "" : " ") + c[i];
  return e;
}

}  // namespace tagop::emulate
