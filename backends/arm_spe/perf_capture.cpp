#include <tagop/arm_spe/perf_capture.hpp>

#include <algorithm>  // std::upper_bound
#include <charconv>   // std::from_chars
#include <unordered_map>  // std::unordered_map

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>             // Error
#include <tagop/perf_data_reader.hpp>  // PerfDataReader, RecordHandler

namespace tagop::arm_spe {

namespace {

perf_data::WriterEvent spe_event(const SpeCaptureOptions& o) {
  perf_data::WriterEvent e;
  e.attr.type = o.pmu_type;
  e.attr.size = sizeof(perf_event_attr);
  e.attr.config = o.config;
  e.attr.sample_period = o.period;
  // No PERF_SAMPLE_TIME: perf decodes the AUX data "timelessly" then, at
  // the end, without converting the SPE timestamps to its clock.
  e.attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU |
                       PERF_SAMPLE_PERIOD;
  // perf record asks for the physical address with pa_enable (config bit 1).
  if (o.config & 2) e.attr.sample_type |= PERF_SAMPLE_PHYS_ADDR;
  e.attr.read_format = PERF_FORMAT_ID;
  e.attr.disabled = 1;
  e.attr.sample_id_all = 1;
  e.attr.mmap = e.attr.comm = e.attr.mmap2 = e.attr.comm_exec = e.attr.task = 1;
  e.ids = {SpeCaptureWriter::event_id};
  e.name = "arm_spe_0//";
  return e;
}

// One AUX buffer's pieces, joined: a record may straddle two pieces.
struct Stream {
  std::vector<std::byte> bytes;
  std::vector<std::size_t> starts;        // of each piece in bytes
  std::vector<std::uint64_t> file_offsets;  // of each piece's AUXTRACE record
  std::vector<std::uint32_t> tids, cpus;
};

struct CaptureHandler : perf_data::RecordHandler {
  std::optional<perf_data::AuxtraceInfoRecord> info;
  std::map<std::uint32_t, Stream> streams;  // by idx
  std::unordered_map<std::uint32_t, std::uint32_t> pid_of;  // tid -> pid
  std::uint64_t buffers = 0, bytes = 0;

  std::uint64_t sample_fields() const override { return 0; }
  void auxtrace_info(const perf_data::AuxtraceInfoRecord& r) override {
    if (r.type == perf_auxtrace_arm_spe) info = r;
  }
  void auxtrace(const perf_data::AuxtraceRecord& r) override {
    Stream& s = streams[r.idx];
    s.starts.push_back(s.bytes.size());
    s.file_offsets.push_back(r.offset);
    s.tids.push_back(r.tid);
    s.cpus.push_back(r.cpu);
    s.bytes.insert(s.bytes.end(), r.data.begin(), r.data.end());
    ++buffers;
    bytes += r.data.size();
  }
  void comm(const perf_data::CommRecord& r) override { pid_of[r.tid] = r.pid; }
};

std::uint64_t load_u64(std::span<const std::byte> b, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= std::uint64_t(std::to_integer<std::uint8_t>(b[at + i])) << (8 * i);
  return v;
}

}  // namespace

SpeCaptureWriter::SpeCaptureWriter(const std::string& path, const SpeCaptureOptions& o)
    : writer_(path, {spe_event(o)},
              perf_data::WriterFeatures{
                  .cpuid = fmt::format("0x{:016x}", o.midr),
                  .pmu_mappings = {{o.pmu_type, "arm_spe_0"}},
                  .arch = "aarch64",
              }) {
  // perf 6.1's arm-spe.h: priv[ARM_SPE_PMU_TYPE], priv[ARM_SPE_PER_CPU_MMAPS].
  const std::uint64_t priv[] = {o.pmu_type, o.per_cpu_mmaps ? 1u : 0u};
  writer_.auxtrace_info(perf_auxtrace_arm_spe, priv);
}

void SpeCaptureWriter::buffer(std::span<const std::byte> packets, std::uint32_t tid, std::uint32_t cpu,
                              std::uint32_t idx) {
  std::uint64_t& offset = stream_offset_[idx];
  writer_.auxtrace(packets, offset, idx, tid, cpu);
  offset += (packets.size() + 7) / 8 * 8;  // the padding is part of the stream
}

std::optional<std::uint64_t> midr_from_cpuid(std::string_view cpuid) {
  if (cpuid.size() < 3 || cpuid.substr(0, 2) != "0x") return std::nullopt;
  std::uint64_t v = 0;
  const char* end = cpuid.data() + cpuid.size();
  const auto [p, ec] = std::from_chars(cpuid.data() + 2, end, v, 16);
  if (ec != std::errc{} || p != end) return std::nullopt;
  return v;
}

SpeCaptureDecode decode_spe_capture(const std::string& path, std::optional<DataSourceEncoding> encoding) {
  perf_data::PerfDataReader reader(path);
  CaptureHandler h;
  reader.read(h);
  if (!h.info)
    throw Error(ErrorCode::not_found,
                fmt::format("{}: no Arm SPE data (no PERF_RECORD_AUXTRACE_INFO of type {}, perf's "
                            "PERF_AUXTRACE_ARM_SPE)",
                            path, perf_auxtrace_arm_spe));
  SpeCaptureDecode out;
  if (h.info->priv.size() >= 8) out.pmu_type = static_cast<std::uint32_t>(load_u64(h.info->priv, 0));
  if (reader.info().cpuid) out.midr = midr_from_cpuid(*reader.info().cpuid);
  out.encoding = encoding ? *encoding : out.midr ? data_source_encoding_for_midr(*out.midr) : DataSourceEncoding::unknown;
  out.buffers = h.buffers;
  out.bytes = h.bytes;
  for (const auto& [idx, s] : h.streams) {
    // The piece an offset of the joined stream lies in.
    auto piece = [&](std::size_t at) {
      return static_cast<std::size_t>(std::upper_bound(s.starts.begin(), s.starts.end(), at) - s.starts.begin() - 1);
    };
    RecordStream decoded = decode_records(s.bytes);
    for (const PacketError& e : decoded.errors) {
      const std::size_t i = piece(e.offset);
      out.problems.push_back(fmt::format("AUX buffer {} at file offset {}: byte {}: {}", idx, s.file_offsets[i],
                                         e.offset - s.starts[i], e.reason));
    }
    for (const SpeRecord& r : decoded.records) {
      Sample sample = to_sample(r, {.data_source = out.encoding});
      const std::size_t i = piece(r.offset);
      if (!r.context && s.tids[i] != 0xFFFFFFFFu) sample.tid = s.tids[i];
      if (const auto it = h.pid_of.find(sample.tid); it != h.pid_of.end()) sample.pid = it->second;
      else sample.pid = sample.tid;
      if (s.cpus[i] != 0xFFFFFFFFu) sample.cpu = s.cpus[i];
      out.records.push_back(r);
      out.samples.push_back(sample);
    }
  }
  return out;
}

}  // namespace tagop::arm_spe
