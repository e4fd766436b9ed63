// backend/cpu/random_state.cc: seeding and finding random kernels'
// generators.
#include "backend/cpu/random_state.h"

namespace sluice::backend {

RandomState::RandomState(int64_t seed, int64_t seed2) {
  if (seed == 0 && seed2 == 0) {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd()};
    engine_.seed(seq);
    return;
  }
  auto lo = [](int64_t v) { return static_cast<uint32_t>(v); };
  auto hi = [](int64_t v) { return static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32); };
  std::seed_seq seq{lo(seed), hi(seed), lo(seed2), hi(seed2)};
  engine_.seed(seq);
}

RandomStateSource::RandomStateSource(const ir::Node &node)
    : node_(node), seed_(node.attr<int64_t>("seed")), seed2_(node.attr<int64_t>("seed2")) {}

std::shared_ptr<RandomState> RandomStateSource::get(KernelContext &ctx) {
  if (ctx.deterministic() && seed_ == 0 && seed2_ == 0) {
    ctx.fail(failedPrecondition(node_.opName() +
                                " has no seed and the session is deterministic: call "
                                "set_random_seed(...) or pass seed:"));
    return nullptr;
  }
  auto create = [this]() -> Expected<std::shared_ptr<RandomState>> {
    return std::make_shared<RandomState>(seed_, seed2_);
  };
  if (ResourceMgr *rm = ctx.resources()) {
    auto s = rm->lookupOrCreate<RandomState>("_sluice_random", node_.name(), create);
    if (!s) {
      ctx.fail(s.takeStatus());
      return nullptr;
    }
    return *s;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!own_)
    own_ = *create();
  return own_;
}

} // namespace sluice::backend
