#include <tagop/amd_ibs/perf_capture.hpp>

#include <algorithm>  // std::max
#include <cstring>    // std::memcpy

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include <tagop/amd_ibs/families.hpp>  // capabilities_of, require_ibs_family
#include <tagop/amd_ibs/layout.hpp>    // field_table
#include <tagop/amd_ibs/sampling_filters.hpp>  // sampling_filter_table
#include <tagop/error.hpp>             // Error

namespace tagop::amd_ibs {

namespace {

using perf_data::EventAttr;

const FieldSpec* field(std::string_view name, IbsRegister reg, unsigned family, unsigned model) {
  for (const FieldSpec& f : field_table())
    if (f.name == name && f.reg == reg && f.exists_on(family, model)) return &f;
  return nullptr;
}

// The capability bits some processor reports (caps.hpp's list).
constexpr std::uint32_t known_caps = ((1u << 17) - 1) | caps::OpDtlbPgSize;

std::string caps_names(std::uint32_t bits) {
  static constexpr std::pair<std::uint32_t, std::string_view> names[] = {
      {caps::Zen4Ext, "Zen4Ext (bit 11)"}, {caps::OpLdLat, "OpLdLat (bit 12)"},
      {caps::StrmStRmtSocket, "StrmStRmtSocket (bit 16)"}, {caps::OpDtlbPgSize, "OpDtlbPgSize (bit 19)"}};
  std::string out;
  for (auto [bit, name] : names)
    if (bits & bit) out += fmt::format("{}{}", out.empty() ? "" : ", ", name);
  return out.empty() ? fmt::format("{:#x}", bits) : out;
}

}  // namespace

std::vector<std::pair<CapsProblem, std::string>> caps_problems(IbsUnit unit, std::uint32_t caps_word, std::size_t size,
                                                               unsigned family, unsigned model) {
  std::vector<std::pair<CapsProblem, std::string>> out;
  const std::uint32_t sampling = unit == IbsUnit::fetch ? caps::FetchSam : caps::OpSam;
  const std::uint32_t expected = capabilities_of(family, model);
  if (!(caps_word & caps::IBSFFV) || !(caps_word & sampling)) {
    out.emplace_back(CapsProblem::garbage,
                     fmt::format("caps word {:#x} lacks IBSFFV or {} (bits 0 and {}), which Linux always reports: "
                                 "decoded with the capabilities Family {:X}h model {:02X}h reports ({:#x})",
                                 caps_word, unit == IbsUnit::fetch ? "FetchSam" : "OpSam",
                                 unit == IbsUnit::fetch ? 1 : 2, family, model, expected));
    return out;
  }
  if (caps_word & ~known_caps)
    out.emplace_back(CapsProblem::garbage, fmt::format("caps word {:#x} has bits {:#x} that no known processor "
                                                       "reports: they are ignored",
                                                       caps_word, caps_word & ~known_caps));
  const std::size_t announced = perf_raw_size(unit, caps_word);
  if (size < announced)
    out.emplace_back(CapsProblem::shorter,
                     fmt::format("the {} payload has {} bytes, but its caps word {:#x} announces {}: the optional "
                                 "registers it lacks are read as absent",
                                 unit_name(unit), size, caps_word, announced));
  if (size > announced)
    out.emplace_back(CapsProblem::longer, fmt::format("the {} payload has {} bytes, but its caps word {:#x} announces "
                                                      "{}: the last {} bytes are ignored",
                                                      unit_name(unit), size, caps_word, announced, size - announced));
  const std::uint32_t layout = layout_caps_mask();
  if ((caps_word & layout) != (expected & layout))
    out.emplace_back(CapsProblem::other_cpu,
                     fmt::format("caps word {:#x} differs from what Family {:X}h model {:02X}h reports ({:#x}) in "
                                 "{}, which change the layout: decoded as the caps word says",
                                 caps_word, family, model, expected, caps_names((caps_word ^ expected) & layout)));
  return out;
}

void IbsCapture::check_new_payload(IbsUnit unit, std::uint32_t caps_word, std::uint64_t key, std::size_t size,
                                   std::uint64_t offset) const {
  const std::lock_guard lock(check_mutex_);
  checked_[static_cast<int>(unit)].store(key, std::memory_order_relaxed);
  auto problems = caps_problems(unit, caps_word, size, cpu_.family, layout_model_);
  if (!first_caps_) first_caps_ = caps_word;
  else if (*first_caps_ != caps_word)
    problems.emplace_back(CapsProblem::changed, fmt::format("caps word {:#x} differs from the capture's first "
                                                            "sample's ({:#x}): each payload is decoded by its own",
                                                            caps_word, *first_caps_));
  for (const auto& [kind, text] : problems) {
    const std::uint32_t bit = 1u << static_cast<unsigned>(kind);
    if (reported_ & bit) continue;
    reported_ |= bit;
    warnings_.push_back(fmt::format("IBS sample at offset {}: {} (said once)", offset, text));
  }
}

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
    throw Error(ErrorCode::not_supported, fmt::format("{}: no IBS events (HEADER_PMU_MAPPINGS names no ibs_op or ibs_fetch PMU that an event "
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
    throw Error(ErrorCode::damaged, fmt::format("{}: the file does not say which processor recorded it (no HEADER_CPUID; a truncated "
                            "file loses it), and the IBS layout depends on it: give --family (and --model)",
                            info.path));
  }
  // Hygon's Dhyana is a Zen 1 with AMD's IBS (Linux drives both alike).
  if (!cpu && cpu_.vendor != "AuthenticAMD" && cpu_.vendor != "HygonGenuine")
    throw Error(ErrorCode::not_supported, fmt::format("{}: recorded on a {} processor ({}): IBS is AMD's", info.path, cpu_.vendor,
                            cpu_.to_string()));
  try {
    require_ibs_family(cpu_.family);
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("{}: {} ({}); give --family (and --model) to decode it as another", info.path, e.what(),
                            cpu ? "from --family" : "HEADER_CPUID says " + cpu_.to_string()));
  }
  // A model newer than the table of generations is decoded as the
  // nearest one it lists, and the user told: its caps word still picks
  // the capability fields, but a model rule of its own would be missed.
  unsigned& model = layout_model_ = cpu_.model;
  if (const std::optional<unsigned> near = nearest_known_model(cpu_.family, cpu_.model)) {
    model = *near;
    warnings_.push_back(fmt::format("Family {:X}h model {:02X}h is not in tagop's table of AMD generations (Linux's "
                                    "bsp_init_amd()): decoded with the layout of model {:02X}h ({}), the nearest it "
                                    "knows; a rule of the newer part's own is not applied",
                                    cpu_.family, cpu_.model, model, generation(cpu_.family, model)));
  }
  decoder_ = std::make_unique<FastIbsDecoder>(cpu_.family, model);
  fetch_max_cnt_ = field("IbsFetchMaxCnt", IbsRegister::IbsFetchCtl, cpu_.family, model);
  op_max_cnt_ = field("IbsOpMaxCnt", IbsRegister::IbsOpCtl, cpu_.family, model);
  op_max_cnt_ext_ = field("IbsOpMaxCntExt", IbsRegister::IbsOpCtl, cpu_.family, model);
  op_cnt_ctl_ = field("IbsOpCntCtl", IbsRegister::IbsOpCtl, cpu_.family, model);
  auto bits = [](const FieldSpec* f) { return f ? f->mask() : std::uint64_t{0}; };
  period_bits_[static_cast<int>(IbsUnit::fetch)] = bits(fetch_max_cnt_);
  period_bits_[static_cast<int>(IbsUnit::op)] = bits(op_max_cnt_) | bits(op_max_cnt_ext_) | bits(op_cnt_ctl_);
  // The address Sample::ip holds, and IbsRipInvalid, are in fixed
  // registers, whose places no capability bit moves.
  read_filters(info);
  const FieldSpec* rip_invalid = field("IbsRipInvalid", IbsRegister::IbsOpData, cpu_.family, model);
  for (const FieldSpec& f : field_table()) {
    if (f.address != AddressSlot::ip || !f.exists_on(cpu_.family, model)) continue;
    const IbsUnit unit = amd_ibs::info(f.reg).unit;
    const auto offsets = perf_raw_offsets(unit, 0, perf_raw_size(unit, 0));
    const std::int16_t at = offsets[static_cast<std::size_t>(f.reg)];
    if (at < 0) continue;
    IpPlace& place = ip_place_[static_cast<int>(unit)];
    place.at = static_cast<std::size_t>(at);
    std::size_t end = place.at + 8;
    if (unit == IbsUnit::op && rip_invalid) {
      place.invalid_at = static_cast<std::size_t>(offsets[static_cast<std::size_t>(IbsRegister::IbsOpData)]);
      place.invalid_mask = rip_invalid->mask();
      end = std::max(end, place.invalid_at + 8);
    }
    ip_end_[static_cast<int>(unit)] = end;
  }
}

