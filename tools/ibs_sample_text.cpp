#include "ibs_sample_text.hpp"

#include <fcntl.h>     // open
#include <sys/stat.h>  // fstat, S_ISREG, S_ISDIR
#include <unistd.h>    // read, close

#include <algorithm>  // std::min
#include <array>      // std::array
#include <cerrno>     // errno, EINTR
#include <cstring>    // std::strerror

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

#include "output.hpp"  // usage_error, parse_u64

namespace tagop::cli {

using amd_ibs::IbsRegisters;
using amd_ibs::IbsUnit;
using amd_ibs::RegisterInfo;

IbsUnit parse_ibs_unit(const std::string& text) {
  if (text == "ibs-fetch") return IbsUnit::fetch;
  if (text == "ibs-op") return IbsUnit::op;
  usage_error(fmt::format("unknown sample kind '{}': expected ibs-fetch or ibs-op", text));
}

IbsRegisters parse_ibs_registers(IbsUnit unit, const std::vector<std::string>& assignments) {
  IbsRegisters regs;
  regs.unit = unit;
  for (const std::string& a : assignments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos) usage_error(fmt::format("'{}' is not REGISTER=VALUE (e.g. IbsOpData3=0x81)", a));
    const std::string name = a.substr(0, eq);
    const auto reg = amd_ibs::find_register(name);
    if (!reg) {
      std::string known;
      for (const RegisterInfo& r : amd_ibs::register_table)
        if (r.unit == unit && r.id != amd_ibs::IbsRegister::IbsCtl)
          known += (known.empty() ? "" : ", ") + std::string(r.name);
      usage_error(fmt::format("unknown register '{}' for {}: expected one of {}", name, amd_ibs::unit_name(unit), known));
    }
    const RegisterInfo& r = amd_ibs::info(*reg);
    if (r.unit != unit)
      usage_error(fmt::format("{} belongs to {} samples, not {}", r.name, amd_ibs::unit_name(r.unit),
                              amd_ibs::unit_name(unit)));
    regs.set(*reg, parse_u64(a.substr(eq + 1), r.name.data()));
  }
  if (regs.present == 0) usage_error("give at least one REGISTER=VALUE");
  return regs;
}

void IbsSampleText::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const auto newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    if (partial_.size() + piece.size() > max_line_length)
      throw Error(fmt::format("{}:{}: a line of more than {} bytes: not a file of samples (one a line: "
                              "'ibs-op IbsOpData3=0x81 ...')",
                              name_, line_number_ + 1, max_line_length));
    if (newline == std::string_view::npos) {
      partial_.append(piece);
      return;
    }
    if (partial_.empty()) {
      line(piece);
    } else {
      partial_.append(piece);
      line(partial_);
      partial_.clear();
    }
    bytes.remove_prefix(newline + 1);
  }
}

void IbsSampleText::finish() {
  if (!partial_.empty()) line(partial_);
  partial_.clear();
}

void IbsSampleText::line(std::string_view text) {
  ++line_number_;
  text = text.substr(0, text.find('#'));
  std::vector<std::string> words;
  constexpr std::string_view space = " \t\r\v\f";
  for (auto start = text.find_first_not_of(space); start != std::string_view::npos;
       start = text.find_first_not_of(space, start)) {
    const auto end = std::min(text.find_first_of(space, start), text.size());
    words.emplace_back(text.substr(start, end - start));
    start = end;
  }
  if (words.empty()) return;
  IbsRegisters regs;
  try {
    regs = parse_ibs_registers(parse_ibs_unit(words[0]), {words.begin() + 1, words.end()});
  } catch (const CLI::ValidationError& e) {
    throw Error(fmt::format("{}:{}: {}", name_, line_number_, e.what()));
  }
  ++samples_;
  sink_(regs);
}

namespace {

// The descriptor of an open file, closed when it goes.
struct Descriptor {
  int fd;
  ~Descriptor() { ::close(fd); }
};

}  // namespace

std::uint64_t read_ibs_sample_file(const std::string& path, const IbsSampleText::Sink& sink) {
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) throw Error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw Error(fmt::format("{}: is a directory, not a file of samples", path));
  IbsSampleText text(path, sink);
  std::array<char, 64 * 1024> buffer;
  for (;;) {
    const ssize_t n = ::read(file.fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    if (n == 0) break;
    text.feed({buffer.data(), static_cast<std::size_t>(n)});
  }
  text.finish();
  // A regular file may hold no sample (all comments, or empty); a pipe or
  // a device that gave nothing was most likely not what was meant.
  if (text.samples() == 0 && !S_ISREG(st.st_mode))
    throw Error(fmt::format("{}: not a regular file, and it held no samples (one a line: 'ibs-op IbsOpData3=0x81 ...')",
                            path));
  return text.samples();
}

}  // namespace tagop::cli
