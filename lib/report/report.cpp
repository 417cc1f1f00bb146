#include <tagop/report/report.hpp>

#include <algorithm>      // std::all_of, std::partial_sort, std::sort
#include <unordered_map>  // events by name

#include <fmt/format.h>  // fmt::format

#include <tagop/mem_data_src.hpp>  // data_src_conditions
#include <tagop/amd_ibs/derived_events.hpp>      // derived_event_queries
#include <tagop/amd_ibs/event_availability.hpp>  // event_availability
#include <tagop/error.hpp>                   // Error
#include <tagop/predicate_relation.hpp>      // contradiction_text, implies
#include <tagop/report/kernel_symbol_source.hpp>  // kernel_symbol_source

#include "cpu_budget.hpp"  // idle_cpus
#include "report_state.hpp"
#include "unwind_warnings.hpp"  // unwind_warnings
#include "walk.hpp"  // Walk, DataAccess

namespace tagop::report {

namespace {

constexpr std::pair<GroupBy, std::string_view> group_names[] = {
    {GroupBy::function, "function"}, {GroupBy::module, "module"}, {GroupBy::process, "process"},
    {GroupBy::address, "address"},   {GroupBy::line, "line"},     {GroupBy::callchain, "callchain"},
    {GroupBy::thread, "thread"},     {GroupBy::cpu, "cpu"},       {GroupBy::data, "data"},
    {GroupBy::cacheline, "cacheline"},
};

// perf report's --sort keys that a GroupBy stands for. perf's pid rows are
// threads ("tid:comm", its sort_thread), as its tid's; its comm rows the
// threads of one name.
constexpr std::pair<std::string_view, GroupBy> perf_keys[] = {
    {"comm", GroupBy::process}, {"pid", GroupBy::thread},    {"tid", GroupBy::thread}, {"dso", GroupBy::module},
    {"sym", GroupBy::function}, {"srcline", GroupBy::line}, {"cpu", GroupBy::cpu},
};

bool data_view(GroupBy k) { return k == GroupBy::data || k == GroupBy::cacheline; }

bool row_kind(GroupBy k) {
  return k == GroupBy::function || k == GroupBy::address || k == GroupBy::line || k == GroupBy::callchain ||
         data_view(k);
}

std::string event_name(const perf_data::EventAttr& a) {
  return a.name.empty() ? fmt::format("type {} config {:#x}", a.attr.type, a.attr.config) : a.name;
}

// --where on conditions no IBS unit of this processor observes cannot
// select anything: say so rather than print no rows.
void check_where(const Predicate& where, const amd_ibs::IbsCapture& capture, std::vector<std::string>& warnings) {
  if (const std::string why = contradiction_text(where); !why.empty())
    warnings.push_back(fmt::format("--where '{}' meets no op by the vocabulary's implications ({}): it selects only "
                                   "samples whose bits contradict them",
                                   where.to_string(), why));
  // The capture's population, where a filter chose it.
  for (amd_ibs::IbsUnit u : {amd_ibs::IbsUnit::fetch, amd_ibs::IbsUnit::op}) {
    const amd_ibs::SamplingFilter& f = capture.filter(u);
    if (!f.any()) continue;
    const Predicate kind = Predicate::parse(u == amd_ibs::IbsUnit::fetch ? "fetch" : "op");
    if (!overlaps(where & kind, kind)) continue;  // --where asks nothing of this unit
    if (!overlaps(where, f.population))
      warnings.push_back(fmt::format("--where '{}' selects no {} sample: the capture samples {}, and every {} sample "
                                     "meets {}",
                                     where.to_string(), amd_ibs::unit_name(u), f.text, amd_ibs::unit_name(u),
                                     f.population.to_string()));
    else if (!implies(f.population, where))
      warnings.push_back(fmt::format("--where '{}' is asked of the {} samples the filter kept ({}), not of every {}",
                                     where.to_string(), amd_ibs::unit_name(u), f.population.to_string(),
                                     u == amd_ibs::IbsUnit::fetch ? "fetch" : "op"));
  }
  const ConditionSet used = where.used();
  const ConditionSet fetch = capture.decoder().observable(amd_ibs::IbsUnit::fetch);
  const ConditionSet op = capture.decoder().observable(amd_ibs::IbsUnit::op);
  if (fetch.contains_all(used) || op.contains_all(used)) return;
  std::string missing;
  std::size_t count = 0;
  for (Condition c : used.members())
    if (!fetch.contains(c) && !op.contains(c)) missing += (count++ ? ", " : "") + std::string(c.name());
  if (count)
    throw Error(fmt::format("--where '{}': {} {} not available on this processor ({}): no IBS sample can tell",
                            where.to_string(), missing, count == 1 ? "is" : "are", capture.cpu().to_string()));
  throw Error(fmt::format("--where '{}': no IBS unit of this processor ({}) observes all of {}: fetch samples know "
                          "nothing of ops, and op samples nothing of fetches",
                          where.to_string(), capture.cpu().to_string(), used.to_string()));
}

}  // namespace

std::string_view name_of(GroupBy by) {
  for (const auto& [b, name] : group_names)
    if (b == by) return name;
  return {};
}

std::optional<GroupBy> parse_group_by(std::string_view name) {
  for (const auto& [b, n] : group_names)
    if (n == name) return b;
  return std::nullopt;
}

std::optional<GroupBy> group_by_of_perf_key(std::string_view perf_key) {
  for (const auto& [name, by] : perf_keys)
    if (name == perf_key) return by;
  return std::nullopt;
}

void check_group_keys(std::span<const GroupBy> keys, bool children) {
  if (keys.empty()) throw Error("no key to group the rows by");
  const GroupBy* kind = nullptr;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j)
      if (keys[j] == keys[i]) throw Error(fmt::format("{} is a key twice", name_of(keys[i])));
    if (!row_kind(keys[i])) continue;
    if (kind)
      throw Error(fmt::format("{} and {} together: a row is one function, address, source line, call chain, data "
                              "object or cache line, not two",
                              name_of(*kind), name_of(keys[i])));
    kind = &keys[i];
  }
  const bool module = std::find(keys.begin(), keys.end(), GroupBy::module) != keys.end();
  if (kind && data_view(*kind) && module)
    throw Error(fmt::format("module and {} together: a data row names its own module (the one mapped at the data "
                            "address; {} goes with process, thread and cpu)",
                            name_of(*kind), name_of(*kind)));
  if (kind && data_view(*kind) && children)
    throw Error(fmt::format("--children with {}: a data address has no callers to sum into", name_of(*kind)));
  if (kind && *kind == GroupBy::callchain && std::find(keys.begin(), keys.end(), GroupBy::module) != keys.end())
    throw Error("module and callchain together: a call chain crosses modules (callchain goes with process, thread "
                "and cpu)");
  if (children && keys.size() > 1)
    throw Error(fmt::format("--children with {} keys: callees are summed into their callers by one key (function, "
                            "module, address or line) alone",
                            keys.size()));
}

