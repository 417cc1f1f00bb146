// libFuzzer target: any bytes as perf.data. The reader must refuse them
// with tagop::Error or read them without reading out of bounds; the IBS
// decoding and the process table see whatever it hands out.

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint8_t
#include <optional>
#include <span>

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/engine.hpp>                // Aggregator
#include <tagop/error.hpp>                 // Error
#include <tagop/perf_data_reader.hpp>      // PerfDataReader
#include <tagop/process_table.hpp>         // ProcessTable

namespace {

// Final, as the report's handler is: read() runs the loop that calls its
// sample() directly (the tests cover the other), and offers it samples in
// place first.
struct Handler final : tagop::perf_data::RecordHandler {
  const tagop::amd_ibs::IbsCapture* capture = nullptr;
  tagop::ProcessTable processes;
  tagop::Aggregator aggregator;
  unsigned touched = 0;
  bool take = false;
  // Every other sample: its first and last bytes read, so that a record
  // handed out past the data is caught.
  bool sample_in_place(std::uint32_t, const std::byte* record, std::uint16_t size) {
    touched += std::to_integer<unsigned>(record[0]) + std::to_integer<unsigned>(record[size - 1]);
    take = !take;
    return take;
  }
  void sample(const tagop::perf_data::SampleRecord& r) override {
    if (!capture) return;
    tagop::Sample s;
    tagop::amd_ibs::IbsSampleInfo info;
    std::string problem;
    if (capture->decode(r, s, info, problem) != tagop::amd_ibs::IbsCapture::Result::ok) return;
    const tagop::Mapping* m = processes.find(s.pid, s.ip);
    aggregator.add(s, m ? m->module : 0);
  }
  void mmap(const tagop::perf_data::MmapRecord& r) override { processes.mmap(r); }
  void comm(const tagop::perf_data::CommRecord& r) override { processes.comm(r); }
  void task(const tagop::perf_data::TaskRecord& r) override { processes.task(r); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    tagop::perf_data::PerfDataReader reader(std::span(reinterpret_cast<const std::byte*>(data), size), "fuzz");
    std::optional<tagop::amd_ibs::IbsCapture> capture;
    try {
      capture.emplace(reader.info(), reader.info().cpuid ? std::nullopt
                                                         : std::optional(tagop::CpuId{"AuthenticAMD", 0x10, 4, 2}));
    } catch (const tagop::Error&) {
      // Not IBS, or an unknown processor: the records are still read.
    }
    Handler h;
    h.capture = capture ? &*capture : nullptr;
    reader.read(h);
  } catch (const tagop::Error&) {
    // Refused with a message: what the reader must do with bad input.
  }
  return 0;
}
