// ir/shape.cc: partial-shape algebra.
#include "ir/shape.h"

namespace sluice::ir {

int64_t numElements(const Dims &dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

std::string dimsString(const Dims &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

bool Shape::isFullyDefined() const {
  if (!hasRank())
    return false;
  for (int64_t d : *dims_)
    if (d < 0)
      return false;
  return true;
}

int64_t Shape::numElements() const {
  return isFullyDefined() ? ir::numElements(*dims_) : -1;
}

bool Shape::isCompatibleWith(const Dims &concrete) const {
  if (!hasRank())
    return true;
  if (dims_->size() != concrete.size())
    return false;
  for (size_t i = 0; i < concrete.size(); ++i)
    if ((*dims_)[i] >= 0 && (*dims_)[i] != concrete[i])
      return false;
  return true;
}

bool Shape::isCompatibleWith(const Shape &o) const { return merge(o).has_value(); }

std::optional<Shape> Shape::merge(const Shape &o) const {
  if (!hasRank())
    return o;
  if (!o.hasRank())
    return *this;
  if (rank() != o.rank())
    return std::nullopt;
  std::vector<int64_t> out(dims_->size());
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t a = (*dims_)[i], b = (*o.dims_)[i];
    if (a >= 0 && b >= 0 && a != b)
      return std::nullopt;
    out[i] = a >= 0 ? a : b;
  }
  return Shape(std::move(out));
}

std::string Shape::str() const {
  if (!hasRank())
    return "<unknown>";
  std::string s = "[";
  for (size_t i = 0; i < dims_->size(); ++i) {
    if (i)
      s += ", ";
    s += (*dims_)[i] < 0 ? "?" : std::to_string((*dims_)[i]);
  }
  return s + "]";
}

} // namespace sluice::ir
