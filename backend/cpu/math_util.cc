// backend/cpu/math_util.cc: builds numpy broadcasting plans for the math
// kernels.
#include "backend/cpu/math_util.h"

#include <algorithm>

namespace sluice::backend::math {

template <size_t K>
Expected<BroadcastPlan<K>> planBroadcast(const std::array<const ir::Dims *, K> &in) {
  size_t rank = 0;
  for (const ir::Dims *d : in)
    rank = std::max(rank, d->size());
  BroadcastPlan<K> p;
  p.out.assign(rank, 1);
  // adv[i][k]: whether operand k moves along output dim i.
  std::vector<std::array<bool, K>> adv(rank);
  for (size_t i = 0; i < rank; ++i) {
    for (size_t k = 0; k < K; ++k) {
      const ir::Dims &d = *in[k];
      size_t pad = rank - d.size();
      int64_t dk = i >= pad ? d[i - pad] : 1;
      if (dk == 1)
        continue;
      if (p.out[i] != 1 && p.out[i] != dk) {
        std::string msg = "Incompatible shapes:";
        for (size_t j = 0; j < K; ++j)
          msg += (j ? " vs. " : " ") + ir::dimsString(*in[j]);
        return invalidArgument(msg);
      }
      p.out[i] = dk;
    }
    for (size_t k = 0; k < K; ++k) {
      const ir::Dims &d = *in[k];
      size_t pad = rank - d.size();
      adv[i][k] = i >= pad && p.out[i] != 1 && d[i - pad] == p.out[i];
    }
  }
  // Collapse: drop unit dims, merge neighbours with the same pattern.
  std::vector<std::array<bool, K>> pattern;
  for (size_t i = 0; i < rank; ++i) {
    if (p.out[i] == 1)
      continue;
    if (!pattern.empty() && pattern.back() == adv[i]) {
      p.shape.back() *= p.out[i];
    } else {
      pattern.push_back(adv[i]);
      p.shape.push_back(p.out[i]);
    }
  }
  p.strides.resize(p.shape.size());
  std::array<int64_t, K> acc;
  acc.fill(1);
  for (size_t i = p.shape.size(); i-- > 0;) {
    for (size_t k = 0; k < K; ++k) {
      p.strides[i][k] = pattern[i][k] ? acc[k] : 0;
      if (pattern[i][k])
        acc[k] *= p.shape[i];
    }
  }
  return p;
}

template Expected<BroadcastPlan<2>>
planBroadcast<2>(const std::array<const ir::Dims *, 2> &);
template Expected<BroadcastPlan<3>>
planBroadcast<3>(const std::array<const ir::Dims *, 3> &);

} // namespace sluice::backend::math
