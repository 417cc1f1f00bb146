#include <tagop/amd_ibs/perf_capture.hpp>

#include <cstring>  // std::memcpy

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/layout.hpp>      // field_table
#include <tagop/amd_ibs/programmer.hpp>  // capabilities_of
#include <tagop/error.hpp>               // Error

namespace tagop::amd_ibs {

namespace {

using perf_data::EventAttr;

const FieldSpec* field(std::string_view name, unsigned family, unsigned model) {
  for (const FieldSpec& f : field_table())
    if (f.name == name && f.exists_on(family, model)) return &f;
  return nullptr;
}

}  // namespace

IbsCapture::IbsCapture(const perf_data::FileInfo& info, std::optional<CpuId> cpu) {
  const auto fetch_type = info.pmu_type("ibs_fetch");
  const auto op_type = info.pmu_type("ibs_op");
  bool any = false;
  for (const EventAttr& a : info.attrs) {
    std::optional<IbsUnit> unit;
    if (fetch_type && a.attr.type == *fetch_type) unit = IbsUnit::fetch;
    if (op_type && a.attr.type == *op_type) unit = IbsUnit::op;
    // Without mappings, a raw-sampling event of a dynamic PMU may be IBS:
    // its payload size will say.
    const bool guess = !fetch_type && !op_type && a.attr.type >= PERF_TYPE_MAX && (a.attr.sample_type & PERF_SAMPLE_RAW);
    routes_.push_back(unit ? static_cast<Route>(*unit) : guess ? Route::by_size : Route::not_ibs);
    any = any || unit || guess;
    if (unit && !a.attr.freq) requested_period_[static_cast<int>(*unit)] = a.attr.sample_period;
  }
  if (!info.attrs.empty()) first_attr_ = &info.attrs[0];
  if (!any)
    throw Error(fmt::format("{}: no IBS events (HEADER_PMU_MAPPINGS names no ibs_op or ibs_fetch PMU that an event "
                            "uses); record with: perf record -e ibs_op/cnt_ctl=1/ -e ibs_fetch// --raw-samples -a",
                            info.path));
  if (!fetch_type && !op_type)
    warnings_.push_back("the file has no PMU mappings (HEADER_PMU_MAPPINGS): events of dynamic PMUs with raw "
                        "samples are read as IBS, fetch or op by the size of their payload");
  if (cpu) {
    cpu_ = *cpu;
  } else if (info.cpuid) {
    cpu_ = CpuId::parse(*info.cpuid);
  } else {
    throw Error(fmt::format("{}: the file does not say which processor recorded it (no HEADER_CPUID; a truncated "
                            "file loses it), and the IBS layout depends on it: give --family (and --model)",
                            info.path));
  }
  if (!cpu && cpu_.vendor != "AuthenticAMD")
    throw Error(fmt::format("{}: recorded on a {} processor ({}): IBS is AMD's", info.path, cpu_.vendor,
                            cpu_.to_string()));
  decoder_ = std::make_unique<FastIbsDecoder>(cpu_.family, cpu_.model);
  fetch_max_cnt_ = field("IbsFetchMaxCnt", cpu_.family, cpu_.model);
  op_max_cnt_ = field("IbsOpMaxCnt", cpu_.family, cpu_.model);
  op_max_cnt_ext_ = field("IbsOpMaxCntExt", cpu_.family, cpu_.model);
  op_cnt_ctl_ = field("IbsOpCntCtl", cpu_.family, cpu_.model);
  auto bits = [](const FieldSpec* f) { return f ? f->mask() : std::uint64_t{0}; };
  period_bits_[static_cast<int>(IbsUnit::fetch)] = bits(fetch_max_cnt_);
  period_bits_[static_cast<int>(IbsUnit::op)] = bits(op_max_cnt_) | bits(op_max_cnt_ext_) | bits(op_cnt_ctl_);
  // The address Sample::ip holds is one of the fixed registers, whose
  // places no capability bit moves.
  for (const FieldSpec& f : field_table()) {
    if (f.address != AddressSlot::ip || !f.exists_on(cpu_.family, cpu_.model)) continue;
    const IbsUnit unit = amd_ibs::info(f.reg).unit;
    const auto offsets = perf_raw_offsets(unit, 0, perf_raw_size(unit, 0));
    if (const std::int16_t at = offsets[static_cast<std::size_t>(f.reg)]; at >= 0)
      ip_end_[static_cast<int>(unit)] = static_cast<std::size_t>(at) + 8;
  }
}

IbsCapture::~IbsCapture() = default;

const IbsDecoder& IbsCapture::decoder() const { return decoder_->decoder(); }

std::optional<IbsUnit> IbsCapture::unit_of(const EventAttr* attr) const {
  const auto i = static_cast<std::size_t>(attr - first_attr_);
  if (i >= routes_.size() || routes_[i] > Route::op) return std::nullopt;
  return static_cast<IbsUnit>(routes_[i]);
}

std::uint64_t IbsCapture::requested_period(IbsUnit unit) const { return requested_period_[static_cast<int>(unit)]; }

IbsCapture::Result IbsCapture::decode(const perf_data::SampleRecord& r, Sample& out, IbsSampleInfo& si,
                                      std::string& problem) const {
  IbsUnit unit = IbsUnit::op;
  std::string_view classified;
  if (const Result result = classify(r, unit, classified); result != Result::ok) {
    problem = classified;
    return result;
  }
  std::uint64_t control = 0;
  try {
    control = decoder_->decode_perf_raw(unit, r.raw, out);
  } catch (const Error& e) {
    problem = e.what();
    return Result::damaged;
  }
  out.pid = r.id.pid;
  out.tid = r.id.tid;
  out.cpu = r.id.cpu;
  out.time = r.id.time;
  if (!(r.sample_type & PERF_SAMPLE_TID)) out.pid = out.tid = 0;
  si.unit = unit;
  const Period p = period_of(unit, control);
  si.period = p.period;
  si.counts_ops = p.counts_ops;
  return Result::ok;
}

IbsCaptureWriter::IbsCaptureWriter(const std::string& path, const IbsCaptureOptions& o)
    : options_(o),
      caps_(o.capabilities.value_or(capabilities_of(o.family, o.model))),
      writer_(path,
              [&] {
                std::vector<perf_data::WriterEvent> events;
                for (IbsUnit unit : {IbsUnit::fetch, IbsUnit::op}) {
                  perf_data::WriterEvent e;
                  const bool fetch = unit == IbsUnit::fetch;
                  e.attr.type = fetch ? o.fetch_type : o.op_type;
                  e.attr.size = sizeof(perf_event_attr);
                  e.attr.sample_period = fetch ? o.fetch_period : o.op_period;
                  // ibs_op's config bit 19 is cnt_ctl, as in IbsOpCtl.
                  e.attr.config = !fetch && o.op_counts_dispatched ? std::uint64_t{1} << 19 : 0;
                  e.attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
                  e.attr.read_format = PERF_FORMAT_ID;
                  e.attr.disabled = 1;
                  e.attr.inherit = 1;
                  e.attr.sample_id_all = 1;
                  e.attr.mmap = e.attr.comm = fetch ? 1 : 0;  // perf tracks tasks on the first event
                  e.attr.mmap2 = e.attr.comm_exec = e.attr.task = fetch ? 1 : 0;
                  e.ids = {fetch ? fetch_id : op_id};
                  e.name = fetch ? "ibs_fetch//" : (o.op_counts_dispatched ? "ibs_op/cnt_ctl=1/" : "ibs_op//");
                  events.push_back(std::move(e));
                }
                return events;
              }(),
              perf_data::WriterFeatures{
                  .cpuid = fmt::format("AuthenticAMD,{},{},{}", o.family, o.model, o.stepping),
                  .pmu_mappings = {{o.fetch_type, "ibs_fetch"}, {o.op_type, "ibs_op"}},
              }) {}

void IbsCaptureWriter::sample(const IbsRegisters& given, std::uint32_t pid, std::uint32_t tid, std::uint32_t cpu,
                              std::uint64_t time) {
  IbsRegisters regs = given;
  const bool fetch = regs.unit == IbsUnit::fetch;
  const std::uint64_t period = fetch ? options_.fetch_period : options_.op_period;
  if (fetch) {
    std::uint64_t ctl = regs.get(IbsRegister::IbsFetchCtl);
    // MaxCnt = period / 16; IbsFetchEn (48) and IbsFetchVal (49), as the hardware reports them.
    if ((ctl & 0xFFFF) == 0) ctl |= ((period >> 4) & 0xFFFF) | std::uint64_t{3} << 48;
    regs.set(IbsRegister::IbsFetchCtl, ctl);
  } else {
    std::uint64_t ctl = regs.get(IbsRegister::IbsOpCtl);
    if ((ctl & 0xFFFF) == 0) {
      ctl |= ((period >> 4) & 0xFFFF) | (((period >> 20) & 0x7F) << 20);
      ctl |= std::uint64_t{3} << 17;  // IbsOpEn, IbsOpVal
      if (options_.op_counts_dispatched) ctl |= std::uint64_t{1} << 19;
    }
    regs.set(IbsRegister::IbsOpCtl, ctl);
  }
  raw_.assign(perf_raw_size(regs.unit, caps_), std::byte{0});
  write_perf_raw(regs, caps_, raw_);
  writer_.sample(fetch ? 0 : 1, perf_data::SampleFields{
                                    .ip = regs.get(fetch ? IbsRegister::IbsFetchLinAd : IbsRegister::IbsOpRip),
                                    .pid = pid,
                                    .tid = tid,
                                    .time = time,
                                    .cpu = cpu,
                                    .period = period,
                                    .raw = raw_,
                                });
}

}  // namespace tagop::amd_ibs
