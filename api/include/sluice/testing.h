// sluice/testing.h: GoogleTest matchers for HostTensors. Header-only, so
// that only tests need GoogleTest:
//   EXPECT_THAT(t, TensorEq({{1, 2}, {3, 4}}));
//   EXPECT_THAT(t, TensorNear(expected, 1e-5));
//   EXPECT_THAT(t, HasShape({2, -1}));   // -1: any size
//   EXPECT_THAT(t, HasDType(sluice::DType::kInt32));
#pragma once

#include <cmath>
#include <initializer_list>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <gmock/gmock.h>

#include "sluice/host_tensor.h"

namespace sluice::testing {

namespace detail {

/// A nested std::vector flattened: its shape and row-major elements.
template <typename T> struct Nested {
  using Element = T;
  static void flatten(const T &v, std::vector<T> &out, std::vector<int64_t> &, size_t, bool &) {
    out.push_back(v);
  }
};
template <typename T> struct Nested<std::vector<T>> {
  using Element = typename Nested<T>::Element;
  static void flatten(const std::vector<T> &v, std::vector<Element> &out,
                      std::vector<int64_t> &shape, size_t depth, bool &ragged) {
    if (shape.size() == depth)
      shape.push_back(static_cast<int64_t>(v.size()));
    else if (shape[depth] != static_cast<int64_t>(v.size()))
      ragged = true;
    for (const auto &x : v)
      Nested<T>::flatten(x, out, shape, depth + 1, ragged);
  }
};

inline std::string indexString(const std::vector<int64_t> &shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = shape[i] ? flat % shape[i] : 0;
    flat = shape[i] ? flat / shape[i] : 0;
  }
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i)
    s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

inline std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return s + "]";
}

inline bool isNumeric(DType t) { return t != DType::kString && t != DType::kInvalid; }

/// Compares dtype (when `strictDType`), shape, then every element; the
/// tolerance applies to floating dtypes: |a - e| <= atol + rtol * |e|.
class TensorMatcher : public ::testing::MatcherInterface<const HostTensor &> {
public:
  TensorMatcher(HostTensor expected, bool strictDType, double atol, double rtol, bool near)
      : expected_(std::move(expected)), strict_(strictDType), atol_(atol), rtol_(rtol),
        near_(near) {}

  bool MatchAndExplain(const HostTensor &t,
                       ::testing::MatchResultListener *l) const override {
    if (!t.valid()) {
      *l << "which is an invalid tensor";
      return false;
    }
    if (strict_ ? t.dtype() != expected_.dtype()
                : isNumeric(t.dtype()) != isNumeric(expected_.dtype())) {
      *l << "whose dtype is " << dtypeName(t.dtype()) << ", not "
         << dtypeName(expected_.dtype());
      return false;
    }
    if (t.shape() != expected_.shape()) {
      *l << "whose shape is " << shapeString(t.shape()) << ", not "
         << shapeString(expected_.shape());
      return false;
    }
    int64_t mismatches = 0, first = -1;
    double maxAbs = 0, maxRel = 0;
    int64_t maxAbsAt = -1;
    for (int64_t i = 0; i < t.numElements(); ++i) {
      bool same;
      if (t.dtype() == DType::kString) {
        same = t.strings()[i] == expected_.strings()[i];
      } else {
        double a = t.elementAsDouble(i), e = expected_.elementAsDouble(i);
        double err = std::fabs(a - e);
        if (std::isnan(a) || std::isnan(e)) {
          same = std::isnan(a) && std::isnan(e);
        } else {
          same = near_ ? err <= atol_ + rtol_ * std::fabs(e) : a == e;
          if (err > maxAbs) {
            maxAbs = err;
            maxAbsAt = i;
          }
          if (e != 0)
            maxRel = std::max(maxRel, err / std::fabs(e));
        }
      }
      if (!same && mismatches++ == 0)
        first = i;
    }
    if (mismatches == 0)
      return true;
    *l << mismatches << " of " << t.numElements() << " elements differ; the first at "
       << indexString(t.shape(), first) << ": " << t.elementString(first) << " vs expected "
       << expected_.elementString(first);
    if (isNumeric(t.dtype())) {
      *l << "; max abs error " << maxAbs;
      if (maxAbsAt >= 0)
        *l << " at " << indexString(t.shape(), maxAbsAt);
      *l << ", max rel error " << maxRel;
    }
    *l << "; actual " << t.toString();
    return false;
  }

  void DescribeTo(std::ostream *os) const override {
    *os << (near_ ? "is a tensor near " : "is a tensor equal to ")
        << (strict_ ? expected_.typeString() : shapeString(expected_.shape())) << " "
        << expected_.toString();
    if (near_)
      *os << " (atol " << atol_ << ", rtol " << rtol_ << ")";
  }
  void DescribeNegationTo(std::ostream *os) const override {
    *os << "isn't ";
    DescribeTo(os);
  }

private:
  HostTensor expected_;
  bool strict_;
  double atol_, rtol_;
  bool near_;
};

/// The expected tensor of a nested std::vector (or a scalar).
template <typename V> HostTensor fromNested(const V &v) {
  using E = typename Nested<V>::Element;
  std::vector<E> flat;
  std::vector<int64_t> shape;
  bool ragged = false;
  Nested<V>::flatten(v, flat, shape, 0, ragged);
  if (ragged) {
    ADD_FAILURE() << "sluice::testing: the expected nested vector is ragged";
    return HostTensor();
  }
  if constexpr (std::is_same_v<E, std::string>)
    return HostTensor(flat, shape);
  else if constexpr (std::is_same_v<E, const char *>)
    return HostTensor(std::vector<std::string>(flat.begin(), flat.end()), shape);
  else if constexpr (std::is_same_v<E, bool>)
    return HostTensor(flat, shape);
  else if constexpr (std::is_floating_point_v<E>)
    return HostTensor(std::vector<double>(flat.begin(), flat.end()), shape);
  else
    return HostTensor(std::vector<int64_t>(flat.begin(), flat.end()), shape);
}