void IbsCapture::read_filters(const perf_data::FileInfo& info) {
  const std::uint32_t caps = capabilities_of(cpu_.family, layout_model_);
  std::optional<std::pair<std::uint64_t, std::uint64_t>> seen[2];
  for (std::size_t i = 0; i < info.attrs.size() && i < routes_.size(); ++i) {
    if (routes_[i] > Route::op) continue;
    const IbsUnit unit = static_cast<IbsUnit>(routes_[i]);
    const perf_event_attr& a = info.attrs[i].attr;
    const std::pair<std::uint64_t, std::uint64_t> config{a.config, unit == IbsUnit::op ? a.config1 : 0};
    auto& first = seen[static_cast<int>(unit)];
    if (first) {
      if (*first != config)
        warnings_.push_back(fmt::format("the capture has {} events with different configs ({:#x}, {:#x}): their "
                                        "sampling filters are read from the first",
                                        unit_name(unit), first->first, config.first));
      continue;
    }
    first = config;
    SamplingFilter& f = filters_[static_cast<int>(unit)];
    // Linux takes these only from a processor with the capability (its
    // config_mask, perf_ibs_ldlat_event()).
    const bool zen4 = caps & caps::Zen4Ext;
    f.l3_miss_only = zen4 && ((a.config >> (unit == IbsUnit::op ? 16 : 59)) & 1);
    if (unit == IbsUnit::op && (caps & caps::OpLdLat)) {
      f.load_latency = static_cast<std::uint32_t>(a.config1 & 0xFFF);
      // "perf/amd/ibs: Limit ldlat->l3missonly dependency to Zen5" (2026).
      if (f.load_latency && generation(cpu_.family, layout_model_) == "Zen 5") f.l3_miss_only = true;
    }
    if (!f.any()) continue;
    // The population and words from the table of filters.
    Predicate population;
    std::vector<std::string> kept;
    for (const SamplingFilterSpec& spec : sampling_filter_table()) {
      if (spec.unit != unit) continue;
      const bool on = spec.kind == SamplingFilterKind::l3_miss_only ? f.l3_miss_only : f.load_latency != 0;
      if (!on) continue;
      population = population & Predicate::parse(spec.population);
      std::string words(spec.keeps), perf(spec.perf_event);
      if (spec.kind == SamplingFilterKind::load_latency) {
        words = fmt::format("loads that missed the DC with a miss latency above {} cycles", f.load_latency);
        perf = fmt::format("ibs_op/ldlat={}/", f.load_latency);
      }
      kept.push_back(fmt::format("{} ({}, {})", words, spec.name, perf));
    }
    f.population = population;
    f.text = fmt::format("only {}", fmt::join(kept, ", and "));
  }
  // What the filter says of every sample that its bits do not.
  if (filters_[static_cast<int>(IbsUnit::op)].l3_miss_only)
    decoder_->assume(IbsUnit::op, ConditionSet{condition("l3.miss")});
}

