// driver/library_docs.h: the REPL's `:doc` for the language's library
// (dense, the optimizers, input pipelines, savers, the session statement):
// one table of what each builtin accepts and the TF1 function it mirrors.
// Registry ops document themselves (driver/op_reference.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sluice::driver {

struct LibraryDoc {
  /// The builtin's name in the language (frontend/eval/builtins_*.cc), or
  /// a statement's keyword.
  const char *name;
  /// A statement (`session(...) { }`), not a function.
  bool statement = false;
  /// The arguments as the builtin reads them, in Python's notation:
  /// positional ones in order (before a `/`, by position only), then `*`
  /// and those it takes by keyword only; `name: default`.
  const char *signature;
  const char *summary;
  /// The TF1 function or class it mirrors.
  const char *tf;
  /// The methods of what it returns, when that is an object; or "".
  const char *methods = "";
};

/// Every entry, sorted by name.
const std::vector<LibraryDoc> &libraryDocs();

/// The entry named `name`, or null.
const LibraryDoc *findLibraryDoc(std::string_view name);

/// `:doc NAME`'s text: the signature, the summary, the TF1 function and
/// the methods, one a line.
std::string libraryDocText(const LibraryDoc &doc);

} // namespace sluice::driver