using List1 = std::initializer_list<double>;
using List2 = std::initializer_list<List1>;
using List3 = std::initializer_list<List2>;
inline std::vector<double> toVector(List1 l) { return std::vector<double>(l); }
inline std::vector<std::vector<double>> toVector(List2 l) {
  std::vector<std::vector<double>> v;
  for (auto x : l)
    v.push_back(toVector(x));
  return v;
}
inline std::vector<std::vector<std::vector<double>>> toVector(List3 l) {
  std::vector<std::vector<std::vector<double>>> v;
  for (auto x : l)
    v.push_back(toVector(x));
  return v;
}

} // namespace detail

/// Same dtype, shape and elements as `expected`.
inline ::testing::Matcher<const HostTensor &> TensorEq(const HostTensor &expected) {
  return ::testing::MakeMatcher(new detail::TensorMatcher(expected, true, 0, 0, false));
}
/// Same shape and element values as a nested std::vector (or a scalar):
/// any numeric dtype matches numbers by value, strings match strings.
template <typename V>
::testing::Matcher<const HostTensor &> TensorEq(const std::vector<V> &expected) {
  return ::testing::MakeMatcher(
      new detail::TensorMatcher(detail::fromNested(expected), false, 0, 0, false));
}
inline ::testing::Matcher<const HostTensor &> TensorEq(detail::List1 e) {
  return TensorEq(detail::toVector(e));
}
inline ::testing::Matcher<const HostTensor &> TensorEq(detail::List2 e) {
  return TensorEq(detail::toVector(e));
}
inline ::testing::Matcher<const HostTensor &> TensorEq(detail::List3 e) {
  return TensorEq(detail::toVector(e));
}

/// Same shape as `expected` and every element within atol + rtol * |e|
/// (NaN matches only NaN); the dtype must be numeric, not necessarily
/// the same.
inline ::testing::Matcher<const HostTensor &> TensorNear(const HostTensor &expected,
                                                         double atol, double rtol = 0) {
  return ::testing::MakeMatcher(new detail::TensorMatcher(expected, false, atol, rtol, true));
}
template <typename V>
::testing::Matcher<const HostTensor &> TensorNear(const std::vector<V> &expected, double atol,
                                                  double rtol = 0) {
  return TensorNear(detail::fromNested(expected), atol, rtol);
}
inline ::testing::Matcher<const HostTensor &> TensorNear(detail::List1 e, double atol,
                                                         double rtol = 0) {
  return TensorNear(detail::toVector(e), atol, rtol);
}
inline ::testing::Matcher<const HostTensor &> TensorNear(detail::List2 e, double atol,
                                                         double rtol = 0) {
  return TensorNear(detail::toVector(e), atol, rtol);
}
inline ::testing::Matcher<const HostTensor &> TensorNear(detail::List3 e, double atol,
                                                         double rtol = 0) {
  return TensorNear(detail::toVector(e), atol, rtol);
}

namespace detail {
class ShapeMatcher : public ::testing::MatcherInterface<const HostTensor &> {
public:
  explicit ShapeMatcher(std::vector<int64_t> shape) : shape_(std::move(shape)) {}
  bool MatchAndExplain(const HostTensor &t, ::testing::MatchResultListener *l) const override {
    bool ok = t.shape().size() == shape_.size();
    for (size_t i = 0; ok && i < shape_.size(); ++i)
      ok = shape_[i] < 0 || shape_[i] == t.shape()[i];
    if (!ok)
      *l << "whose shape is " << shapeString(t.shape());
    return ok;
  }
  void DescribeTo(std::ostream *os) const override { *os << "has shape " << shapeString(shape_); }
  void DescribeNegationTo(std::ostream *os) const override {
    *os << "hasn't shape " << shapeString(shape_);
  }

private:
  std::vector<int64_t> shape_;
};

class DTypeMatcher : public ::testing::MatcherInterface<const HostTensor &> {
public:
  explicit DTypeMatcher(DType dtype) : dtype_(dtype) {}
  bool MatchAndExplain(const HostTensor &t, ::testing::MatchResultListener *l) const override {
    if (t.dtype() != dtype_)
      *l << "whose dtype is " << dtypeName(t.dtype());
    return t.dtype() == dtype_;
  }
  void DescribeTo(std::ostream *os) const override { *os << "has dtype " << dtypeName(dtype_); }
  void DescribeNegationTo(std::ostream *os) const override {
    *os << "hasn't dtype " << dtypeName(dtype_);
  }

private:
  DType dtype_;
};
} // namespace detail

/// The shape is `shape`; -1 matches any size of that dimension.
inline ::testing::Matcher<const HostTensor &> HasShape(std::vector<int64_t> shape) {
  return ::testing::MakeMatcher(new detail::ShapeMatcher(std::move(shape)));
}

/// The dtype is `dtype`.
inline ::testing::Matcher<const HostTensor &> HasDType(DType dtype) {
  return ::testing::MakeMatcher(new detail::DTypeMatcher(dtype));
}

} // namespace sluice::testing
