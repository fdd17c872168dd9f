//===- Json.h - the JSON subset of bundle manifests -------------*- C++ -*-===//
//
// A small JSON reader for manifest.json (objects, arrays, strings, integers,
// booleans, null), so the runtime depends on nothing but the C++ standard
// library and the CUDA driver.
//
//===----------------------------------------------------------------------===//

#ifndef NORMRUNTIME_JSON_H
#define NORMRUNTIME_JSON_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace norm::runtime {

/// A parsed JSON value.
struct JsonValue {
  enum class Kind { Null, Bool, Integer, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::map<std::string, JsonValue> object;

  bool isObject() const { return kind == Kind::Object; }
  bool isArray() const { return kind == Kind::Array; }
  bool isString() const { return kind == Kind::String; }
  bool isInteger() const { return kind == Kind::Integer; }
  /// The member `key` of an object, or nullptr.
  const JsonValue *get(const std::string &key) const;
};

/// Parses `text`; on failure returns false and sets `error` (with offset).
bool parseJson(const std::string &text, JsonValue &out, std::string &error);

} // namespace norm::runtime

#endif // NORMRUNTIME_JSON_H
