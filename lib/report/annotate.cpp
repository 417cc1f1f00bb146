// tagop annotate's work: a Report by address, the rows inside one
// function, and that function's instructions and source lines.

#include <tagop/report/annotate.hpp>

#include <unistd.h>  // ::pread, ::close

#include <algorithm>  // std::sort
#include <charconv>   // std::from_chars
#include <map>        // lines by file and number, the rows by offset
#include <set>        // the modules with samples

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include <tagop/error.hpp>  // Error

#include "disassemble.hpp"      // disassemble_x86
#include "function_finder.hpp"  // find_function

namespace tagop::report {

namespace {

// perf annotate's red: at least this share of the function.
constexpr double hot_percent = 5.0;

// A file's bytes at [offset, offset + size), or why not.
std::vector<std::uint8_t> read_bytes(const std::string& path, std::uint64_t offset, std::uint64_t size) {
  std::string problem;
  const int fd = open_regular_file(path, problem);
  if (fd < 0) throw Error(ErrorCode::io, fmt::format("{}: {}", path, problem));
  std::vector<std::uint8_t> bytes(size);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, bytes.data() + done, size - done, static_cast<off_t>(offset + done));
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (done < size)
    throw Error(ErrorCode::damaged, fmt::format("{}: the function's bytes, {:#x} to {:#x}, are past the file's end", path,
                                                offset, offset + size));
  return bytes;
}

// Whether the ELF file is 64-bit (e_ident[EI_CLASS] == ELFCLASS64).
bool elf64(const std::string& path) {
  const std::vector<std::uint8_t> ident = read_bytes(path, 0, 5);
  return ident[4] == 2;
}

// The lines of source files, read once each; a file that is not here (or
// not a regular file, or larger than a source file is) has none.
class SourceFiles {
 public:
  std::string line(const std::string& file, unsigned number) {
    auto it = files_.find(file);
    if (it == files_.end()) it = files_.emplace(file, read(file)).first;
    return number >= 1 && number <= it->second.size() ? it->second[number - 1] : std::string();
  }

 private:
  static std::vector<std::string> read(const std::string& file) {
    std::string problem;
    const int fd = open_regular_file(file, problem);
    if (fd < 0) return {};
    std::string text;
    char buffer[65536];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0 && text.size() < (16u << 20);)
      text.append(buffer, static_cast<std::size_t>(n));
    ::close(fd);
    std::vector<std::string> lines;
    std::size_t begin = 0;
    while (begin < text.size()) {
      std::size_t end = text.find('\n', begin);
      if (end == std::string::npos) end = text.size();
      std::string line = text.substr(begin, end - begin);
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
      lines.push_back(std::move(line));
      begin = end + 1;
    }
    return lines;
  }

  std::map<std::string, std::vector<std::string>> files_;
};

// A branch into the function named as objdump names it: "jne 0x114c
// <hot+0xe>".
std::string with_target_label(const std::string& text, const std::string& function, std::uint64_t start,
                              std::uint64_t end) {
  const std::size_t space = text.find(' ');
  if (space == std::string::npos || (text[0] != 'j' && !text.starts_with("call")) ||
      text.compare(space + 1, 2, "0x") != 0)
    return text;
  std::uint64_t target = 0;
  const char* first = text.data() + space + 3;
  const char* last = text.data() + text.size();
  const auto [end_of_number, ec] = std::from_chars(first, last, target, 16);
  if (ec != std::errc{} || end_of_number != last || target < start || target >= end) return text;
  return target == start ? fmt::format("{} <{}>", text, function)
                         : fmt::format("{} <{}+{:#x}>", text, function, target - start);
}

std::vector<Column> columns_of(const Report& r, const AnnotateOptions& o) {
  if (r.ibs()) return o.columns.empty() ? resolve_columns(annotate_ibs_columns) : o.columns;
  if (!o.columns.empty())
    throw ColumnError("the capture has no IBS events: its columns are its events, by period, and their samples");
  std::vector<Column> columns;
  for (const std::string& event : r.query_names()) columns.push_back(resolve_event_column(r.query_names(), event));
  columns.push_back(resolve_event_column(r.query_names(), "samples"));
  return columns;
}

