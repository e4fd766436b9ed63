// tests/jit/jit_test_util.h: graphs built op by op, run in sessions with
// each backend, and results compared within a stated ulp tolerance.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "backend/jit/jit.h"
#include "runtime/session.h"

namespace sluice::jittest {

inline ir::Output add(ir::Graph &g, const std::string &op, std::vector<ir::Output> inputs,
                      ir::AttrMap attrs = {}, Status *error = nullptr) {
  ir::NodeSpec spec;
  spec.name = g.uniqueName(op);
  spec.op = op;
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  auto n = g.addNode(std::move(spec));
  if (!n.hasValue()) {
    if (error)
      *error = n.takeStatus();
    else
      ADD_FAILURE() << n.status().toString();
    return {ir::kNoNode, 0};
  }
  return {(*n)->id(), 0};
}

inline ir::Output placeholder(ir::Graph &g, ir::DType t, std::vector<int64_t> dims) {
  return add(g, "placeholder", {}, {{"dtype", t}, {"shape", ir::Shape(dims)}});
}

/// Values that exercise every rule: signs, zeros, NaN, infinities, large
/// magnitudes (casts saturate), fractions at .5 (round half to even).
inline ir::Tensor randomTensor(ir::DType t, const ir::Dims &dims, std::mt19937 &rng) {
  ir::Tensor out(t, dims);
  std::uniform_real_distribution<double> u(-4, 4);
  const double specials[] = {0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e30, -1e30,
                             NAN, INFINITY, -INFINITY, 300.0, -129.0, 1e-40};
  for (int64_t i = 0; i < out.numElements(); ++i) {
    double v = rng() % 5 == 0 ? specials[rng() % std::size(specials)] : u(rng);
    ir::dispatchPod(t, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>)
        out.data<bool>()[i] = rng() % 2;
      else if constexpr (std::is_floating_point_v<T>)
        out.data<T>()[i] = static_cast<T>(v);
      else if constexpr (std::is_integral_v<T>)
        out.data<T>()[i] = static_cast<T>(static_cast<int64_t>(rng() % 21) - 10);
    });
  }
  return out;
}

/// Distance in units in the last place (0 for equal, both NaN included).
template <typename T> int64_t ulps(T a, T b) {
  if (std::isnan(a) && std::isnan(b))
    return 0;
  if (std::isnan(a) || std::isnan(b))
    return INT64_MAX;
  if (a == b)
    return 0; // +0 == -0 counted below by signbit
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  I ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  if ((ia < 0) != (ib < 0))
    return INT64_MAX;
  return std::llabs(static_cast<int64_t>(ia) - static_cast<int64_t>(ib));
}

/// The largest ulp distance between two tensors, or INT64_MAX when they
/// differ in dtype, dims, an integer element or the sign of a zero.
inline int64_t maxUlps(const ir::Tensor &a, const ir::Tensor &b) {
  if (a.dtype() != b.dtype() || a.dims() != b.dims())
    return INT64_MAX;
  int64_t worst = 0;
  for (int64_t i = 0; i < a.numElements(); ++i) {
    int64_t d = 0;
    ir::dispatchPod(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        T x = a.data<T>()[i], y = b.data<T>()[i];
        d = ulps(x, y);
        if (d == 0 && x == 0 && std::signbit(x) != std::signbit(y))
          d = INT64_MAX;
      } else if constexpr (!std::is_same_v<T, ir::Half>) {
        d = a.data<T>()[i] == b.data<T>()[i] ? 0 : INT64_MAX;
      }
    });
    worst = std::max(worst, d);
  }
  return worst;
}

struct Backend {
  std::string name;
  bool fusion;
};

inline Expected<std::vector<ir::Tensor>>
runWith(const ir::Graph &g, const Backend &b,
        const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
        const std::vector<ir::Output> &fetches, int threads = 1) {
  rt::SessionOptions o;
  o.backend = b.name;
  o.fusion = b.fusion;
  o.constantFolding = false; // keep constant clusters for the backends to run
  o.intraOpThreads = threads;
  auto s = rt::Session::create(&g, nullptr, o);
  if (!s.hasValue())
    return s.takeStatus();
  return (*s)->run(feeds, fetches, {});
}

/// A fresh disk cache directory, removed at the end of the test.
class TempDir {
public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("sluice-jit-test-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter_++));
    std::filesystem::remove_all(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string str() const { return path_.string(); }

private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

} // namespace sluice::jittest
