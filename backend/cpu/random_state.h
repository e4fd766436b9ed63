// backend/cpu/random_state.h: the generator behind a seeded random kernel
// (random_uniform, random_shuffle, ...), one per node and session.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>

#include "backend/kernel.h"
#include "backend/resource_mgr.h"

namespace sluice::backend {

/// A mt19937_64 seeded from (seed, seed2), or from the system when both
/// are 0. Lock `mu` around draws.
class RandomState final : public Resource {
public:
  RandomState(int64_t seed, int64_t seed2);
  std::string kind() const override { return "RandomState"; }

  std::mutex mu;
  std::mt19937_64 &engine() { return engine_; }

private:
  std::mt19937_64 engine_;
};

/// Finds a random node's generator. It lives in the step's ResourceMgr,
/// keyed by node name, so every plan of a session continues one stream, as
/// TF shares stateful kernels across a session's executors, and each
/// session restarts it; without a ResourceMgr the source keeps its own.
class RandomStateSource {
public:
  /// Reads the node's `seed` and `seed2` attrs.
  explicit RandomStateSource(const ir::Node &node);
  /// The generator, or null after failing `ctx`: failed_precondition when
  /// the session is deterministic and the node has no seed, since its
  /// numbers would differ on every run.
  std::shared_ptr<RandomState> get(KernelContext &ctx);

private:
  const ir::Node &node_;
  int64_t seed_, seed2_;
  std::mutex mu_;
  std::shared_ptr<RandomState> own_; // guarded by mu_
};

} // namespace sluice::backend
