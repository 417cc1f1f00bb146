// tagop ingest URL FILE...: captures into a ClickHouse store, one row per
// sample (report::ingest_capture), a progress bar per capture.

#include <memory>  // std::make_shared

#include <fmt/format.h>  // fmt::print

#include <tagop/cpu.hpp>                  // CpuId
#include <tagop/perf_data_reader.hpp>     // PerfDataReader
#include <tagop/profiles/clickhouse.hpp>  // ClickHouseServer
#include <tagop/profiles/progress.hpp>    // ProgressBar
#include <tagop/report/ingest.hpp>        // ingest_capture
#include <tagop/text.hpp>                 // printable

#include "ingest_command.hpp"
#include "kernel_symbol_options.hpp"

namespace tagop::cli {

void add_ingest_command(CLI::App& app) {
  struct Options {
    std::string url;
    std::vector<std::string> files;
    std::string host, cpu;
    KernelSymbolOptions kernel;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("ingest", "Write captures' samples into a ClickHouse store (one row per sample)");
  cmd->add_option("url", o->url, "The ClickHouse server's HTTP interface: http://HOST:8123[/?database=DB]")->required();
  cmd->add_option("files", o->files, "Captures (perf.data) to ingest")->required();
  cmd->add_option("--host", o->host, "The machine's name in the store (default: the capture's own, perf's hostname)");
  cmd->add_option("--cpu", o->cpu, "The processor, as perf's cpuid 'AuthenticAMD,25,1,1', when the capture lacks it");
  add_kernel_symbol_options(*cmd, o->kernel);
  cmd->footer("Examples:\n  tagop ingest http://127.0.0.1:8123 perf.data\n"
              "  tagop ingest http://store:8123/?database=fleet --host web-17 ibs-*.data\n"
              "  tagop ingest http://127.0.0.1:8123 --kallsyms web-17.kallsyms --symfs /srv/web-17-root perf.data\n"
              "Samples are named as `tagop report` names them: functions of the kernel too, by --kallsyms, "
              "--vmlinux, or this machine's /proc/kallsyms when it runs the recorded kernel.\n"
              "A capture the store holds already is skipped; see README, 'Fleets: ClickHouse'.");
  cmd->callback([o] {
    const profiles::ClickHouseServer server(o->url);
    report::IngestOptions options;
    options.host = o->host;
    if (!o->cpu.empty()) options.cpu = CpuId::parse(o->cpu);
    ask_no_debuginfod_server();
    options.symbols = kernel_symbol_search(o->kernel);
    report::create_store_tables(server, options);
    for (const std::string& file : o->files) {
      std::uint64_t size = 0;
      {
        const perf_data::PerfDataReader reader(file);
        size = reader.info().header.data.size;
      }
      auto bar = std::make_shared<profiles::ProgressBar>(fmt::format("ingest {}", file), size, "bytes");
      if (bar->active())
        options.progress = [bar](std::uint64_t done, std::uint64_t total) {
          if (done >= total) bar->finish();
          else bar->update(done);
        };
      const report::IngestResult r = report::ingest_capture(file, server, options);
      bar->finish();
      for (const std::string& w : r.warnings) fmt::print(stderr, "tagop: warning: {}: {}\n", printable(file), printable(w));
      if (r.skipped)
        fmt::print("{}: skipped: the store holds this capture already (capture {:016x})\n", file, r.capture);
      else
        fmt::print("{}: {} samples (capture {:016x})\n", file, r.rows, r.capture);
    }
  });
}

}  // namespace tagop::cli
