#pragma once
// A whole number read from JSON, refused when it does not fit its type.
// nlohmann::json's get<int>() casts whatever number it holds: a float beyond
// the type's range (a count written 1e300 in a record or a cluster file) is
// undefined behaviour, and an integer beyond it wraps. Readers of counts
// (workers, batch sizes, nodes) read them here instead. The refusal is
// nlohmann's own out_of_range (406), so the readers' messages for a bad
// field name this one as they name any other.

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace gradsync {

template <class Int = int>
Int whole_number(const nlohmann::json& value) {
  // Every Int lies in [-2^digits, 2^digits) (from 0 when unsigned), both
  // bounds exact doubles; a float is cast toward zero.
  const double limit = std::ldexp(1.0, std::numeric_limits<Int>::digits);
  const double low = std::numeric_limits<Int>::is_signed ? -limit : 0.0;
  bool fits = true;  // not a number: get() says so
  if (value.is_number_unsigned())
    fits = std::in_range<Int>(value.get<std::uint64_t>());
  else if (value.is_number_integer())
    fits = std::in_range<Int>(value.get<std::int64_t>());
  else if (value.is_number_float())
    fits = std::trunc(value.get<double>()) >= low && std::trunc(value.get<double>()) < limit;
  if (!fits)
    throw nlohmann::json::out_of_range::create(
        406, "number " + value.dump() + " is out of range for a whole number here", &value);
  return value.get<Int>();
}

// The whole number at `key` of `object`, or `fallback` where it has none:
// nlohmann's value(key, fallback), read as whole_number reads.
template <class Int = int>
Int whole_number_or(const nlohmann::json& object, const std::string& key, Int fallback) {
  if (!object.is_object()) return object.value(key, fallback);  // throws nlohmann's type_error
  const auto it = object.find(key);
  return it == object.end() ? fallback : whole_number<Int>(*it);
}

// A JSON array of whole numbers, each read as whole_number reads one.
template <class Int = int>
std::vector<Int> whole_numbers(const nlohmann::json& list) {
  if (!list.is_array()) return list.get<std::vector<Int>>();  // throws nlohmann's type_error
  std::vector<Int> numbers;
  for (const auto& value : list) numbers.push_back(whole_number<Int>(value));
  return numbers;
}

}  // namespace gradsync
