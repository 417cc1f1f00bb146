// An annotated function as one self-contained HTML page (profiles::write_html):
// the instructions in address order, with their share, columns and source line.

#include <tagop/report/annotate.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/profiles/html.hpp>  // write_html

namespace tagop::report {

namespace {

profiles::ColumnKind kind_of(const Column& c) {
  if (!c.ratio) return profiles::ColumnKind::count;
  return c.ratio->numerator_sums ? profiles::ColumnKind::mean : profiles::ColumnKind::ratio;
}

std::optional<profiles::Interval> cell(const std::optional<double>& v) {
  if (!v) return std::nullopt;
  return profiles::Interval{*v};
}

}  // namespace

void write_annotation_html(const Annotation& a, std::ostream& out) {
  profiles::HtmlPage page;
  page.title = fmt::format("{}: instruction by instruction", a.function);
  page.notes.push_back(fmt::format("module {}{}, file offsets {:#x}-{:#x}", a.module,
                                   a.build_id.empty() ? "" : " (build-id " + a.build_id + ")", a.start, a.end));
  page.notes.push_back(a.exactness);
  page.notes.push_back(fmt::format("{:.2f}% of the capture's samples", a.overhead));
  profiles::Table& table = page.table;
  table.row_title = "instruction";
  table.columns.push_back({"percent", "Percent", "",
                           "the instruction's share of the function's samples (perf annotate's local period)",
                           profiles::ColumnKind::ratio});
  for (const Column& c : a.columns) table.columns.push_back({c.id, c.title, "", "", kind_of(c)});
  for (const AnnotatedInstruction& in : a.instructions) {
    profiles::TableRow row{fmt::format("{:x}: {}", in.address, in.text), source_of(a, in), {}};
    row.cells.push_back(profiles::Interval{in.percent / 100});
    for (const std::optional<double>& v : in.values) row.cells.push_back(cell(v));
    table.rows.push_back(std::move(row));
  }
  profiles::TableRow total{a.function, "", {profiles::Interval{1}}};
  for (const std::optional<double>& v : a.values) total.cells.push_back(cell(v));
  table.total = std::move(total);
  profiles::write_html(page, out);
}

}  // namespace tagop::report
