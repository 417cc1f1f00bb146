// tagop program ibs-fetch|ibs-op [options]: the IbsFetchCtl/IbsOpCtl write
// and the perf_event_attr for the ibs_fetch/ibs_op PMUs.

#include <fmt/format.h>  // fmt::print

#include <tagop/amd_ibs/programmer.hpp>  // amd_ibs::program

#include "commands.hpp"
#include "ibs_processor.hpp"
#include "output.hpp"

namespace tagop::cli {

namespace {

struct IbsProgramOptions {
  amd_ibs::IbsUnit unit = amd_ibs::IbsUnit::op;
  std::string period = "65536";
  bool count_ops = false;
  bool randomize = false;
  bool user_only = false;
  bool kernel_only = false;
  IbsProcessorOptions processor;
  std::string stepping = "0";
  OutputOptions output;
};

void program_ibs(const IbsProgramOptions& o) {
  amd_ibs::IbsRequest r;
  r.unit = o.unit;
  r.period = parse_u64(o.period, "period");
  r.count_dispatched_ops = o.count_ops;
  r.randomize = o.randomize;
  r.exclude_kernel = o.user_only;
  r.exclude_user = o.kernel_only;
  const IbsProcessor processor = choose_ibs_processor(o.processor);
  r.family = processor.family;
  r.model = processor.model;
  r.stepping = parse_cpu_number(o.stepping, "stepping");
  r.capabilities = processor.caps;
  Programming p = amd_ibs::program(r);
  if (processor.source != "--family")
    p.notes.push_back(fmt::format("programmed for Family {:X}h model {:02X}h ({})", r.family, r.model,
                                  processor.source == "assumed" ? "assumed: give --family" : "this host"));
  print_programming(p, o.output);
}

}  // namespace

void add_program_ibs_commands(CLI::App& program) {
  for (const auto unit : {amd_ibs::IbsUnit::fetch, amd_ibs::IbsUnit::op}) {
    const bool fetch = unit == amd_ibs::IbsUnit::fetch;
    auto o = std::make_shared<IbsProgramOptions>();
    o->unit = unit;
    CLI::App* cmd = program.add_subcommand(fetch ? "ibs-fetch" : "ibs-op",
                                           fetch ? "AMD IBS fetch sampling: IbsFetchCtl and the ibs_fetch PMU"
                                                 : "AMD IBS op sampling: IbsOpCtl and the ibs_op PMU");
    cmd->add_option("--period", o->period,
                    fetch ? "Fetches between samples (a multiple of 16)"
                          : "Cycles, or dispatched ops with --count-ops, between samples (a multiple of 16)")
        ->capture_default_str();
    if (fetch) cmd->add_flag("--randomize", o->randomize, "Randomise the low bits of the fetch counter (IbsRandEn)");
    else cmd->add_flag("--count-ops", o->count_ops, "Count dispatched ops instead of cycles (needs OpCnt)");
    auto* user = cmd->add_flag("--user", o->user_only, "Only user-level samples");
    auto* kernel = cmd->add_flag("--kernel", o->kernel_only, "Only kernel-level samples");
    user->excludes(kernel);
    add_ibs_processor_options(*cmd, o->processor);
    cmd->add_option("--stepping", o->stepping, "Processor stepping")->capture_default_str();
    add_output_options(*cmd, o->output, /*with_csv=*/true);
    cmd->footer(fetch ? "Example:\n  tagop program ibs-fetch --period 4096 --randomize --json"
                      : "Example:\n  tagop program ibs-op --period 0x10000 --count-ops --family 10h --model 4");
    cmd->callback([o] { program_ibs(*o); });
  }
}

}  // namespace tagop::cli
