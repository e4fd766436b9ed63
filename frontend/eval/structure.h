// frontend/eval/structure.h: the nested structure of a dataset element
// (tf.nest): a tensor, a tuple of structures or a dict of structures. The
// graph carries the flat list of components; this puts them back.
#pragma once

#include <vector>

#include "frontend/value.h"

namespace sluice::frontend {

struct Structure {
  enum Kind { kTensor, kTuple, kDict } kind = kTensor;
  std::vector<Structure> children;
  std::vector<Value> keys; // kDict: in insertion order, one per child

  /// How many tensors the structure flattens to.
  size_t numComponents() const;
  /// `(x, {"a": y})` style text for messages, with `leaf` for tensors.
  std::string str() const;
  bool operator==(const Structure &o) const;
};

/// Splits `v` into a structure and its leaves: tuples and dicts are
/// structure, anything else (tensors, lists, numbers) a leaf.
Structure flattenValue(const Value &v, std::vector<Value> &leaves);
/// Rebuilds a value of structure `s` from `leaves` starting at `next`.
Value packValue(const Structure &s, const std::vector<Value> &leaves, size_t &next);

} // namespace sluice::frontend