GroupBy main_key(std::span<const GroupBy> keys) {
  for (GroupBy k : keys)
    if (row_kind(k)) return k;
  for (GroupBy k : keys)
    if (k == GroupBy::module) return k;
  return keys.empty() ? GroupBy::function : keys.front();
}

std::vector<GroupBy> parse_group_keys(std::string_view list, std::string_view what) {
  std::vector<GroupBy> keys;
  for (std::size_t at = 0;;) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string_view name = list.substr(at, comma - at);
    const std::optional<GroupBy> by = parse_group_by(name);
    if (!by) {
      const std::optional<GroupBy> perf = group_by_of_perf_key(name);
      throw Error(fmt::format("{} '{}': {} is not a key (expected function, module, process, thread, cpu, address, "
                              "line, callchain, data or cacheline, separated by commas){}",
                              what, list, name.empty() ? "an empty name" : fmt::format("'{}'", name),
                              perf ? fmt::format("; perf's {} is tagop's {}", name, name_of(*perf)) : ""));
    }
    keys.push_back(*by);
    if (comma == list.size()) break;
    at = comma + 1;
  }
  try {
    check_group_keys(keys, false);
  } catch (const Error& e) {
    throw Error(fmt::format("{} '{}': {}", what, list, e.what()));
  }
  return keys;
}

bool holds_ibs_events(const perf_data::FileInfo& info) {
  const auto fetch = info.pmu_type("ibs_fetch"), op = info.pmu_type("ibs_op");
  for (const perf_data::EventAttr& a : info.attrs) {
    // perf mem record on AMD samples ibs_op without its registers (no
    // PERF_SAMPLE_RAW): what it has is the kernel's reading of them, the
    // data source, read as any vendor's (holds_data_sources()).
    const bool perf_mem = !(a.attr.sample_type & PERF_SAMPLE_RAW) && (a.attr.sample_type & PERF_SAMPLE_DATA_SRC);
    if (((fetch && a.attr.type == *fetch) || (op && a.attr.type == *op)) && !perf_mem) return true;
    if (!fetch && !op && a.attr.type >= PERF_TYPE_MAX && (a.attr.sample_type & PERF_SAMPLE_RAW)) return true;
  }
  return false;
}

// The modules the capture says its samples hit: perf record lists them in
// its build-id table (tagop record lists the kernel always); where every
// event excludes the kernel, the kernel is left out.
std::vector<ModuleRef> sampled_modules(const perf_data::FileInfo& info) {
  const bool kernel_excluded = std::all_of(info.attrs.begin(), info.attrs.end(),
                                           [](const perf_data::EventAttr& a) { return a.attr.exclude_kernel; });
  std::vector<ModuleRef> out;
  for (const perf_data::BuildIdEntry& b : info.build_ids) {
    const bool kernel = b.cpumode == perf_data::misc_kernel;
    if (!(kernel && kernel_excluded)) out.push_back({.path = b.filename, .build_id = b.build_id, .kernel = kernel});
  }
  return out;
}

bool holds_data_sources(const perf_data::FileInfo& info) {
  if (holds_ibs_events(info)) return false;
  for (const perf_data::EventAttr& a : info.attrs)
    if (a.attr.sample_type & PERF_SAMPLE_DATA_SRC) return true;
  return false;
}

namespace {

// --where on a capture whose conditions are its samples' data sources:
// a condition no data source decides leaves every sample undecided.
std::string names_of(const ConditionSet& set) {
  std::string out;
  for (Condition c : set.members()) out += fmt::format("{}{}", out.empty() ? "" : ", ", c.name());
  return out;
}

void check_data_src_where(const Predicate& where, const std::string& path) {
  ConditionSet unknown = where.used();
  unknown.erase(data_src_conditions());
  if (unknown.empty()) return;
  throw ColumnError(fmt::format("--where '{}': {} cannot be told from the data sources of {}'s samples "
                                "(PERF_SAMPLE_DATA_SRC, perf mem): they decide only {}",
                                where.to_string(), names_of(unknown), path, names_of(data_src_conditions())));
}

}  // namespace

