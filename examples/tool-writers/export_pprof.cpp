// A capture as a pprof profile, written whole or not at all: the export of
// `tagop report --format pprof`, as library calls. The file holds the same
// bytes as the command's (scripts/check-installed-examples.sh compares them):
//
//   export_pprof perf.data out.pb.gz     (then: go tool pprof -top out.pb.gz)
//
// Built outside the tree with only pkg-config (scripts/check-installed-examples.sh):
//   g++ -std=c++20 export_pprof.cpp $(pkg-config --cflags --libs tagop)

#include <cstdio>     // std::fprintf
#include <exception>  // std::exception
#include <string>     // std::string

#include <tagop/emulate/marker.hpp>    // emulation_of
#include <tagop/perf_data_reader.hpp>  // PerfDataReader
#include <tagop/report/columns.hpp>    // view_columns, resolve_event_column
#include <tagop/report/export.hpp>     // stacks_by, ExportView, write_profile_export
#include <tagop/report/report.hpp>     // Report

int main(int argc, char** argv) try {
  using namespace tagop;
  if (argc != 3) {
    std::fprintf(stderr, "usage: export_pprof FILE OUT.pb.gz\n");
    return 2;
  }
  const std::string file = argv[1];
  perf_data::PerfDataReader reader(file);
  // The stacks: call chains where the capture has them, else functions;
  // pprof's samples are per process (pid and comm labels), as the command's.
  const report::Options options{.by = report::stacks_by(reader.info()), .by_process = true};
  const report::Report stacks(reader, options);

  // The profile's sample types: the overview's derived events of an IBS
  // capture (each event's samples and periods otherwise), the first of
  // them the default, as `tagop report` sorts by it.
  report::ExportView view{.file = file};
  if (const auto emulation = emulate::emulation_of(reader.info())) view.emulated = emulation->label();
  if (stacks.ibs()) {
    view.columns = report::view_columns("overview");
    view.sort = view.columns.front();
    for (const report::Column& c : view.columns)
      if (c.event) {
        view.sort = c;
        break;
      }
  } else {
    view.sort = report::resolve_event_column(stacks.query_names(), stacks.query_names().front());
  }
  // A temporary file beside argv[2], renamed onto it once written: a
  // failure leaves an old file of that name as it was.
  report::write_profile_export(report::ExportFormat::pprof, stacks, view, argv[2]);
  std::printf("%s: %zu rows of %s\n", argv[2], stacks.row_count(), file.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "export_pprof: %s\n", e.what());
  return 1;
}