IbsCapture::~IbsCapture() = default;

const IbsDecoder& IbsCapture::decoder() const { return decoder_->decoder(); }

FastIbsDecoder IbsCapture::new_decoder() const {
  FastIbsDecoder d(cpu_.family, layout_model_);
  for (IbsUnit unit : {IbsUnit::fetch, IbsUnit::op}) d.assume(unit, decoder_->assumed(unit));
  return d;
}

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
  check_payload(unit, r.raw, r.offset);
  const SampleIp ip = ip_of(unit, r);
  out.ip = ip.ip;
  out.ip_exact = ip.exact;
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

namespace {

// The capability files Linux puts in /sys/bus/event_source/devices/ibs_*/caps
// (arch/x86/events/amd/ibs.c): zen4_ibs_extensions with caps bit 11 on both
// PMUs (6.1), ldlat and dtlb_pgsize on ibs_op with bits 12 and 19 (6.15).
std::vector<perf_data::PmuCaps> pmu_caps_of(std::uint32_t c) {
  std::vector<perf_data::PmuCaps> out;
  if (!(c & caps::Zen4Ext)) return out;
  out.push_back({"ibs_fetch", {{"zen4_ibs_extensions", "1"}}});
  perf_data::PmuCaps op{"ibs_op", {{"zen4_ibs_extensions", "1"}}};
  if (c & caps::OpLdLat) op.caps.emplace_back("ldlat", "1");
  if (c & caps::OpDtlbPgSize) op.caps.emplace_back("dtlb_pgsize", "1");
  out.push_back(std::move(op));
  return out;
}

}  // namespace

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
                  // ibs_op's config bit 19 is cnt_ctl, as in IbsOpCtl; l3missonly
                  // is config bit 16 (59 for ibs_fetch), ldlat config1 11:0.
                  e.attr.config = !fetch && o.op_counts_dispatched ? std::uint64_t{1} << 19 : 0;
                  if (fetch ? o.fetch_l3_miss_only : o.op_l3_miss_only)
                    e.attr.config |= std::uint64_t{1} << (fetch ? 59 : 16);
                  if (!fetch) e.attr.config1 = o.op_load_latency;
                  e.attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
                  if (!fetch && o.op_sample_type) e.attr.sample_type = *o.op_sample_type;
                  e.attr.read_format = PERF_FORMAT_ID;
                  e.attr.disabled = 1;
                  e.attr.inherit = 1;
                  e.attr.sample_id_all = 1;
                  e.attr.mmap = e.attr.comm = fetch ? 1 : 0;  // perf tracks tasks on the first event
                  e.attr.mmap2 = e.attr.comm_exec = e.attr.task = fetch ? 1 : 0;
                  e.ids = {fetch ? fetch_id : op_id};
                  e.name = fetch ? "ibs_fetch//" : (o.op_counts_dispatched ? "ibs_op/cnt_ctl=1/" : "ibs_op//");
                  if (fetch && o.fetch_l3_miss_only) e.name = "ibs_fetch/l3missonly=1/";
                  if (!fetch && (o.op_l3_miss_only || o.op_load_latency)) {
                    std::string terms = o.op_counts_dispatched ? "cnt_ctl=1" : "";
                    if (o.op_l3_miss_only) terms += std::string(terms.empty() ? "" : ",") + "l3missonly=1";
                    if (o.op_load_latency) terms += fmt::format("{}ldlat={}", terms.empty() ? "" : ",", o.op_load_latency);
                    e.name = fmt::format("ibs_op/{}/", terms);
                  }
                  events.push_back(std::move(e));
                }
                return events;
              }(),
              perf_data::WriterFeatures{
                  .cpuid = fmt::format("AuthenticAMD,{},{},{}", o.family, o.model, o.stepping),
                  .pmu_mappings = {{o.fetch_type, "ibs_fetch"}, {o.op_type, "ibs_op"}},
                  .pmu_caps = pmu_caps_of(o.capabilities.value_or(capabilities_of(o.family, o.model))),
              }) {}

