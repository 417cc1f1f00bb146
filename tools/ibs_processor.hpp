#pragma once
// Which processor's IBS layout a command uses: the one given with
// --family/--model (and --caps), else this host's when it has IBS, else
// Family 10h model 00h, the documented default, said on stderr.

#include <cstdint>   // std::uint32_t
#include <optional>  // std::optional
#include <string>    // std::string

#include <CLI/CLI.hpp>  // CLI::App

namespace tagop::cli {

struct IbsProcessorOptions {
  std::string family, model, caps;
};

struct IbsProcessor {
  unsigned family = 0x10, model = 0;
  std::optional<std::uint32_t> caps;  // nullopt: what the family and model report
  std::string source;                 // "--family", "this host", "assumed"
};

/// Adds --family, --model and --caps to a command.
void add_ibs_processor_options(CLI::App& cmd, IbsProcessorOptions& options);

/// The processor to use. A family without an IBS layout is refused (the
/// message lists those that have one); --model or --caps without --family
/// is a usage error. When it is assumed, a note on stderr says so.
IbsProcessor choose_ibs_processor(const IbsProcessorOptions& options);

}  // namespace tagop::cli
