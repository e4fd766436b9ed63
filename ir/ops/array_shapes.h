// ir/ops/array_shapes.h: output-shape rules of the array ops, shared by
// their shape functions (dims may be -1) and CPU kernels (dims known), so
// that an error reads the same whether found statically or at run time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/status.h"

namespace sluice::ir {

using DimList = std::vector<int64_t>;

/// `axis` in [-rank, rank) made non-negative; nullopt when out of range.
std::optional<int64_t> canonicalAxis(int64_t axis, int64_t rank);

/// The dims `requested` resolves to for a tensor of `inElems` elements
/// (-1: unknown); one requested dim may be -1.
Expected<DimList> reshapeDims(int64_t inElems, const DimList &requested);

/// Squeezed dims; nullopt (unknown rank) when `axes` is absent and a dim is
/// unknown.
Expected<std::optional<DimList>> squeezeDims(const DimList &in,
                                             const DimList *axes);

/// Checks that `perm` permutes [0, rank).
Status checkPermutation(const DimList &perm, int64_t rank);

/// Dims of the concatenation of `shapes` (all of one rank) along `axis`.
Expected<DimList> concatDims(const std::vector<DimList> &shapes, int64_t axis);

/// Sizes of split's pieces along a dim of `dimSize` (-1: unknown): equal
/// pieces when `sizeSplits` is null, else those sizes (one may be -1).
Expected<DimList> splitSizes(int64_t dimSize, int64_t numSplit,
                             const DimList *sizeSplits);

/// TF's message for split's axis out of range.
std::string splitAxisError(int64_t rank, int64_t axis);

/// slice's sizes with -1 resolved (stays -1 when the dim is unknown).
Expected<DimList> sliceSizes(const DimList &in, const DimList &begin,
                             const DimList &size);

} // namespace sluice::ir