void IbsCaptureWriter::sample(const IbsRegisters& given, std::uint32_t pid, std::uint32_t tid, std::uint32_t cpu,
                              std::uint64_t time, std::uint64_t interrupted_ip) {
  sample(given, pid, tid, cpu, time, interrupted_ip, {});
}

void IbsCaptureWriter::sample(const IbsRegisters& given, std::uint32_t pid, std::uint32_t tid, std::uint32_t cpu,
                              std::uint64_t time, std::uint64_t interrupted_ip, std::span<const std::uint64_t> callchain) {
  IbsRegisters regs = given;
  const bool fetch = regs.unit == IbsUnit::fetch;
  const std::uint64_t period = fetch ? options_.fetch_period : options_.op_period;
  if (fetch) {
    std::uint64_t ctl = regs.get(IbsRegister::IbsFetchCtl);
    // MaxCnt = period / 16; IbsFetchEn (48) and IbsFetchVal (49), as the hardware reports them.
    if ((ctl & 0xFFFF) == 0) ctl |= ((period >> 4) & 0xFFFF) | std::uint64_t{3} << 48;
    if (options_.fetch_l3_miss_only) ctl |= std::uint64_t{1} << 59;
    regs.set(IbsRegister::IbsFetchCtl, ctl);
  } else {
    std::uint64_t ctl = regs.get(IbsRegister::IbsOpCtl);
    if ((ctl & 0xFFFF) == 0) {
      ctl |= ((period >> 4) & 0xFFFF) | (((period >> 20) & 0x7F) << 20);
      ctl |= std::uint64_t{3} << 17;  // IbsOpEn, IbsOpVal
      if (options_.op_counts_dispatched) ctl |= std::uint64_t{1} << 19;
    }
    // Linux's perf_ibs_init(): L3MissOnly (16); ldlat as LdLatThrsh 62:59
    // = ldlat / 128 - 1 and LdLatEn (63).
    const bool zen5 = generation(options_.family, options_.model) == "Zen 5";  // erratum #1606
    if (options_.op_l3_miss_only || (options_.op_load_latency && zen5)) ctl |= std::uint64_t{1} << 16;
    if (options_.op_load_latency)
      ctl |= ((std::uint64_t{options_.op_load_latency} >> 7) - 1) << 59 | std::uint64_t{1} << 63;
    regs.set(IbsRegister::IbsOpCtl, ctl);
  }
  raw_.assign(perf_raw_size(regs.unit, caps_), std::byte{0});
  write_perf_raw(regs, caps_, raw_);
  // Linux's perf_ibs_handle_irq: with IbsRipInvalid (and the capability to
  // say so) the interrupted address, without PERF_EFLAGS_EXACT.
  const bool rip_invalid = !fetch && (caps_ & caps::RipInvalidChk) && (regs.get(IbsRegister::IbsOpData) >> 38 & 1);
  writer_.sample(fetch ? 0 : 1,
                 perf_data::SampleFields{
                     .ip = rip_invalid ? interrupted_ip
                                       : regs.get(fetch ? IbsRegister::IbsFetchLinAd : IbsRegister::IbsOpRip),
                     .pid = pid,
                     .tid = tid,
                     .time = time,
                     .cpu = cpu,
                     .period = period,
                     .callchain = callchain,
                     .raw = raw_,
                     .misc = static_cast<std::uint16_t>(perf_data::misc_user | (rip_invalid ? 0 : perf_data::misc_exact_ip)),
                 });
}

}  // namespace tagop::amd_ibs