Report::Report(perf_data::PerfDataReader& reader, const Options& o) : state_(std::make_unique<State>()) {
  State& s = *state_;
  const perf_data::FileInfo& info = reader.info();
  if (o.keys.size() > 1) {
    check_group_keys(o.keys, o.children);
    s.keys = o.keys;
    s.by = main_key(o.keys);
    const auto has = [&](GroupBy k) { return std::find(o.keys.begin(), o.keys.end(), k) != o.keys.end(); };
    s.split_thread = has(GroupBy::thread);
    s.split_cpu = has(GroupBy::cpu);
    s.by_process = (has(GroupBy::process) || s.split_thread) && s.by != GroupBy::process;
  } else {
    s.by = o.keys.empty() ? o.by : o.keys.front();
    s.keys = {s.by};
    s.split_thread = s.by == GroupBy::thread;
    s.split_cpu = s.by == GroupBy::cpu;
    s.by_process = (o.by_process || s.split_thread) && s.by != GroupBy::process;
  }
  if (data_view(s.by) && o.children) check_group_keys(s.keys, true);
  s.children = o.children;
  s.demangle = o.demangle;
  s.data_files = o.unwind_files;
  s.signatures = o.signatures;
  s.ibs = holds_ibs_events(info);
  std::uint32_t needed = 0;
  if (s.ibs) {
    s.capture.emplace(info, o.cpu);
    s.cpu = s.capture->cpu();
    s.cpu_source = o.cpu ? "--family/--model" : "HEADER_CPUID";
    if (o.filters.where) check_where(*o.filters.where, *s.capture, s.warnings);
    for (const auto& e : amd_ibs::derived_event_table()) s.query_names.push_back(amd_ibs::select_string(e.select));
    for (const Query& q : amd_ibs::derived_event_queries()) {
      s.queries.emplace_back(q);
      if (q.sums) needed |= 1u << q.sums->index;
    }
    s.samples_column = resolve_column("samples");
    // Which estimates the sampling filters bias, once (value() asks per row).
    for (std::size_t q = 0; q < s.queries.size(); ++q) {
      const auto& e = amd_ibs::derived_event_table()[q];
      const amd_ibs::SamplingFilter& f = s.capture->filter(e.unit);
      std::string& bias = s.estimate_bias.emplace_back();
      if (!f.any()) continue;
      s.filtered = true;
      if (f.load_latency)
        bias = fmt::format("the capture samples {}: no count of {}'s ops follows from them", f.text,
                           amd_ibs::select_string(e.select));
      else if (!implies(s.queries[q].query().predicate, f.population))
        bias = fmt::format("the capture samples {} ({}): {}'s ops outside them were not sampled", f.text,
                           f.population.to_string(), amd_ibs::select_string(e.select));
    }
    for (amd_ibs::IbsUnit u : {amd_ibs::IbsUnit::fetch, amd_ibs::IbsUnit::op})
      s.requested_period[static_cast<std::size_t>(u)] = s.capture->requested_period(u);
  } else {
    s.content.data_src = holds_data_sources(info);
    for (const perf_data::EventAttr& a : info.attrs)
      s.latency_events.push_back((a.attr.sample_type & PERF_SAMPLE_DATA_SRC) &&
                                 (a.attr.sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)));
    if (o.filters.where && !s.content.data_src)
      throw ColumnError(fmt::format("--where: {} has no IBS events nor samples with a data source "
                                    "(PERF_SAMPLE_DATA_SRC, perf mem record), so no conditions to test",
                                    info.path));
    if (o.filters.where) check_data_src_where(*o.filters.where, info.path);
    s.query_names = info.event_names();
    // One warning per name that several events share, in the events' order.
    std::vector<std::string> shared;
    std::unordered_map<std::string, std::vector<std::string>> shown_as;
    for (std::size_t e = 0; e < info.attrs.size(); ++e) {
      std::vector<std::string>& as = shown_as[event_name(info.attrs[e])];
      if (as.size() == 1) shared.push_back(event_name(info.attrs[e]));
      as.push_back(s.query_names[e]);
    }
    for (const std::string& name : shared) {
      const std::vector<std::string>& as = shown_as[name];
      s.warnings.push_back(fmt::format("{} events of the capture are named {}: the first keeps the name, the {} shown "
                                       "as {}{}",
                                       as.size(), name, as.size() == 2 ? "other is" : "others are", as[1],
                                       as.size() > 2 ? fmt::format(" ... {}", as.back()) : ""));
    }
  }
  for (const perf_data::EventAttr& a : info.attrs) {
    s.content.callchains = s.content.callchains || (a.attr.sample_type & PERF_SAMPLE_CALLCHAIN);
    s.content.stack_user = s.content.stack_user || (a.attr.sample_type & PERF_SAMPLE_STACK_USER);
    s.content.branch_stack = s.content.branch_stack || (a.attr.sample_type & PERF_SAMPLE_BRANCH_STACK);
    if (s.split_cpu && !(a.attr.sample_type & PERF_SAMPLE_CPU))
      throw Error(fmt::format("by cpu: the samples of {} have no CPU (PERF_SAMPLE_CPU: record with perf record "
                              "--sample-cpu, or -a)",
                              event_name(a)));
    if (s.split_thread && !(a.attr.sample_type & PERF_SAMPLE_TID))
      throw Error(fmt::format("by thread: the samples of {} have no thread id (PERF_SAMPLE_TID)", event_name(a)));
    if (o.filters.time && !(a.attr.sample_type & PERF_SAMPLE_TIME))
      throw Error(fmt::format("--time: the samples of {} have no time (PERF_SAMPLE_TIME)", event_name(a)));
    // A data view of events whose samples cannot say: say why their rows are.
    if (data_view(s.by) && !s.ibs && !(a.attr.sample_type & PERF_SAMPLE_ADDR))
      s.warnings.push_back(fmt::format("by {}: the samples of {} carry no data address (PERF_SAMPLE_ADDR, which perf "
                                       "mem record and perf record -d ask for): they are [no data address]",
                                       name_of(s.by), event_name(a)));
    else if (s.by == GroupBy::cacheline && !s.ibs && !(a.attr.sample_type & PERF_SAMPLE_DATA_SRC))
      s.warnings.push_back(fmt::format("by cacheline: the samples of {} carry no data source (PERF_SAMPLE_DATA_SRC): "
                                       "their loads, stores, L1 misses and HITMs are not known",
                                       event_name(a)));
  }

  std::vector<std::shared_ptr<SymbolSource>> sources = o.symbol_sources;
  if (o.kernel_symbols) sources.push_back(kernel_symbol_source({.os_release = info.os_release}));
  sources.push_back(elf_symbol_source());
  prepare_symbol_sources(sources, info, o.threads);
  Walk walk(reader, s.capture ? &*s.capture : nullptr, o.filters, needed, o.threads, o.max_stack, o.progress,
            {.tid = s.split_thread, .cpu = s.split_cpu, .data = data_view(s.by),
             // Only callers' sums and rows by call chain read the chains.
             .chains = s.children || s.by == GroupBy::callchain},
            UserStackUnwindOptions{.search = o.unwind_files, .arch = info.arch});
  reader.keep_behind(walk.workers_lag());
  const perf_data::ReadSummary summary = reader.read(walk);
  std::vector<Tally>& tallies = walk.finish();

  s.lost = summary.lost;
  s.truncated = summary.truncated;
  s.skipped = summary.skipped;
  s.summary = summary;
  s.skipped.merge(walk.damaged());
  // The shards as one: their kinds by key, their entries renumbered.
  KindUnion kinds;
  s.sums_width = tallies.front().entries().width();
  std::size_t entries = 0;
  for (Tally& t : tallies) entries += t.entries().size();
  s.entries.reserve(entries);
  s.sums.reserve(entries * s.sums_width);
  for (Tally& t : tallies) {
    const std::vector<std::uint32_t> renumbered = kinds.add(t.kinds().kinds());
    const std::size_t first = s.entries.size();
    t.entries().take(s.entries, s.sums);
    for (std::size_t e = first; e < s.entries.size(); ++e) s.entries[e].kind = renumbered[s.entries[e].kind];
    for (std::size_t u = 0; u < 2; ++u) s.periods[u].merge(t.periods()[u]);
    s.skipped.merge(t.damaged());
  }
  s.kinds = std::move(kinds.kinds());
  if (walk.splitting()) {
    // Each entry's "chain" is a split: its chain, tid and CPU.
    s.entry_tid.resize(s.entries.size());
    s.entry_cpu.resize(s.entries.size());
    for (std::size_t e = 0; e < s.entries.size(); ++e) {
      const Walk::Split& split = walk.splits()[s.entries[e].chain];
      s.entry_tid[e] = split.tid;
      s.entry_cpu[e] = split.cpu;
      s.entries[e].chain = split.chain;
    }
  }
  s.counts.read_fetch = s.periods[0].samples;
  s.counts.read_op = s.periods[1].samples;
  s.counts.other_samples = walk.other_samples();
  if (const std::uint64_t n = walk.cut_chains())
    s.warnings.push_back(fmt::format("{} sample{} had call chains of more than {} frames: cut there, as perf report "
                                     "--max-stack {} cuts them (give a larger --max-stack for more)",
                                     n, n == 1 ? "" : "s", o.max_stack, o.max_stack));
  if (const std::uint64_t n = walk.early_releases())
    s.warnings.push_back(fmt::format("{} sample{} left the queue before the round after {} was read (a round of "
                                     "PERF_RECORD_FINISHED_ROUND holds more than {} samples): a MMAP, COMM or FORK "
                                     "record of {} time that came later may not have applied to {}",
                                     n, n == 1 ? "" : "s", n == 1 ? "its" : "theirs", Walk::round_capacity(),
                                     n == 1 ? "its" : "their", n == 1 ? "it" : "them"));
  if (const std::uint64_t n = walk.dropped_chains())
    s.warnings.push_back(fmt::format("{} sample{} had a corrupt call chain (a -1 among its frames, which a broken "
                                     "stack leaves): counted without it, as perf report discards such chains",
                                     n, n == 1 ? "" : "s"));
  if (const std::uint64_t n = walk.unknown_read_values())
    s.warnings.push_back(fmt::format("{} counter value{} that samples read (PERF_SAMPLE_READ) named no event of the "
                                     "file (an unknown id): not counted, as perf does not count them",
                                     n, n == 1 ? "" : "s"));
  s.counts.read = summary.samples;
  for (const Kind& k : s.kinds) {
    if (k.verdict == Verdict::undecided) s.counts.where_undecided += k.samples;
    if (!k.ibs && k.samples) s.content.data_src_decides = s.content.data_src_decides | k.observed;
    if (k.verdict != Verdict::passes) continue;
    if (k.ibs) (k.unit == amd_ibs::IbsUnit::fetch ? s.counts.kept_fetch : s.counts.kept_op) += k.samples;
    else s.counts.kept += k.samples;
    if (k.rip_invalid) s.counts.inexact_ip += k.samples;
  }
  for (const auto* list : {&info.warnings, &summary.warnings}) s.warnings.insert(s.warnings.end(), list->begin(), list->end());
  if (s.capture) s.warnings.insert(s.warnings.end(), s.capture->warnings().begin(), s.capture->warnings().end());

  // How each kind counts toward each query: once per kind, not per tally.
  s.outcomes.resize(s.kinds.size());
  ObservedTogether together;  // of the kinds that are counted
  for (const Kind& kind : s.kinds)
    if (kind.ibs && kind.verdict == Verdict::passes && kind.samples) together.add(kind.conditions, kind.observed);
  std::vector<bool> undecidable;
  for (const CompiledQuery& q : s.queries) undecidable.push_back(together.undecidable(q));
  for (std::size_t k = 0; k < s.kinds.size(); ++k) {
    const Kind& kind = s.kinds[k];
    KindOutcomes& out = s.outcomes[k];
    if (!kind.ibs) {
      out.matches.push_back({kind.event, 0});
      continue;
    }
    for (std::uint32_t q = 0; q < s.queries.size(); ++q) {
      if (undecidable[q] && s.queries[q].selects_kind(kind.conditions)) {
        out.unavailable.push_back(q);
        continue;
      }
      switch (s.queries[q].outcome(kind.conditions, kind.observed, kind.measured)) {
        case QueryOutcome::other_kind:
        case QueryOutcome::no_match: break;
        case QueryOutcome::unavailable: out.unavailable.push_back(q); break;
        case QueryOutcome::match: {
          std::int32_t sum = -1;
          if (const auto& m = s.queries[q].query().sums)
            for (std::uint8_t i = 0; i < kind.sum_count; ++i)
              if (kind.sums[i] == m->index) sum = i;
          out.matches.push_back({q, sum});
        }
      }
    }
  }

  s.chains = std::move(walk.chains());
  s.thread_comms = std::move(walk.thread_comms());
  // The totals: each kind's sums, then its outcomes once.
  {
    std::vector<std::uint64_t> kind_count(s.kinds.size());
    std::vector<std::uint64_t> kind_sums(s.kinds.size() * s.sums_width);
    for (std::size_t e = 0; e < s.entries.size(); ++e) {
      const std::uint32_t k = s.entries[e].kind;
      kind_count[k] += s.entries[e].count;
      for (std::size_t i = 0; i < s.sums_width; ++i) kind_sums[k * s.sums_width + i] += s.sums[e * s.sums_width + i];
    }
    s.totals.assign(s.query_names.size(), QueryResult{});
    for (std::size_t k = 0; k < s.kinds.size(); ++k) {
      if (!kind_count[k]) continue;
      const KindOutcomes& o = s.outcomes[k];
      for (const KindOutcomes::Match& m : o.matches) {
        s.totals[m.query].count += kind_count[k];
        if (m.sum >= 0) s.totals[m.query].total += kind_sums[k * s.sums_width + static_cast<std::size_t>(m.sum)];
      }
      for (std::uint32_t q : o.unavailable) s.totals[q].undecided += kind_count[k];
    }
  }

  make_rows(s, walk.spaces(), sources);
  for (const ModuleIdentity& id : s.identities)
    if (id.symbols)
      for (const std::string& note : id.symbols->notes())
        s.warnings.push_back(fmt::format("{}: {}", s.modules[id.modules.front()].filename, note));

  if (const std::uint64_t n = walk.weights_cut())
    s.warnings.push_back(fmt::format("{} sample{} had weights (load latencies) of more than {} cycles: counted at that",
                                     n, n == 1 ? "" : "s", Item::max_weight));
  if (const std::uint64_t n = walk.data_src_overflow())
    s.warnings.push_back(fmt::format("{} sample{} had data sources past the first {} distinct values: counted "
                                     "without one (--where leaves them undecided)",
                                     n, n == 1 ? "" : "s", walk.data_src_values().size() - 1));
  if (s.counts.other_samples)
    s.warnings.push_back(fmt::format("{} samples of events that are not IBS were left out: IBS samples and event "
                                     "counts are not to be mixed",
                                     s.counts.other_samples));
  if (s.counts.inexact_ip)
    s.warnings.push_back(fmt::format("{} op samples had IbsRipInvalid (no valid IbsOpRip): they are at the address "
                                     "perf recorded for the interrupt, which is not exact",
                                     s.counts.inexact_ip));
  for (std::string& w : unwind_warnings(walk.not_unwound(), walk.unwound(), walk.unwinder()))
    s.warnings.push_back(std::move(w));
  if (s.content.branch_stack)
    s.warnings.push_back("the samples carry branch stacks (PERF_SAMPLE_BRANCH_STACK): they are not used yet");
  if (s.lost) s.warnings.push_back(fmt::format("the kernel lost {} samples while recording", s.lost));
}

