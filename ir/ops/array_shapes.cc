// ir/ops/array_shapes.cc: output-shape rules of the array ops. Messages
// are TF's kernel messages.
#include "ir/ops/array_shapes.h"

#include <string>

#include "ir/shape.h"

namespace sluice::ir {

namespace {
std::string str(int64_t v) { return std::to_string(v); }
} // namespace

std::optional<int64_t> canonicalAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

Expected<DimList> reshapeDims(int64_t inElems, const DimList &requested) {
  DimList out = requested;
  int64_t unknownIndex = -1, known = 1;
  for (size_t i = 0; i < requested.size(); ++i) {
    int64_t d = requested[i];
    if (d == -1) {
      if (unknownIndex >= 0)
        return invalidArgument("Only one input size may be -1, not both " +
                               str(unknownIndex) + " and " + str(i));
      unknownIndex = static_cast<int64_t>(i);
    } else if (d < 0) {
      return invalidArgument("Size " + str(i) + " must be non-negative, not " +
                             str(d));
    } else {
      known *= d;
    }
  }
  auto mismatch = [&] {
    return invalidArgument("Cannot reshape a tensor with " + str(inElems) +
                           " elements to shape " + dimsString(requested) +
                           " (" + str(known) + " elements)");
  };
  if (inElems < 0)
    return out;
  if (unknownIndex < 0) {
    if (known != inElems)
      return mismatch();
    return out;
  }
  if (known == 0) {
    if (inElems != 0)
      return mismatch();
    return invalidArgument("Reshape cannot infer the missing input size for "
                           "an empty tensor unless all specified input sizes "
                           "are non-zero");
  }
  if (inElems % known != 0)
    return mismatch();
  out[unknownIndex] = inElems / known;
  return out;
}

Expected<std::optional<DimList>> squeezeDims(const DimList &in,
                                             const DimList *axes) {
  int64_t rank = static_cast<int64_t>(in.size());
  std::vector<bool> drop(rank, false);
  if (axes) {
    for (int64_t a : *axes) {
      auto ax = canonicalAxis(a, rank);
      if (!ax)
        return invalidArgument("Tried to squeeze dim index " + str(a) +
                               " for tensor with " + str(rank) +
                               " dimensions.");
      if (in[*ax] >= 0 && in[*ax] != 1)
        return invalidArgument("Can not squeeze dim[" + str(*ax) +
                               "], expected a dimension of 1, got " +
                               str(in[*ax]));
      drop[*ax] = true;
    }
  } else {
    for (int64_t i = 0; i < rank; ++i) {
      if (in[i] < 0)
        return std::optional<DimList>(); // might be 1: rank unknown
      drop[i] = in[i] == 1;
    }
  }
  DimList out;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i])
      out.push_back(in[i]);
  return std::optional<DimList>(std::move(out));
}

Status checkPermutation(const DimList &perm, int64_t rank) {
  if (static_cast<int64_t>(perm.size()) != rank)
    return invalidArgument("transpose expects a vector of size " + str(rank) +
                           ". But input(1) is a vector of size " +
                           str(perm.size()));
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank)
      return invalidArgument(str(p) + " is out of range [0 .. " + str(rank) +
                             ")");
    if (seen[p])
      return invalidArgument(str(p) + " is duplicated in the permutation " +
                             dimsString(perm));
    seen[p] = true;
  }
  return Status::ok();
}

