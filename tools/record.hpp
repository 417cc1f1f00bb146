#pragma once
// Output records declared once: a struct whose fields Boost.Hana reflects
// (BOOST_HANA_DEFINE_STRUCT) gives both its JSON (to_json) and its JSON
// Schema (schema_of) from that one declaration, so that the two cannot
// disagree; tests/contract checks that schemas/ holds what schema_of makes.
// The same idea as profiles/sample_line_record.hpp, for any record.
//
// A field's type says its JSON form:
//   bool, integers, double, std::string     as themselves
//   Hex                                      "0x1f" (registers, addresses)
//   std::optional<T>                         T, or null
//   Maybe<T>                                 T, or the key left out (not required)
//   Choice<Tag>                              one of the strings Tag::values
//   Merged<R>                                R's fields, inline in the enclosing object
//   Const<Tag>                               always Tag::value (a bool or a string)
//   Number                                   an integer or not, as the value is
//
// A field's key is its name, less a trailing '_' (for a key that is a C++
// keyword: default_ is "default").
//   std::vector<T>                           an array of T
//   Entries<T>                               an object of T by name, in order
//   std::variant<A, B>                       one of A, B
//   another reflected struct                 an object, every field required

#include <concepts>     // std::integral
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <type_traits>  // std::remove_cvref_t
#include <utility>      // std::pair
#include <variant>      // std::variant
#include <vector>       // std::vector

#include <boost/hana/accessors.hpp>      // hana::accessors
#include <boost/hana/define_struct.hpp>  // BOOST_HANA_DEFINE_STRUCT, for the records
#include <boost/hana/first.hpp>          // hana::first
#include <boost/hana/for_each.hpp>       // hana::for_each
#include <boost/hana/second.hpp>         // hana::second
#include <boost/hana/string.hpp>         // hana::to<char const*>
#include <fmt/format.h>                  // fmt::format
#include <nlohmann/json.hpp>             // ordered_json