bool two_cpus_idle() { return idle_cpus() >= 2; }

void prepare_symbol_sources(std::span<const std::shared_ptr<SymbolSource>> sources,
                            const perf_data::FileInfo& capture, std::size_t threads) {
  const std::vector<ModuleRef> sampled = sampled_modules(capture);
  // A thread of their own to read symbols in: where threads allow a
  // second, and by default where two CPUs are idle (cpu_budget.hpp).
  const bool background = threads == 0 ? two_cpus_idle() : threads > 1;
  for (const std::shared_ptr<SymbolSource>& source : sources) source->prepare(sampled, background);
}

std::optional<MeasureSum> Report::load_latency(std::size_t event, std::optional<std::uint32_t> row) const {
  const State& s = *state_;
  if (event >= s.latency_events.size() || !s.latency_events[event]) return std::nullopt;
  if (row && *row + 1 >= s.row_start.size()) throw Error(fmt::format("no row {} in this report", *row));
  MeasureSum out;
  auto add = [&](std::uint32_t e) {
    const Kind& k = s.kinds[s.entries[e].kind];
    if (k.ibs || k.event != event || k.sum_count < 2) return;  // a store, or another event
    out.samples += s.entries[e].count;
    out.sum += s.sums[e * s.sums_width + 1];
  };
  if (row)
    for (std::uint32_t i = s.row_start[*row]; i < s.row_start[*row + 1]; ++i) add(s.row_entries[i]);
  else
    for (std::uint32_t e = 0; e < s.entries.size(); ++e) add(e);
  return out;
}

