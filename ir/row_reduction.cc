// ir/row_reduction.cc: see row_reduction.h.
#include "ir/row_reduction.h"

#include <set>

namespace sluice::ir {

std::vector<int64_t> RowReduction::rowDims() const {
  std::vector<int64_t> d = input;
  for (size_t i = d.size() - reducedDims; i < d.size(); ++i)
    d[i] = 1;
  return d;
}

std::optional<RowReduction> rowReduction(const Graph &g, const Node &n) {
  const std::string &op = n.opName();
  if (op != "reduce_sum" && op != "reduce_mean" && op != "reduce_max" && op != "reduce_min")
    return std::nullopt;
  if (n.numInputs() < 1 || !n.hasAttr("keepdims") || !n.attr<bool>("keepdims"))
    return std::nullopt;
  const Output &in = n.inputs()[0];
  const Shape &s = g.node(in.node).outputShape(in.index);
  if (!s.isFullyDefined() || s.rank() == 0)
    return std::nullopt;
  int rank = s.rank();
  std::set<int> axes;
  if (!n.hasAttr("axis")) {
    for (int i = 0; i < rank; ++i)
      axes.insert(i);
  } else {
    for (int64_t a : n.attr<std::vector<int64_t>>("axis")) {
      if (a < -rank || a >= rank)
        return std::nullopt;
      axes.insert(static_cast<int>(a < 0 ? a + rank : a));
    }
  }
  if (axes.empty() || *axes.begin() != rank - static_cast<int>(axes.size()))
    return std::nullopt; // not a suffix (axes is sorted and distinct)
  return RowReduction{s.dims(), static_cast<int>(axes.size())};
}

bool readableAlongRows(const std::vector<int64_t> &dims, const RowReduction &r) {
  int rank = static_cast<int>(r.input.size());
  int rs = static_cast<int>(dims.size());
  if (rs > rank)
    return false;
  bool allOne = true, allEqual = true;
  for (int d = 0; d < rank; ++d) {
    int64_t have = d - (rank - rs) >= 0 ? dims[d - (rank - rs)] : 1;
    if (have != 1 && have != r.input[d])
      return false;
    if (d >= rank - r.reducedDims) {
      allOne = allOne && have == 1;
      allEqual = allEqual && have == r.input[d];
    }
  }
  return allOne || allEqual;
}

} // namespace sluice::ir