std::vector<std::optional<double>> values_of(const Report& r, const std::vector<Column>& columns,
                                             const std::vector<QueryResult>& results) {
  std::vector<std::optional<double>> values;
  for (const Column& c : columns) values.push_back(r.value(c, results));
  return values;
}

void add(std::vector<QueryResult>& into, const std::vector<QueryResult>& results) {
  if (into.empty()) into.resize(results.size());
  for (std::size_t q = 0; q < results.size(); ++q) into[q] += results[q];
}

// IBS op samples are of the instruction they name; other events' samples
// only when the event asked for it (precise_ip).
void set_exactness(Annotation& a, const perf_data::PerfDataReader& reader) {
  if (a.ibs) {
    a.exact = true;
    a.exactness = "exact: IBS op samples are of the op's own instruction (fetch samples, of the fetched address)";
    return;
  }
  std::vector<std::string> skid, precise;
  const std::vector<std::string> names = reader.info().event_names();
  for (std::size_t i = 0; i < reader.info().attrs.size(); ++i)
    (reader.info().attrs[i].attr.precise_ip ? precise : skid).push_back(i < names.size() ? names[i] : "?");
  a.exact = skid.empty();
  a.exactness = a.exact ? fmt::format("exact: {} {} precise (precise_ip)", fmt::join(precise, ", "),
                                      precise.size() == 1 ? "is" : "are")
                        : fmt::format("not exact: skid: {} {} not precise (precise_ip 0): a sample lands some "
                                      "instructions after the one that overflowed the counter, often after a "
                                      "slow one",
                                      fmt::join(skid, ", "), skid.size() == 1 ? "is" : "are");
}

}  // namespace

std::string source_of(const Annotation& annotation, const AnnotatedInstruction& instruction) {
  if (instruction.line == AnnotatedInstruction::none) return {};
  const AnnotatedLine& l = annotation.lines[instruction.line];
  return fmt::format("{}:{}", l.file, l.line);
}

