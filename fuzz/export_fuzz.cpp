// libFuzzer target: any bytes as a profile to export: sample types, frames
// whose names hold any bytes (controls, invalid UTF-8, ';', newlines),
// values of any size, stacks of any depth. pprof, folded stacks and the
// HTML page must each be written or refused with tagop::Error; folded
// stacks hold no control character but their line ends, and sums never
// overflow (UndefinedBehaviorSanitizer would stop here).

#include <algorithm>  // std::min
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint8_t, std::int64_t
#include <cstring>   // std::memcpy
#include <sstream>   // std::ostringstream
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/error.hpp>              // Error
#include <tagop/profiles/folded.hpp>    // write_folded
#include <tagop/profiles/html.hpp>      // write_html
#include <tagop/profiles/pprof.hpp>     // write_pprof
#include <tagop/profiles/profile.hpp>  // Profile

namespace {

// The fuzzer's bytes, read as small numbers and strings; zeros once spent.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return at_ >= size_; }
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  std::int64_t number() {
    std::int64_t v = 0;
    const std::size_t n = std::min<std::size_t>(8, size_ - std::min(at_, size_));
    std::memcpy(&v, data_ + at_, n);
    at_ += n;
    return v;
  }
  std::string text() {
    const std::size_t wanted = byte();
    const std::size_t n = std::min<std::size_t>(wanted, size_ - std::min(at_, size_));
    std::string s(reinterpret_cast<const char*>(data_ + at_), n);
    at_ += n;
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_, at_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  try {
    std::vector<tagop::profiles::SampleType> types;
    for (int t = 0, n = 1 + in.byte() % 3; t < n; ++t)
      types.push_back({in.text(), in.text(), 1.0 + static_cast<double>(in.byte() % 4) * 1e9});
    tagop::profiles::Profile profile(types);
    profile.comments.push_back(in.text());
    const tagop::profiles::MappingId mapping = profile.add_mapping({0x400000, 0x500000, 0, in.text(), in.text()});
    std::vector<tagop::profiles::LocationId> locations;
    for (int l = 0, n = 1 + in.byte() % 8; l < n; ++l)
      locations.push_back(profile.add_location(
          {static_cast<std::uint64_t>(in.number()), in.byte() % 2 ? std::optional(mapping) : std::nullopt,
           {{in.text(), in.text(), in.text(), in.number()}}}));
    std::vector<std::int64_t> values(types.size());
    std::vector<tagop::profiles::LocationId> stack;
    std::vector<std::string> comms;
    while (!in.empty()) {
      for (std::int64_t& v : values) v = in.number();
      stack.clear();
      for (int d = 0, n = in.byte() % 16; d < n; ++d) stack.push_back(locations[in.byte() % locations.size()]);
      comms.push_back(in.text());
      profile.add_sample(values, stack, {.pid = in.byte(), .comm = comms.back()});
    }
    std::ostringstream pprof, folded, html;
    tagop::profiles::write_pprof(profile, pprof);
    tagop::profiles::write_folded(profile, folded);
    for (char c : folded.str())
      if (static_cast<unsigned char>(c) < 0x20 && c != '\n') __builtin_trap();
    tagop::profiles::HtmlPage page;
    page.title = comms.empty() ? std::string() : comms.front();
    page.table.columns.push_back({"samples", "Samples", "samples", "", tagop::profiles::ColumnKind::count});
    for (const std::string& c : comms) page.table.rows.push_back({c, c, {tagop::profiles::Interval{1}}});
    page.profile = &profile;
    tagop::profiles::write_html(page, html);
  } catch (const tagop::Error&) {
    // refused with a message: what bad input gets
  }
  return 0;
}
