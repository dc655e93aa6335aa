// Typed reads of the fields of a JSON object written by dlcbench (the
// manifest, results records): a field of the wrong type or out of range is a
// DataError naming it, never a JSON library exception or a number converted
// out of range. An absent or null field gives the fallback.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace dlcbench::json_fields {

// A short, printable form of a value for an error message.
std::string shown(const nlohmann::json& value);

// Throws DataError: "<where> is <value>, not <expected>".
[[noreturn]] void wrong_type(const std::string& where, const nlohmann::json& value, const char* expected);

// `prefix` + `key` names the field in errors ("manifest.json: plan.baseline").
std::string string_field(const nlohmann::json& object, const char* key, const std::string& fallback,
                         const std::string& prefix);
bool bool_field(const nlohmann::json& object, const char* key, bool fallback, const std::string& prefix);
// A whole number that fits an int: a float such as 1e300 would be undefined
// behaviour to convert.
int int_field(const nlohmann::json& object, const char* key, int fallback, const std::string& prefix);
std::optional<int> optional_int_field(const nlohmann::json& object, const char* key, const std::string& prefix);
// Finite numbers only.
std::optional<double> number_field(const nlohmann::json& object, const char* key, const std::string& prefix);

}  // namespace dlcbench::json_fields
