// ingest-rows CAPTURE [--format native|tsv] [--url URL]
//
// The two halves of tagop ingest, apart (bench/fleet_bench.sh): without
// --url, the capture's rows (report::write_capture_rows: read, IBS decoded,
// symbolized with lines and data objects, formatted) written to stdout,
// nothing sent: tagop's own work, and a file for curl or clickhouse-client
// to send (the server's work alone). With --url, the whole ingest
// (report::ingest_capture) in the format given, so that one run can time
// TabSeparated (what ingest sent before) against Native.

#include <cstdio>   // std::fwrite
#include <cstring>  // std::strcmp
#include <string>   // std::string

#include <tagop/error.hpp>                // Error
#include <tagop/profiles/clickhouse.hpp>  // ClickHouseServer
#include <tagop/report/ingest.hpp>        // write_capture_rows, ingest_capture

int main(int argc, char** argv) {
  using namespace tagop;
  if (argc < 2) {
    std::fprintf(stderr, "usage: ingest-rows CAPTURE [--format native|tsv] [--url URL]\n");
    return 2;
  }
  report::IngestOptions options;
  std::string url;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--format") == 0)
      options.format = std::strcmp(argv[i + 1], "tsv") == 0 ? report::RowFormat::tab_separated : report::RowFormat::native;
    else if (std::strcmp(argv[i], "--url") == 0)
      url = argv[i + 1];
  }
  try {
    std::uint64_t rows = 0;
    if (url.empty()) {
      rows = report::write_capture_rows(
          argv[1], [](std::string_view batch) { std::fwrite(batch.data(), 1, batch.size(), stdout); }, options);
    } else {
      const profiles::ClickHouseServer server(url);
      report::create_store_tables(server, options);
      rows = report::ingest_capture(argv[1], server, options).rows;
    }
    std::fprintf(stderr, "%llu rows\n", static_cast<unsigned long long>(rows));
  } catch (const Error& e) {
    std::fprintf(stderr, "ingest-rows: %s\n", e.what());
    return 1;
  }
  return 0;
}
