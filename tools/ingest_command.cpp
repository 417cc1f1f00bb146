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
    std::string host, cpu, cluster;
    KernelSymbolOptions kernel;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("ingest", "Write captures' samples into a ClickHouse store (one row per sample)");
  cmd->add_option("url", o->url, "The ClickHouse server's HTTP interface: http://HOST:8123[/?database=DB]")->required();
  cmd->add_option("files", o->files, "Captures (perf.data) to ingest");
  cmd->add_option("--host", o->host, "The machine's name in the store (default: the capture's own, perf's hostname)");
  cmd->add_option("--cpu", o->cpu, "The processor, as perf's cpuid 'AuthenticAMD,25,1,1', when the capture lacks it");
  cmd->add_option("--cluster", o->cluster,
                  "Also make database CLUSTER on this server: the store's tables as Distributed tables over the same "
                  "tables of this server's database on every shard of the cluster CLUSTER (the servers' "
                  "remote_servers); report or diff --source 'URL/?database=CLUSTER' then reads every shard. Captures "
                  "are ingested to each shard's own tables (this URL), never through the cluster's");
  add_kernel_symbol_options(*cmd, o->kernel);
  cmd->footer("Examples:\n  tagop ingest http://127.0.0.1:8123 perf.data\n"
              "  tagop ingest http://store:8123/?database=fleet --host web-17 ibs-*.data\n"
              "  tagop ingest http://127.0.0.1:8123 --kallsyms web-17.kallsyms --symfs /srv/web-17-root perf.data\n"
              "  tagop ingest http://a:8123 --cluster fleet web-1.data    (on each shard: its captures, and database "
              "fleet over all shards)\n"
              "  tagop report --source 'http://a:8123/?database=fleet' --by host    (every shard's samples)\n"
              "Samples are named as `tagop report` names them: functions of the kernel too, by --kallsyms, "
              "--vmlinux, or this machine's /proc/kallsyms when it runs the recorded kernel.\n"
              "A capture the store holds already is skipped; see README, 'Fleets: ClickHouse'.");
  cmd->callback([o] {
    if (o->files.empty() && o->cluster.empty())
      throw CLI::ValidationError("files", "give the captures (perf.data) to ingest, or --cluster to make a cluster's database");
    const profiles::ClickHouseServer server(o->url);
    report::IngestOptions options;
    options.host = o->host;
    if (!o->cpu.empty()) options.cpu = CpuId::parse(o->cpu);
    ask_no_debuginfod_server();
    options.symbols = kernel_symbol_search(o->kernel);
    report::create_store_tables(server, options);
    if (!o->cluster.empty()) {
      report::create_cluster_store(server, o->cluster, options);
      fmt::print("database {}: the store of every shard of cluster {} (report --source '{}{}database={}')\n", o->cluster,
                 o->cluster, o->url, o->url.find('?') == std::string::npos ? (o->url.ends_with('/') ? "?" : "/?") : "&",
                 o->cluster);
    }
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
