#pragma once
// `--format sql` of events show and compare: the question as a SELECT over
// the store's table (tagop ingest), from the model's predicate (query_sql).

#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/engine.hpp>  // Query

namespace tagop::cli {

/// A SELECT of the query's count, total and undecided over the store's
/// samples of complete captures; `by_processor`: one row per processor
/// (vendor, family, model, backend) of the fleet. `label` heads it as a comment.
std::string store_question_sql(std::string_view label, const Query& query, bool by_processor);

}  // namespace tagop::cli