Annotation annotate(perf_data::PerfDataReader& reader, const AnnotateOptions& o) {
  // Capstone is asked for x86 only: another machine's code would decode as nonsense.
  if (const std::string& arch = reader.info().arch;
      !arch.empty() && arch != "x86_64" && arch != "i386" && arch != "i686" && arch != "x86")
    throw Error(ErrorCode::not_supported, fmt::format("{}: a capture of an {} machine; annotate disassembles x86 code only",
                                                      reader.info().path, arch));
  Options options = o.report;
  options.by = GroupBy::address;
  options.keys.clear();
  options.children = false;
  options.by_process = false;
  const Report r(reader, options);

  Annotation a;
  a.ibs = r.ibs();
  a.query_names = r.query_names();
  a.columns = columns_of(r, o);
  a.warnings = r.warnings();

  // Every row by address: its module, for finding the function, and its results.
  const Column every = a.ibs ? resolve_column("samples") : resolve_event_column(r.query_names(), "samples");
  std::vector<Row> rows;
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<SampledModule> modules;
  for (const std::uint32_t id : r.select(every, 0)) {
    Row row = r.row(id);
    if (!row.has_offset) continue;
    if (seen.emplace(row.module, row.build_id).second) modules.push_back({row.module, row.build_id});
    rows.push_back(std::move(row));
  }
  const auto has_samples = [&](const SampledModule& m, std::uint64_t start, std::uint64_t end) {
    for (const Row& row : rows)
      if (row.module == m.path && row.build_id == m.build_id && row.offset >= start && row.offset < end) return true;
    return false;
  };
  const FoundFunction f = [&] {
    try {
      return find_function(o.symbol, modules, o.files, has_samples);
    } catch (const Error& e) {
      // The modules are those with samples the filters kept.
      const Filters& filters = o.report.filters;
      const bool filtered = filters.where || filters.time || !filters.cpus.empty() || !filters.pids.empty() ||
                            !filters.tids.empty() || !filters.comms.empty();
      if (!filtered) throw;
      throw Error(e.code(), fmt::format("{} (with the filters given, which kept these modules' samples only)", e.what()));
    }
  }();
  a.function = f.name;
  a.symbol = f.symbol;
  a.module = f.module.path;
  a.build_id = f.module.build_id;
  a.file = f.file;
  a.start = f.start;
  a.end = f.end;
  a.address = f.symbols->address_of_offset(f.start).value_or(f.start);

  // An instruction is at most 15 bytes: more bytes than that many
  // instructions can hold are too many to read and decode.
  const std::uint64_t size = f.end - f.start;
  const std::string advice = "(raise it, or give a part of it as MODULE+0xSTART-0xEND)";
  if (size > 15 * std::uint64_t{o.max_instructions})
    throw Error(ErrorCode::resource, fmt::format("{} is too large: {} bytes, more than --max-instructions {} "
                                                 "instructions can be {}",
                                                 a.function, size, o.max_instructions, advice));
  const std::vector<std::uint8_t> code = read_bytes(f.file, f.start, size);
  std::vector<DecodedInstruction> decoded = disassemble_x86(code, a.address, elf64(f.file));
  if (decoded.size() > o.max_instructions)
    throw Error(ErrorCode::resource, fmt::format("{} is too large: {} instructions, more than --max-instructions {} {}",
                                                 a.function, decoded.size(), o.max_instructions, advice));

  std::map<std::uint64_t, const Row*> by_offset;
  for (const Row& row : rows)
    if (row.module == f.module.path && row.build_id == f.module.build_id && row.offset >= f.start && row.offset < f.end)
      by_offset.emplace(row.offset, &row);

  std::vector<std::uint64_t> offsets;
  for (const DecodedInstruction& d : decoded) offsets.push_back(d.address - a.address + f.start);
  std::vector<ModuleSymbols::LineRef> lines(offsets.size());
  f.symbols->find_lines(offsets, lines);

  SourceFiles sources;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> line_index;  // by file index and number
  const std::vector<QueryResult> zero(a.query_names.size());
  double weight = 0;  // the function's, for the percentages
  for (std::size_t i = 0; i < decoded.size(); ++i) {
    AnnotatedInstruction in;
    in.address = decoded[i].address;
    in.offset = offsets[i];
    in.bytes = std::move(decoded[i].bytes);
    in.text = with_target_label(decoded[i].text, a.function, a.address, a.address + size);
    // The samples at its bytes, as perf annotate sums them: an IBS fetch
    // sample's address is the fetch block's, which may start inside an
    // instruction.
    in.results = zero;
    const std::uint64_t next = i + 1 < offsets.size() ? offsets[i + 1] : f.end;
    for (auto row = by_offset.lower_bound(in.offset); row != by_offset.end() && row->first < next; ++row)
      add(in.results, row->second->results);
    in.values = values_of(r, a.columns, in.results);
    in.percent = r.overhead(in.results);
    weight += in.percent;
    if (lines[i].file != ModuleSymbols::none) {
      const auto [it, fresh] = line_index.try_emplace({lines[i].file, lines[i].line}, a.lines.size());
      if (fresh) {
        AnnotatedLine l;
        l.file = std::string(f.symbols->file_name(lines[i].file));
        l.line = lines[i].line;
        if (o.source_text) l.text = sources.line(f.symbols->source_path(lines[i].file), l.line);
        a.lines.push_back(std::move(l));
      }
      in.line = it->second;
      add(a.lines[in.line].results, in.results);
    }
    add(a.totals, in.results);
    a.instructions.push_back(std::move(in));
  }
  if (a.totals.empty()) a.totals = zero;
  a.values = values_of(r, a.columns, a.totals);
  a.overhead = r.overhead(a.totals);
  // Shares of the function's own: perf annotate's local period percent.
  for (AnnotatedInstruction& in : a.instructions) {
    in.percent = weight > 0 ? in.percent / weight * 100 : 0;
    in.hot = in.percent >= hot_percent;
  }
  for (AnnotatedLine& l : a.lines) {
    if (l.results.empty()) l.results = zero;
    l.values = values_of(r, a.columns, l.results);
    l.percent = weight > 0 ? r.overhead(l.results) / weight * 100 : 0;
  }
  set_exactness(a, reader);
  return a;
}

}  // namespace tagop::report