Report::~Report() = default;
Report::Report(Report&&) noexcept = default;
Report& Report::operator=(Report&&) noexcept = default;

void Report::State::add(std::size_t entry, const KindOutcomes& k, std::vector<QueryResult>& out) const {
  const Entry& e = entries[entry];
  const std::uint64_t* entry_sums = sums.data() + entry * sums_width;
  for (const KindOutcomes::Match& m : k.matches) {
    QueryResult& r = out[m.query];
    r.count += e.count;
    if (m.sum >= 0) r.total += entry_sums[m.sum];
  }
  for (std::uint32_t q : k.unavailable) out[q].undecided += e.count;
}

void Report::State::results(std::uint32_t row, bool with_children, const std::vector<KindOutcomes>& by_kind,
                            std::vector<QueryResult>& out) const {
  out.assign(query_names.size(), QueryResult{});
  const bool inclusive = with_children && !child_start.empty();
  const auto& start = inclusive ? child_start : row_start;
  const auto& items = inclusive ? child_entries : row_entries;
  for (std::uint32_t i = start[row]; i < start[row + 1]; ++i) add(items[i], by_kind[entries[items[i]].kind], out);
}

std::vector<QueryResult> Report::State::results(std::uint32_t row, bool with_children) const {
  std::vector<QueryResult> out;
  results(row, with_children, outcomes, out);
  return out;
}