Expected<DimList> concatDims(const std::vector<DimList> &shapes,
                             int64_t axis) {
  const DimList &first = shapes[0];
  int64_t rank = static_cast<int64_t>(first.size());
  if (rank == 0)
    return invalidArgument(
        "ConcatOp : Can't concatenate scalars (use tf.stack instead)");
  auto ax = canonicalAxis(axis, rank);
  if (!ax)
    return invalidArgument(
        "ConcatOp : Expected concatenating dimensions in the range [" +
        str(-rank) + ", " + str(rank) + "), but got " + str(axis));
  DimList out = first;
  for (size_t k = 1; k < shapes.size(); ++k) {
    const DimList &s = shapes[k];
    if (static_cast<int64_t>(s.size()) != rank)
      return invalidArgument(
          "ConcatOp : Ranks of all input tensors should match: shape[0] = " +
          Shape(first).str() + " vs. shape[" + str(k) +
          "] = " + Shape(s).str());
    for (int64_t i = 0; i < rank; ++i) {
      if (i == *ax) {
        out[i] = out[i] < 0 || s[i] < 0 ? -1 : out[i] + s[i];
      } else if (out[i] >= 0 && s[i] >= 0 && out[i] != s[i]) {
        return invalidArgument(
            "ConcatOp : Dimensions of inputs should match: shape[0] = " +
            Shape(first).str() + " vs. shape[" + str(k) +
            "] = " + Shape(s).str());
      } else if (out[i] < 0) {
        out[i] = s[i];
      }
    }
  }
  return out;
}

Expected<DimList> splitSizes(int64_t dimSize, int64_t numSplit,
                             const DimList *sizeSplits) {
  if (!sizeSplits) {
    if (numSplit <= 0)
      return invalidArgument(
          "Number of ways to split should be > 0, but got " + str(numSplit));
    if (dimSize >= 0 && dimSize % numSplit != 0)
      return invalidArgument(
          "Number of ways to split should evenly divide the split dimension, "
          "but got split_dim " + str(dimSize) + " and num_split " +
          str(numSplit));
    return DimList(numSplit, dimSize < 0 ? -1 : dimSize / numSplit);
  }
  DimList out = *sizeSplits;
  int64_t unknownIndex = -1, total = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (unknownIndex >= 0)
        return invalidArgument("There can only be one -1 in the input.");
      unknownIndex = static_cast<int64_t>(i);
    } else if (out[i] < 0) {
      return invalidArgument("Split size at index " + str(i) +
                             " must be >= 0. Got: " + str(out[i]));
    } else {
      total += out[i];
    }
  }
  if (dimSize < 0)
    return out;
  if ((unknownIndex < 0 && total != dimSize) ||
      (unknownIndex >= 0 && total > dimSize))
    return invalidArgument(
        "Determined shape must either match input shape along split_dim "
        "exactly if fully specified, or be less than the size of the input "
        "along split_dim if not fully specified.  Got: " + str(total));
  if (unknownIndex >= 0)
    out[unknownIndex] = dimSize - total;
  return out;
}

std::string splitAxisError(int64_t rank, int64_t axis) {
  return "-input rank(-" + str(rank) + ") <= split_dim < input rank (" +
         str(rank) + "), but got " + str(axis);
}

Expected<DimList> sliceSizes(const DimList &in, const DimList &begin,
                             const DimList &size) {
  if (begin.size() != in.size() || size.size() != in.size())
    return invalidArgument(
        "Expected begin and size arguments to be 1-D tensors of size " +
        str(in.size()) + ", but got shapes [" + str(begin.size()) +
        "] and [" + str(size.size()) + "] instead.");
  DimList out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t b = begin[i], s = size[i], d = in[i];
    if (d < 0) {
      if (b < 0)
        return invalidArgument("Expected begin[" + str(i) +
                               "] in [0, ?], but got " + str(b));
      out[i] = s >= 0 ? s : -1;
      continue;
    }
    if (s == -1)
      s = d - b;
    if (b < 0 || b > d)
      return invalidArgument("Expected begin[" + str(i) + "] in [0, " +
                             str(d) + "], but got " + str(b));
    if (s < 0 || b + s > d)
      return invalidArgument("Expected size[" + str(i) + "] in [0, " +
                             str(d - b) + "], but got " + str(s));
    out[i] = s;
  }
  return out;
}

} // namespace sluice::ir
