// tagop program ibs-fetch|ibs-op [options]: the MSR writes and the
// perf_event_attr that set the sampling up.

#include <fmt/format.h>  // fmt::print

#include <tagop/amd_ibs/programmer.hpp>  // amd_ibs::program

#include "commands.hpp"
#include "output.hpp"

namespace tagop::cli {

namespace {

struct ProgramOptions {
  std::string target;
  std::string period = "65536";
  bool count_ops = false;
  bool randomize = false;
  bool user_only = false;
  bool kernel_only = false;
  std::string family = "10h";
  std::string model = "0";
  std::string stepping = "0";
  std::string caps;
  OutputOptions output;
};

void program_ibs(const ProgramOptions& o) {
  amd_ibs::IbsRequest r;
  r.unit = o.target == "ibs-fetch" ? amd_ibs::IbsUnit::fetch : amd_ibs::IbsUnit::op;
  r.period = parse_u64(o.period, "period");
  r.count_dispatched_ops = o.count_ops;
  r.randomize = o.randomize;
  r.exclude_kernel = o.user_only;
  r.exclude_user = o.kernel_only;
  r.family = parse_cpu_number(o.family, "family");
  r.model = parse_cpu_number(o.model, "model");
  r.stepping = parse_cpu_number(o.stepping, "stepping");
  if (!o.caps.empty()) r.capabilities = static_cast<std::uint32_t>(parse_u64(o.caps, "capabilities"));
  const Programming p = amd_ibs::program(r);
  fmt::print("{}", o.output.resolved() == Format::json ? to_json(p) + "\n" : to_text(p));
}

}  // namespace

void add_program_command(CLI::App& app) {
  auto o = std::make_shared<ProgramOptions>();
  CLI::App* cmd = app.add_subcommand(
      "program", "Turn a sampling request into the MSR writes and the Linux perf_event_attr that set it up");
  cmd->add_option("target", o->target, "What to program: ibs-fetch or ibs-op")
      ->required()
      ->check(CLI::IsMember({"ibs-fetch", "ibs-op"}));
  cmd->add_option("--period", o->period, "Fetches, ops or cycles between samples (a multiple of 16)")
      ->capture_default_str();
  cmd->add_flag("--count-ops", o->count_ops, "ibs-op: count dispatched ops instead of cycles (needs OpCnt)");
  cmd->add_flag("--randomize", o->randomize, "ibs-fetch: randomise the low bits of the fetch counter");
  auto* user = cmd->add_flag("--user", o->user_only, "Only user-level samples");
  auto* kernel = cmd->add_flag("--kernel", o->kernel_only, "Only kernel-level samples");
  user->excludes(kernel);
  cmd->add_option("--family", o->family, "Processor family: 10h, 0x10 or 16")->capture_default_str();
  cmd->add_option("--model", o->model, "Processor model")->capture_default_str();
  cmd->add_option("--stepping", o->stepping, "Processor stepping")->capture_default_str();
  cmd->add_option("--caps", o->caps, "IBS capabilities (CPUID 8000_001B EAX) instead of family/model");
  add_output_options(*cmd, o->output);
  cmd->footer(
      "Examples:\n"
      "  tagop program ibs-op --period 0x10000 --count-ops --family 10h --model 4\n"
      "  tagop program ibs-fetch --period 4096 --randomize --json");
  cmd->callback([o] { program_ibs(*o); });
}

}  // namespace tagop::cli
