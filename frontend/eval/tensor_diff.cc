// frontend/eval/tensor_diff.cc
#include "frontend/eval/tensor_diff.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace sluice::frontend {

namespace {

// Whole tensors are printed only while they stay readable.
constexpr int64_t kMaxPrintedElements = 64;
// Mismatches listed one by one before the summary.
constexpr int kMaxListedMismatches = 3;

bool isText(ir::DType d) { return d == ir::DType::kString || d == ir::DType::kResource; }

std::string elementText(const ir::Tensor &t, int64_t i) {
  std::string s = ir::formatElement(t, i);
  return isText(t.dtype()) ? "\"" + s + "\"" : s;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

bool elementsMatch(const ir::Tensor &a, const ir::Tensor &e, int64_t i,
                   std::optional<double> tol) {
  if (isText(a.dtype()))
    return a.strings()[i] == e.strings()[i];
  if (a.dtype() == ir::DType::kVariant)
    return a.variants()[i] == e.variants()[i];
  double x = a.elementAsDouble(i), y = e.elementAsDouble(i);
  if (!tol) {
    if (ir::isFloating(a.dtype()))
      return x == y;
    return a.elementAsInt(i) == e.elementAsInt(i);
  }
  if (std::isnan(x) || std::isnan(y))
    return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y))
    return x == y;
  return std::fabs(x - y) <= *tol;
}

} // namespace

std::string multiIndex(const ir::Dims &dims, int64_t flat) {
  std::vector<int64_t> idx(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    int64_t d = dims[k] == 0 ? 1 : dims[k];
    idx[k] = flat % d;
    flat /= d;
  }
  std::string out = "[";
  for (size_t k = 0; k < idx.size(); ++k)
    out += (k ? ", " : "") + std::to_string(idx[k]);
  return out + "]";
}

std::optional<std::string> describeTensorDifference(const ir::Tensor &actual,
                                                    const ir::Tensor &expected,
                                                    std::optional<double> tol) {
  if (actual.dtype() != expected.dtype())
    return "  dtype: got " + std::string(ir::dtypeName(actual.dtype())) + ", expected " +
           std::string(ir::dtypeName(expected.dtype()));
  if (actual.dims() != expected.dims())
    return "  shape: got " + ir::dimsString(actual.dims()) + ", expected " +
           ir::dimsString(expected.dims());
  const int64_t n = actual.numElements();
  const bool numeric = !isText(actual.dtype()) && actual.dtype() != ir::DType::kVariant &&
                       actual.dtype() != ir::DType::kBool;
  int64_t differing = 0;
  std::string listed;
  double maxAbs = -1, maxRel = -1;
  int64_t maxAbsAt = 0, maxRelAt = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (elementsMatch(actual, expected, i, tol))
      continue;
    if (differing < kMaxListedMismatches)
      listed += "  at " + multiIndex(actual.dims(), i) + ": got " + elementText(actual, i) +
                ", expected " + elementText(expected, i) + "\n";
    ++differing;
    if (!numeric)
      continue;
    double x = actual.elementAsDouble(i), y = expected.elementAsDouble(i);
    double abs = std::fabs(x - y);
    if (std::isnan(abs))
      abs = INFINITY;
    double rel = y != 0 ? abs / std::fabs(y) : INFINITY;
    if (abs > maxAbs) {
      maxAbs = abs;
      maxAbsAt = i;
    }
    if (rel > maxRel) {
      maxRel = rel;
      maxRelAt = i;
    }
  }
  if (differing == 0)
    return std::nullopt;
  std::string out = "  " + std::to_string(differing) + " of " + std::to_string(n) +
                    (n == 1 ? " element differs" : " elements differ") +
                    (tol ? " by more than " + number(*tol) : std::string()) + " (" +
                    std::string(ir::dtypeName(actual.dtype())) + " " +
                    ir::dimsString(actual.dims()) + ")\n" + listed;
  if (differing > kMaxListedMismatches)
    out += "  ...\n";
  if (numeric)
    out += "  max abs error " + number(maxAbs) + " at " + multiIndex(actual.dims(), maxAbsAt) +
           ", max rel error " + number(maxRel) + " at " + multiIndex(actual.dims(), maxRelAt) +
           "\n";
  if (n <= kMaxPrintedElements && actual.rank() > 0)
    out += "  got:      " + ir::formatTensor(actual) + "\n  expected: " +
           ir::formatTensor(expected) + "\n";
  out.pop_back();
  return out;
}

} // namespace sluice::frontend
