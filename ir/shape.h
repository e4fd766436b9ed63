// ir/shape.h: static (possibly partial) shapes of IR values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice::ir {

/// Concrete dimensions of a run-time tensor.
using Dims = std::vector<int64_t>;

int64_t numElements(const Dims &dims);
/// "[2, 3]"
std::string dimsString(const Dims &dims);

/// A static shape: unknown rank, or a list of dims where -1 is unknown.
class Shape {
public:
  static constexpr int64_t kUnknown = -1;

  /// Unknown rank.
  Shape() = default;
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
  static Shape unknown() { return Shape(); }
  static Shape scalar() { return Shape(std::vector<int64_t>{}); }
  static Shape unknownOfRank(int rank) {
    return Shape(std::vector<int64_t>(rank, kUnknown));
  }

  bool hasRank() const { return dims_.has_value(); }
  int rank() const { return hasRank() ? static_cast<int>(dims_->size()) : -1; }
  int64_t dim(int i) const { return (*dims_)[i]; }
  const std::vector<int64_t> &dims() const { return *dims_; }
  bool isFullyDefined() const;
  /// Element count, or -1 when not fully defined.
  int64_t numElements() const;

  /// Whether a tensor of these concrete dims could have this shape.
  bool isCompatibleWith(const Dims &concrete) const;
  bool isCompatibleWith(const Shape &other) const;
  /// The most specific shape compatible with both; nullopt if incompatible.
  std::optional<Shape> merge(const Shape &other) const;

  /// "[2, ?]" or "<unknown>"; used in messages and the textual IR.
  std::string str() const;
  bool operator==(const Shape &o) const { return dims_ == o.dims_; }
  bool operator!=(const Shape &o) const { return !(*this == o); }

private:
  std::optional<std::vector<int64_t>> dims_;
};

} // namespace sluice::ir