namespace tagop::cli::record {

using json = nlohmann::ordered_json;

/// A number written in hexadecimal: "0x1f".
struct Hex {
  std::uint64_t value = 0;
};

/// An object whose keys are data (register names, event ids), in order.
template <typename T>
using Entries = std::vector<std::pair<std::string, T>>;

/// A key that is left out, rather than null, when there is no value:
/// the form of keys that only some rows have ("umask" of an IBS event).
template <typename T>
struct Maybe : std::optional<T> {
  using std::optional<T>::optional;
  using std::optional<T>::operator=;
};

/// A string from a fixed set, which the schema lists: Tag::values is an
/// array of the set's strings.
template <typename Tag>
struct Choice {
  using tag_type = Tag;
  std::string_view value;
};

/// A record whose fields go inline in the enclosing object, as if declared
/// there: a row (an event) extended with more fields (a search hit's score).
template <typename R>
struct Merged {
  R value;
};

/// A key whose value the record's type fixes: Tag::value, a bool or a
/// string, which the schema gives as "const". It tells which of several
/// records a document is ("ibs": true), or names the contract in place.
template <typename Tag>
struct Const {
  using tag_type = Tag;
};

/// A number that is an integer or not, as its value is: a column that
/// holds counts or ratios. Any JSON number, in the schema.
struct Number {
  std::variant<std::uint64_t, double> value;
};

namespace detail {

template <typename T> struct is_optional : std::false_type {};
template <typename T> struct is_optional<std::optional<T>> : std::true_type {};
template <typename T> struct is_vector : std::false_type {};
template <typename T> struct is_vector<std::vector<T>> : std::true_type {};
template <typename T> struct is_entries : std::false_type {};
template <typename T> struct is_entries<std::vector<std::pair<std::string, T>>> : std::true_type {};
template <typename T> struct is_maybe : std::false_type {};
template <typename T> struct is_maybe<Maybe<T>> : std::true_type {};
template <typename T> struct is_choice : std::false_type {};
template <typename T> struct is_choice<Choice<T>> : std::true_type {};
template <typename T> struct is_merged : std::false_type {};
template <typename T> struct is_merged<Merged<T>> : std::true_type {};
template <typename T> struct is_const : std::false_type {};
template <typename T> struct is_const<Const<T>> : std::true_type {};
template <typename T> struct is_variant : std::false_type {};
template <typename... T> struct is_variant<std::variant<T...>> : std::true_type {};

template <typename Tag>
json constant() {
  if constexpr (std::is_same_v<std::remove_cv_t<decltype(Tag::value)>, std::string_view>) return std::string(Tag::value);
  else return Tag::value;
}

inline constexpr const char* hex_pattern = "^0x[0-9a-f]+$";

/// The key of a field: its name less a trailing '_'.
template <typename Field>
std::string key_of(const Field& field) {
  std::string name = boost::hana::to<char const*>(boost::hana::first(field));
  if (name.ends_with('_')) name.pop_back();
  return name;
}

}  // namespace detail

template <typename T>
json to_json(const T& value);

/// The JSON Schema of a field of type T (a record: an object whose fields are all required).
template <typename T>
json schema_of() {
  using namespace detail;
  if constexpr (std::is_same_v<T, bool>) {
    return {{"type", "boolean"}};
  } else if constexpr (std::is_same_v<T, Hex>) {
    return {{"type", "string"}, {"pattern", hex_pattern}};
  } else if constexpr (std::integral<T>) {
    if constexpr (std::is_unsigned_v<T>) return {{"type", "integer"}, {"minimum", 0}};
    else return {{"type", "integer"}};
  } else if constexpr (std::is_floating_point_v<T>) {
    return {{"type", "number"}};
  } else if constexpr (std::is_same_v<T, std::string>) {
    return {{"type", "string"}};
  } else if constexpr (std::is_same_v<T, Number>) {
    return {{"type", "number"}};
  } else if constexpr (is_const<T>::value) {
    return {{"const", constant<typename T::tag_type>()}};
  } else if constexpr (is_optional<T>::value) {
    return {{"oneOf", {schema_of<typename T::value_type>(), {{"type", "null"}}}}};
  } else if constexpr (is_maybe<T>::value) {
    return schema_of<typename T::value_type>();
  } else if constexpr (is_choice<T>::value) {
    json values = json::array();
    for (std::string_view v : T::tag_type::values) values.push_back(v);
    return {{"enum", values}};
  } else if constexpr (is_entries<T>::value) {
    return {{"type", "object"}, {"additionalProperties", schema_of<typename T::value_type::second_type>()}};
  } else if constexpr (is_vector<T>::value) {
    return {{"type", "array"}, {"items", schema_of<typename T::value_type>()}};
  } else if constexpr (is_variant<T>::value) {
    json one_of = json::array();
    [&]<typename... A>(std::variant<A...>*) { (one_of.push_back(schema_of<A>()), ...); }(static_cast<T*>(nullptr));
    return {{"oneOf", one_of}};
  } else {
    json properties = json::object(), required = json::array();
    boost::hana::for_each(boost::hana::accessors<T>(), [&](auto field) {
      const std::string name = key_of(field);
      using Field = std::remove_cvref_t<decltype(boost::hana::second(field)(std::declval<const T&>()))>;
      if constexpr (is_merged<Field>::value) {
        const json inner = schema_of<decltype(Field::value)>();
        for (const auto& [key, value] : inner["properties"].items()) properties[key] = value;
        for (const auto& key : inner["required"]) required.push_back(key);
      } else {
        properties[name] = schema_of<Field>();
        if (!is_maybe<Field>::value) required.push_back(name);
      }
    });
    return {{"type", "object"}, {"properties", properties}, {"required", required}};
  }
}

/// A value's JSON form, as schema_of<T>() describes it.
template <typename T>
json to_json(const T& value) {
  using namespace detail;
  if constexpr (std::is_same_v<T, Hex>) {
    return fmt::format("{:#x}", value.value);
  } else if constexpr (std::is_same_v<T, bool> || std::integral<T> || std::is_floating_point_v<T> ||
                       std::is_same_v<T, std::string>) {
    return value;
  } else if constexpr (std::is_same_v<T, Number>) {
    return std::visit([](auto number) { return json(number); }, value.value);
  } else if constexpr (is_const<T>::value) {
    return constant<typename T::tag_type>();
  } else if constexpr (is_optional<T>::value) {
    return value ? to_json(*value) : json(nullptr);
  } else if constexpr (is_choice<T>::value) {
    return value.value;
  } else if constexpr (is_entries<T>::value) {
    json out = json::object();
    for (const auto& [key, item] : value) out[key] = to_json(item);
    return out;
  } else if constexpr (is_vector<T>::value) {
    json out = json::array();
    for (const auto& item : value) out.push_back(to_json(item));
    return out;
  } else if constexpr (is_variant<T>::value) {
    return std::visit([](const auto& alternative) { return to_json(alternative); }, value);
  } else {
    json out = json::object();
    boost::hana::for_each(boost::hana::accessors<T>(), [&](auto field) {
      const auto& member = boost::hana::second(field)(value);
      using Field = std::remove_cvref_t<decltype(member)>;
      const std::string name = key_of(field);
      if constexpr (is_merged<Field>::value) {
        json inner = to_json(member.value);
        for (auto& [key, item] : inner.items()) out[key] = std::move(item);
      } else if constexpr (is_maybe<Field>::value) {
        if (member) out[name] = to_json(*member);
      } else {
        out[name] = to_json(member);
      }
    });
    return out;
  }
}

/// A flat record's CSV header: its keys, in the declaration's order.
template <typename T>
std::vector<std::string> csv_header() {
  const json schema = schema_of<T>();
  std::vector<std::string> keys;
  for (const auto& [key, value] : schema["properties"].items()) keys.push_back(key);
  return keys;
}

/// A flat record's CSV cells under `header` (csv_header<T>()): a string as
/// itself, another scalar as JSON writes it, a key left out or null as "".
template <typename T>
std::vector<std::string> csv_cells(const T& value, const std::vector<std::string>& header) {
  const json j = to_json(value);
  std::vector<std::string> cells;
  cells.reserve(header.size());
  for (const std::string& key : header) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) cells.emplace_back();
    else cells.push_back(it->is_string() ? it->template get<std::string>() : it->dump());
  }
  return cells;
}

