#include "store_sql.hpp"

#include <fmt/format.h>  // fmt::format

#include <tagop/profiles/store.hpp>  // query_sql, store_table_name

namespace tagop::cli {

std::string store_question_sql(std::string_view label, const Query& query, bool by_processor) {
  const profiles::QuerySql sql = profiles::query_sql(query);
  std::string out = fmt::format("-- {} (tagop store schema {})\n-- predicate: {}\n", label,
                                profiles::store_schema_version, query.predicate.to_string());
  if (query.sums) out += fmt::format("-- sums: {}\n", query.sums->name());
  out += "-- count: the samples that decide it yes (and report the measure it sums); undecided: those whose\n"
         "-- answer depends on a condition they did not observe (tagop report shows them as n/a)\n";
  out += "SELECT\n";
  if (by_processor) out += "  vendor, family, model, backend,\n";
  out += fmt::format("  {} AS count,\n  {} AS total,\n  {} AS undecided\nFROM {}\n", sql.count, sql.total,
                     sql.undecided_count, profiles::store_table_name());
  out += fmt::format("WHERE capture IN (SELECT capture FROM {})\n", profiles::store_captures_table_name());
  if (by_processor) out += "GROUP BY vendor, family, model, backend\nORDER BY vendor, family, model, backend\n";
  return out;
}

}  // namespace tagop::cli
