#include "core/json_fields.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "core/errors.h"

namespace dlcbench::json_fields {

using nlohmann::json;

std::string shown(const json& value) {
  std::string text = value.dump(-1, ' ', true, json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

void wrong_type(const std::string& where, const json& value, const char* expected) {
  throw DataError(fmt::format("{} is {}, not {}", where, shown(value), expected));
}

std::string string_field(const json& object, const char* key, const std::string& fallback, const std::string& prefix) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_string()) wrong_type(prefix + key, *it, "a string");
  return it->get<std::string>();
}

bool bool_field(const json& object, const char* key, bool fallback, const std::string& prefix) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) wrong_type(prefix + key, *it, "true or false");
  return it->get<bool>();
}

std::optional<int> optional_int_field(const json& object, const char* key, const std::string& prefix) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  const bool fits = (it->is_number_unsigned() &&
                     it->get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())) ||
                    (it->is_number_integer() && !it->is_number_unsigned() &&
                     it->get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                     it->get<std::int64_t>() <= std::numeric_limits<int>::max());
  if (!fits) wrong_type(prefix + key, *it, "a whole number in the range of int");
  return static_cast<int>(it->get<std::int64_t>());
}

int int_field(const json& object, const char* key, int fallback, const std::string& prefix) {
  return optional_int_field(object, key, prefix).value_or(fallback);
}

std::optional<double> number_field(const json& object, const char* key, const std::string& prefix) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (!it->is_number() || !std::isfinite(it->get<double>())) wrong_type(prefix + key, *it, "a finite number");
  return it->get<double>();
}

}  // namespace dlcbench::json_fields