/// What a command's output record promises: the "schema" value it carries
/// ("tagop.cpu/1", also the schema's $id), and its schema's title and description.
struct Contract {
  std::string_view schema, title, description;
};

/// The schema document of a command's output record: schema_of<T>() with
/// the "schema" key first, its $id, title and description. An output that
/// is one of several records (a variant) is an object with "schema" that
/// is one of them.
template <typename T>
json schema_document(const Contract& contract) {
  const auto [id, title, description] = contract;
  json document = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
                   {"$id", id},
                   {"title", title},
                   {"description", std::string(description) +
                                       " Keys may be added within a major version; a key removed, renamed or retyped "
                                       "bumps it. Generated from the record's declaration (tools/record.hpp)."},
                   {"type", "object"}};
  const json schema_key = {{"const", id}, {"description", "this output's shape and major version"}};
  const json record = schema_of<T>();
  if constexpr (detail::is_variant<T>::value) {
    document["properties"] = {{"schema", schema_key}};
    document["required"] = json::array({"schema"});
    document["oneOf"] = record["oneOf"];
  } else {
    json properties = {{"schema", schema_key}};
    for (const auto& [key, value] : record["properties"].items()) properties[key] = value;
    json required = json::array({"schema"});
    for (const auto& key : record["required"]) required.push_back(key);
    document["properties"] = properties;
    document["required"] = required;
  }
  return document;
}

}  // namespace tagop::cli::record