std::vector<QueryResult> Report::State::row_results(std::span<const std::size_t> queries,
                                                    const std::vector<KindOutcomes>& by_kind) const {
  constexpr std::uint32_t unwanted = 0xFFFFFFFFu;
  std::vector<std::uint32_t> column(query_names.size(), unwanted);
  for (std::uint32_t i = 0; i < queries.size(); ++i) column[queries[i]] = i;
  const std::size_t width = queries.size();
  std::vector<QueryResult> out(rows.size() * width);
  for (std::size_t e = 0; e < entries.size(); ++e) {
    QueryResult* row = out.data() + entry_row[e] * width;
    const KindOutcomes& k = by_kind[entries[e].kind];
    const std::uint64_t* entry_sums = sums.data() + e * sums_width;
    for (const KindOutcomes::Match& m : k.matches) {
      QueryResult& r = row[column[m.query]];
      r.count += entries[e].count;
      if (m.sum >= 0) r.total += entry_sums[m.sum];
    }
    for (std::uint32_t q : k.unavailable) row[column[q]].undecided += entries[e].count;
  }
  return out;
}

std::vector<KindOutcomes> Report::State::outcomes_of(const std::vector<std::size_t>& queries) const {
  std::vector<bool> wanted(query_names.size());
  for (std::size_t q : queries) wanted[q] = true;
  std::vector<KindOutcomes> out(outcomes.size());
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    for (const KindOutcomes::Match& m : outcomes[k].matches)
      if (wanted[m.query]) out[k].matches.push_back(m);
    for (std::uint32_t q : outcomes[k].unavailable)
      if (wanted[q]) out[k].unavailable.push_back(q);
  }
  return out;
}

bool Report::ibs() const { return state_->ibs; }
GroupBy Report::by() const { return state_->by; }
const std::vector<GroupBy>& Report::keys() const { return state_->keys; }
bool Report::by_process() const { return state_->by_process; }
const CpuId& Report::cpu() const { return state_->cpu; }
const std::vector<std::string>& Report::query_names() const { return state_->query_names; }
const std::vector<QueryResult>& Report::totals() const { return state_->totals; }
const Counts& Report::counts() const { return state_->counts; }
const SampleContent& Report::content() const { return state_->content; }
std::uint64_t Report::lost() const { return state_->lost; }
bool Report::truncated() const { return state_->truncated; }
const perf_data::ReadSummary& Report::read_summary() const { return state_->summary; }
const perf_data::Skipped& Report::skipped() const { return state_->skipped; }
const std::vector<std::string>& Report::warnings() const { return state_->warnings; }

