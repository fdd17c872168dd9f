//===- Json.cpp - the JSON subset of bundle manifests ---------------------===//

#include "NormRuntime/Json.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

using namespace norm::runtime;

const JsonValue *JsonValue::get(const std::string &key) const {
  if (kind != Kind::Object)
    return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &it->second;
}

namespace {
class Parser {
public:
  Parser(const std::string &text) : text(text) {}

  bool parse(JsonValue &out, std::string &error) {
    if (!value(out, 0)) {
      error = message + " at offset " + std::to_string(pos);
      return false;
    }
    skipSpace();
    if (pos != text.size()) {
      error = "trailing characters at offset " + std::to_string(pos);
      return false;
    }
    return true;
  }

private:
  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool fail(const char *what) {
    message = what;
    return false;
  }
  bool literal(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (text.compare(pos, n, word) != 0)
      return fail("invalid literal");
    pos += n;
    return true;
  }
  bool string(std::string &out) {
    if (text[pos] != '"')
      return fail("expected a string");
    ++pos;
    while (pos < text.size() && text[pos] != '"') {
      char c = text[pos++];
      if (c == '\\') {
        if (pos >= text.size())
          return fail("unterminated escape");
        char e = text[pos++];
        switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          // Manifests are ASCII: \u escapes of ASCII characters only, so a
          // byte is a character.
          unsigned code = 0;
          for (int i = 0; i < 4; ++i, ++pos) {
            if (pos >= text.size() ||
                !std::isxdigit(static_cast<unsigned char>(text[pos])))
              return fail("bad \\u escape");
            code =
                code * 16 + std::stoi(std::string(1, text[pos]), nullptr, 16);
          }
          if (code > 0x7f)
            return fail("\\u escape of a non-ASCII character");
          out += static_cast<char>(code);
          break;
        }
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        default:
          return fail("invalid escape");
        }
      } else {
        out += c;
      }
    }
    if (pos >= text.size())
      return fail("unterminated string");
    ++pos;
    return true;
  }
  bool digits() {
    size_t start = pos;
    while (pos < text.size() &&
           std::isdigit(static_cast<unsigned char>(text[pos])))
      ++pos;
    return pos > start;
  }
  /// JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
  /// Integers must fit 64 bits: a clamped size would be silently wrong.
  bool number(JsonValue &out) {
    size_t start = pos;
    if (text[pos] == '-')
      ++pos;
    if (pos < text.size() && text[pos] == '0')
      ++pos;
    else if (!digits())
      return fail("invalid number");
    bool isFloat = false;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      isFloat = true;
      if (!digits())
        return fail("invalid number");
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      ++pos;
      isFloat = true;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      if (!digits())
        return fail("invalid number");
    }
    std::string number = text.substr(start, pos - start);
    errno = 0;
    if (isFloat) {
      out.kind = JsonValue::Kind::Number;
      out.number = std::strtod(number.c_str(), nullptr);
    } else {
      out.kind = JsonValue::Kind::Integer;
      out.integer = std::strtoll(number.c_str(), nullptr, 10);
    }
    if (errno == ERANGE)
      return fail("number out of range");
    return true;
  }
  bool value(JsonValue &out, int depth) {
    if (depth > 64)
      return fail("nesting too deep");
    skipSpace();
    if (pos >= text.size())
      return fail("unexpected end of input");
    char c = text[pos];
    if (c == '{') {
      out.kind = JsonValue::Kind::Object;
      ++pos;
      skipSpace();
      if (pos < text.size() && text[pos] == '}') {
        ++pos;
        return true;
      }
      while (true) {
        skipSpace();
        std::string key;
        if (pos >= text.size() || !string(key))
          return fail("expected an object key");
        // A repeated key would parse into the value already there, merging
        // the two; a manifest never repeats one.
        if (out.object.count(key))
          return fail("duplicate object key");
        skipSpace();
        if (pos >= text.size() || text[pos] != ':')
          return fail("expected ':'");
        ++pos;
        if (!value(out.object[key], depth + 1))
          return false;
        skipSpace();
        if (pos < text.size() && text[pos] == ',') {
          ++pos;
          continue;
        }
        if (pos < text.size() && text[pos] == '}') {
          ++pos;
          return true;
        }
        return fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      out.kind = JsonValue::Kind::Array;
      ++pos;
      skipSpace();
      if (pos < text.size() && text[pos] == ']') {
        ++pos;
        return true;
      }
      while (true) {
        out.array.emplace_back();
        if (!value(out.array.back(), depth + 1))
          return false;
        skipSpace();
        if (pos < text.size() && text[pos] == ',') {
          ++pos;
          continue;
        }
        if (pos < text.size() && text[pos] == ']') {
          ++pos;
          return true;
        }
        return fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      out.kind = JsonValue::Kind::String;
      return string(out.string);
    }
    if (c == 't') {
      out.kind = JsonValue::Kind::Bool;
      out.boolean = true;
      return literal("true");
    }
    if (c == 'f') {
      out.kind = JsonValue::Kind::Bool;
      return literal("false");
    }
    if (c == 'n')
      return literal("null");
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c)))
      return number(out);
    return fail("unexpected character");
  }

  const std::string &text;
  size_t pos = 0;
  std::string message;
};
} // namespace

bool norm::runtime::parseJson(const std::string &text, JsonValue &out,
                              std::string &error) {
  // A reused value must not keep what it held before (its kind flags and
  // members are only set, never cleared, by the parser).
  out = JsonValue();
  return Parser(text).parse(out, error);
}
