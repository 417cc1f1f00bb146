#pragma once
// Raw IBS samples as text, the form `tagop decode` takes them in: a kind
// and REGISTER=VALUE words, on the command line or one sample a line in
// the file `decode --input` totals ('#' starts a comment):
//
//   ibs-op IbsOpData=0x300000 IbsOpData3=0x2000000081   # a load that missed
//
// The file reader takes anything a path can name (a file, a pipe, a
// device) and bounds what it keeps: a line longer than max_line_length
// ends the read with an error, so /dev/zero cannot grow memory.

#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <functional>   // std::function
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/amd_ibs/registers.hpp>  // IbsRegisters, IbsUnit

namespace tagop::cli {

/// "ibs-fetch" or "ibs-op"; anything else is a usage error (exit 2).
amd_ibs::IbsUnit parse_ibs_unit(const std::string& text);

/// REGISTER=VALUE words with the AMD names (IbsOpData3=0x81) into the
/// registers of one sample of `unit`; a register not given is unknown, not
/// zero. A bad word is a usage error (exit 2) that names it.
amd_ibs::IbsRegisters parse_ibs_registers(amd_ibs::IbsUnit unit, const std::vector<std::string>& assignments);

/// Text of samples, one a line, parsed as it arrives in pieces of any
/// size: each whole line is parsed when its newline comes, and a partial
/// last line is kept for the next piece.
class IbsSampleText {
 public:
  static constexpr std::size_t max_line_length = 4096;
  using Sink = std::function<void(const amd_ibs::IbsRegisters&)>;

  /// `name` says where the text comes from in messages ("samples.txt:3: ...").
  IbsSampleText(std::string name, Sink sink) : name_(std::move(name)), sink_(std::move(sink)) {}

  /// Parses the lines that `bytes` completes. Throws tagop::Error naming
  /// the line when one is not a sample or is longer than max_line_length.
  void feed(std::string_view bytes);
  /// The end of the text: parses a last line that has no newline.
  void finish();
  std::uint64_t samples() const { return samples_; }

 private:
  void line(std::string_view text);

  std::string name_;
  Sink sink_;
  std::string partial_;  // a line begun in an earlier piece
  std::uint64_t line_number_ = 0;
  std::uint64_t samples_ = 0;
};

/// Reads the samples at `path` into `sink`, returning how many. Throws
/// tagop::Error when the path cannot be opened or read (with the reason),
/// is a directory, holds a line that is not a sample, or is not a regular
/// file and held no sample (a pipe, or a device such as /dev/null).
std::uint64_t read_ibs_sample_file(const std::string& path, const IbsSampleText::Sink& sink);

}  // namespace tagop::cli