const amd_ibs::SamplingFilter& Report::filter(amd_ibs::IbsUnit unit) const {
  static const amd_ibs::SamplingFilter none;
  return state_->capture ? state_->capture->filter(unit) : none;
}

std::string Report::estimate_bias(std::size_t query) const {
  const auto& bias = state_->estimate_bias;
  return query < bias.size() ? bias[query] : std::string();
}

std::optional<double> Report::value(const Column& column, std::span<const QueryResult> results) const {
  state_->check(column);
  if (results.size() != state_->query_names.size())
    throw Error(fmt::format("{} results for a report of {} queries (a row's results or the totals of this report)",
                            results.size(), state_->query_names.size()));
  if (column.ratio && state_->filtered)
    for (std::size_t q : column.queries())
      if (!state_->estimate_bias[q].empty()) return std::nullopt;
  return column_value(column, results);
}

std::vector<std::string> Report::why_undecided(std::size_t query) const {
  const State& s = *state_;
  if (!s.capture || query >= amd_ibs::derived_event_table().size()) return {};
  return amd_ibs::event_availability(amd_ibs::derived_event_table()[query], s.capture->decoder()).reasons;
}

std::size_t Report::row_count() const {
  // With callers' sums, a caller that was never sampled itself is a row too.
  const auto& start = state_->child_start.empty() ? state_->row_start : state_->child_start;
  std::size_t n = 0;
  for (std::size_t r = 0; r + 1 < start.size(); ++r) n += start[r + 1] > start[r];
  return n;
}

UnitPeriod unit_period(amd_ibs::IbsUnit unit, const PeriodSeen& seen, std::uint64_t requested) {
  UnitPeriod p;
  p.unit = unit == amd_ibs::IbsUnit::fetch ? "fetches" : (seen.counts_ops ? "dispatched ops" : "cycles");
  if (requested) {
    p.value = static_cast<double>(requested);
    p.source = "attr.sample_period";
  } else if (seen.samples) {
    p.value = seen.mean();
    p.source = fmt::format("{} * 16 in the samples", unit == amd_ibs::IbsUnit::fetch ? "IbsFetchMaxCnt" : "IbsOpMaxCnt");
    if (seen.min != seen.max)
      p.source += fmt::format(" (it varies from {} to {}: the mean is used)", seen.min, seen.max);
  }
  return p;
}

UnitPeriod Report::period(amd_ibs::IbsUnit unit) const {
  const State& s = *state_;
  const auto u = static_cast<std::size_t>(unit);
  return unit_period(unit, s.periods[u], s.requested_period[u]);
}

double Report::overhead(std::span<const QueryResult> results) const {
  const State& s = *state_;
  auto share = [](double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; };
  if (!s.ibs) return results.empty() ? 0 : share(static_cast<double>(results[0].total), static_cast<double>(s.totals[0].total));
  return share(*column_value(s.samples_column, results), *column_value(s.samples_column, s.totals));
}

void Report::State::check(const Column& c) const {
  // Per row where a column sorts: no allocation (Column::queries() makes a vector).
  const bool ours = ibs ? c.of_events == 0 : c.of_events == query_names.size() && !c.ratio;
  bool in_range = !c.event || *c.event < query_names.size();
  for (std::size_t q : c.samples_of) in_range = in_range && q < query_names.size();
  if (ours && in_range) return;
  throw ColumnError(fmt::format("column '{}' is not one of this report's: it was made for {}, and this report's columns "
                                "are {} (resolve it with {})",
                                c.id, c.of_events ? "a capture's events" : "IBS derived events",
                                ibs ? "IBS derived events" : fmt::format("its {} events", query_names.size()),
                                ibs ? "resolve_column()" : "resolve_event_column() and the report's query_names()"));
}

void Report::State::check_row(std::uint32_t id) const {
  if (id >= rows.size())
    throw Error(fmt::format("row {}: the report has {} rows (ids come from its select())", id, rows.size()));
}

