//===- PtxLinker.cpp - several PTX modules as one -------------------------===//

#include "NormDialect/Target/PtxLinker.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

using namespace llvm;

namespace {

/// The header directives every module must agree on.
bool isHeaderDirective(StringRef line) {
  return line.starts_with(".version") || line.starts_with(".target") ||
         line.starts_with(".address_size");
}

/// The code of a line, without a trailing `//` comment.
StringRef codeOf(StringRef line) {
  return line.substr(0, line.find("//")).trim();
}

/// The symbol a module-scope statement defines or declares: the name of an
/// entry or function (the identifier before its parameter list, after an
/// optional return parameter list), else of a variable (the identifier
/// before `[`, `=`, `;` or the end of the line).
std::string symbolOf(StringRef code) {
  static const Regex function(
      R"(\.(entry|func)[[:space:]]*(\([^)]*\))?[[:space:]]*([A-Za-z_$%][A-Za-z0-9_$]*))");
  static const Regex variable(
      R"(([A-Za-z_$%][A-Za-z0-9_$]*)[[:space:]]*(\[[^]]*\])*[[:space:]]*(=|;|$))");
  SmallVector<StringRef> match;
  if (function.match(code, &match))
    return match[3].str();
  if (variable.match(code, &match))
    return match[1].str();
  return "";
}

/// Whether `code` starts a module-scope statement that defines a symbol
/// (an entry, a function, a variable), as opposed to a declaration.
bool definesSymbol(StringRef code) {
  if (code.starts_with(".extern"))
    return false;
  for (StringRef keyword : {".entry", ".func", ".global", ".shared", ".const"})
    if (code.contains(keyword))
      return true;
  return false;
}

} // namespace

Expected<std::string> mlir::norm::linkPTXModules(ArrayRef<StringRef> modules) {
  std::string header, externs, body;
  SmallVector<std::string> headerDirectives;
  StringMap<std::string> declared; // .extern symbol -> its statement
  StringMap<unsigned> definedBy;   // defined symbol -> module index
  for (auto [index, text] : llvm::enumerate(modules)) {
    SmallVector<StringRef> lines;
    text.split(lines, '\n');
    unsigned i = 0;
    // The header: comments, blank lines and the three directives.
    SmallVector<std::string> directives;
    for (; i < lines.size(); ++i) {
      StringRef trimmed = lines[i].trim();
      if (!trimmed.empty() && !trimmed.starts_with("//") &&
          !isHeaderDirective(trimmed))
        break;
      bool directive = isHeaderDirective(trimmed);
      if (directive)
        directives.push_back(codeOf(trimmed).str());
      if (index == 0)
        header += (lines[i] + "\n").str();
      // The header ends with .address_size and the blank lines after it.
      if (directive && trimmed.starts_with(".address_size")) {
        for (++i; i < lines.size() && lines[i].trim().empty(); ++i)
          if (index == 0)
            header += "\n";
        break;
      }
    }
    if (directives.empty())
      return createStringError(
          formatv("PTX module {0} has no .version/.target header", index));
    if (index == 0)
      headerDirectives = directives;
    else if (directives != headerDirectives)
      return createStringError(
          formatv("PTX module {0}'s header ({1}) differs from module 0's "
                  "({2}): modules of one bundle are compiled for one target",
                  index, llvm::join(directives, ", "),
                  llvm::join(headerDirectives, ", ")));

    // The rest: module-scope statements (depth 0) and function bodies.
    // Depth in braces (function bodies) and parentheses (parameter lists,
    // whose `.ptr .global` are no module-scope variables).
    int depth = 0, parens = 0;
    std::string statement; // a module-scope .extern being read
    for (; i < lines.size(); ++i) {
      StringRef line = lines[i];
      StringRef code = codeOf(line);
      bool atModuleScope = depth == 0 && parens == 0;
      depth += code.count('{') - code.count('}');
      parens += code.count('(') - code.count(')');
      if (!statement.empty() ||
          (atModuleScope && code.starts_with(".extern"))) {
        statement += (line + "\n").str();
        if (depth != 0 || parens != 0 || !code.ends_with(";"))
          continue;
        std::string symbol = symbolOf(codeOf(StringRef(statement).trim()));
        auto [it, inserted] = declared.try_emplace(symbol, statement);
        if (inserted)
          externs += statement;
        else if (it->second != statement)
          return createStringError(
              formatv("PTX module {0} declares .extern {1} unlike an earlier "
                      "module:\n{2}earlier:\n{3}",
                      index, symbol, statement, it->second));
        statement.clear();
        continue;
      }
      if (atModuleScope && definesSymbol(code)) {
        std::string symbol = symbolOf(code);
        auto [it, inserted] = definedBy.try_emplace(symbol, index);
        if (!inserted)
          return createStringError(
              formatv("PTX modules {0} and {1} both define {2}", it->second,
                      index, symbol));
      }
      // The last line of a module ends without a newline.
      if (i + 1 < lines.size() || !line.empty())
        body += (line + "\n").str();
    }
    if (!statement.empty())
      return createStringError(formatv(
          "PTX module {0} ends inside a statement:\n{1}", index, statement));
  }
  return header + externs + body;
}
