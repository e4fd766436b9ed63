// ir/function.h: graph functions. A function is a body graph whose
// `function_arg` nodes are its parameters and whose listed outputs are its
// results; dataset transformations (map, filter) name one in an attr. The
// library lives on the graph that uses the functions, so a copy of that
// graph carries them.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/node.h"
#include "support/status.h"

namespace sluice::ir {

class Graph;

struct FunctionDef {
  std::string name;
  std::shared_ptr<const Graph> body;
  /// The `function_arg` nodes in parameter order.
  std::vector<NodeId> args;
  std::vector<Output> rets;
  SourceLoc loc;

  std::vector<DType> argTypes() const;
  std::vector<DType> retTypes() const;
  /// Checks that args are `function_arg` nodes numbered 0..n-1 and that
  /// every result names an existing output.
  Status verify() const;
};

class FunctionLibrary {
public:
  /// already_exists when the name is taken; fails verify() errors.
  Status add(std::shared_ptr<const FunctionDef> f);
  std::shared_ptr<const FunctionDef> find(const std::string &name) const;
  bool empty() const { return fns_.empty(); }
  size_t size() const { return fns_.size(); }
  /// Functions by name (stable order for printing).
  const std::map<std::string, std::shared_ptr<const FunctionDef>> &all() const {
    return fns_;
  }
  /// A name not used yet: `base`, `base_1`, ...
  std::string uniqueName(const std::string &base) const;

private:
  std::map<std::string, std::shared_ptr<const FunctionDef>> fns_;
};

/// Adds to `to`'s library the functions of `from` that `to`'s nodes name
/// (attrs `f`, `predicate`), and those their bodies name in turn; a name
/// `from` lacks is invalid_argument naming the node.
Status copyReferencedFunctions(const FunctionLibrary &from, Graph &to);

} // namespace sluice::ir