std::vector<std::uint32_t> Report::select(const Column& sort, std::size_t top, double percent_limit,
                                          bool children) const {
  const State& s = *state_;
  s.check(sort);
  const bool inclusive = children && !s.child_start.empty();
  const auto& start = inclusive ? s.child_start : s.row_start;
  struct Ranked {
    std::uint32_t row;
    bool has;
    double value;
  };
  std::vector<Ranked> ranked;
  // Each row's value, from only the queries that the sort (and the
  // overhead, for --percent-limit) read.
  std::vector<std::size_t> queries = sort.queries();
  if (percent_limit > 0) {
    const std::vector<std::size_t> more = s.ibs ? s.samples_column.queries() : std::vector<std::size_t>{0};
    queries.insert(queries.end(), more.begin(), more.end());
  }
  std::sort(queries.begin(), queries.end());
  queries.erase(std::unique(queries.begin(), queries.end()), queries.end());
  const std::vector<KindOutcomes> by_kind = s.outcomes_of(queries);
  const std::vector<QueryResult> own = inclusive ? std::vector<QueryResult>{} : s.row_results(queries, by_kind);
  std::vector<QueryResult> results(s.query_names.size());
  for (std::uint32_t r = 0; r + 1 < start.size(); ++r) {
    if (start[r] == start[r + 1]) continue;
    if (inclusive) s.results(r, inclusive, by_kind, results);
    else
      for (std::size_t i = 0; i < queries.size(); ++i) results[queries[i]] = own[r * queries.size() + i];
    if (percent_limit > 0 && overhead(results) < percent_limit) continue;
    const std::optional<double> v = value(sort, results);
    ranked.push_back({r, v.has_value(), v.value_or(0)});
  }
  // Highest first; rows without a value last; then by name (made only for ties).
  std::unordered_map<std::uint32_t, std::string> names;
  auto name = [&](std::uint32_t r) -> const std::string& {
    auto it = names.find(r);
    if (it == names.end()) it = names.emplace(r, s.name(s.rows[r])).first;
    return it->second;
  };
  auto before = [&](const Ranked& a, const Ranked& b) {
    if (a.has != b.has) return a.has;
    if (a.value != b.value) return a.value > b.value;
    return name(a.row) < name(b.row);
  };
  const std::size_t keep = top && top < ranked.size() ? top : ranked.size();
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end(), before);
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < keep; ++i) out.push_back(ranked[i].row);
  return out;
}

Row Report::row(std::uint32_t id) const {
  const State& s = *state_;
  s.check_row(id);
  const RowKey& key = s.rows[id];
  Row r;
  r.id = id;
  r.name = s.name(key);
  r.results = s.results(id, false);
  if (!s.child_start.empty()) r.children = s.results(id, true);
  switch (key.type) {
    case RowKey::Type::address:
      r.offset = key.value;
      r.has_offset = true;
      [[fallthrough]];
    case RowKey::Type::function:
    case RowKey::Type::line:
    case RowKey::Type::module:
      r.module = s.identity_path(key.owner);
      r.build_id = s.modules[s.identities[key.owner].modules.front()].build_id;
      break;
    case RowKey::Type::unmapped:
      r.module = key.owner ? "[kernel]" : "[unknown]";
      r.offset = key.value;
      r.has_offset = s.by != GroupBy::module;
      break;
    case RowKey::Type::process:
      r.pid = key.owner;
      r.comm = s.comms[key.value];
      break;
    case RowKey::Type::data_object:
      r.module = s.identity_path(key.owner);
      r.build_id = s.modules[s.identities[key.owner].modules.front()].build_id;
      break;
    case RowKey::Type::chain:
    case RowKey::Type::parts:
    case RowKey::Type::region:
    case RowKey::Type::cacheline: break;
  }
  if (key.process != 0) {
    r.pid = key.process - 1;
    r.comm = s.comms.at(key.comm);
  }
  if (key.thread != 0) r.tid = key.thread - 1;
  if (key.cpu != 0) r.cpu = key.cpu - 1;
  if (s.keys.size() > 1) r.parts = s.parts(key);
  return r;
}

std::optional<LineDetail> Report::line(std::uint32_t id) const {
  const State& s = *state_;
  s.check_row(id);
  const RowKey& key = s.rows[id];
  if (key.type != RowKey::Type::cacheline) return std::nullopt;
  LineDetail d;
  d.address = key.value;
  std::uint64_t offsets = 0;  // a bit per byte of the line
  std::vector<std::uint64_t> code;
  std::unordered_map<std::uint32_t, std::uint64_t> functions;  // samples by code row
  for (std::uint32_t i = s.row_start[id]; i < s.row_start[id + 1]; ++i) {
    const Entry& e = s.entries[s.row_entries[i]];
    if (const std::uint32_t f = s.entry_code_row[s.row_entries[i]]; f != ~0u) functions[f] += e.count;
    offsets |= std::uint64_t{1} << (e.ip & 63);
    // The walk's pair: the code address, and the access above the marker.
    const std::span<const std::uint64_t> pair = s.chains.frames(e.chain);
    if (pair.size() != 2) continue;
    code.push_back(pair[0]);
    const std::uint64_t access = pair[1] - data_access_marker;
    d.samples += e.count;
    if (access & DataAccess::load) d.loads += e.count;
    if (access & DataAccess::store) d.stores += e.count;
    if (access & DataAccess::l1_miss) d.l1_misses += e.count;
    if (access & DataAccess::hitm) (access & DataAccess::remote ? d.remote_hitm : d.local_hitm) += e.count;
  }
  for (std::uint8_t b = 0; b < 64; ++b)
    if (offsets >> b & 1) d.offsets.push_back(b);
  std::sort(code.begin(), code.end());
  code.erase(std::unique(code.begin(), code.end()), code.end());
  if (code.size() > 16) code.resize(16);
  d.code_addresses = std::move(code);
  // The functions by their samples, most first (then by name).
  std::vector<std::pair<std::uint64_t, std::string>> named;
  for (const auto& [row, n] : functions) named.emplace_back(n, s.base_name(s.rows[row]));
  std::sort(named.begin(), named.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  for (std::size_t i = 0; i < named.size() && i < 16; ++i) d.functions.push_back(named[i].second);
  return d;
}

std::vector<std::uint32_t> Report::frames(std::uint32_t id) const {
  const State& s = *state_;
  s.check_row(id);
  const RowKey& key = s.rows[id];
  if (key.type == RowKey::Type::chain) return s.chain_rows[key.value];
  return {id};
}

}  // namespace tagop::report
