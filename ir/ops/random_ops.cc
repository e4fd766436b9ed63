// ir/ops/random_ops.cc: random op rows. Each op gets TF's (seed, seed2)
// pair as attrs; combining the graph seed with the op seed is the
// frontend's job, so both zero means "nondeterministic".
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

Status randomShape(InferenceContext &c) {
  const Shape &s = c.inputShape(0);
  if (s.hasRank() && s.rank() != 1)
    return c.error("Shape must be rank 1 but is rank " +
                   std::to_string(s.rank()));
  if (auto dims = c.inputConstantInts(0)) {
    for (int64_t d : *dims)
      if (d < 0)
        return c.error("Dimension " + std::to_string(d) + " must be >= 0");
    c.setOutput(0, Shape(*dims));
    return Status::ok();
  }
  if (s.hasRank() && s.dim(0) >= 0)
    c.setOutput(0, Shape::unknownOfRank(static_cast<int>(s.dim(0))));
  else
    c.setOutput(0, Shape::unknown());
  return Status::ok();
}

Status uniformShape(InferenceContext &c) {
  if (isInteger(c.attr<DType>("dtype"))) {
    double lo = c.attr<double>("minval"), hi = c.attr<double>("maxval");
    if (!(lo < hi))
      return c.error("Need minval < maxval: " +
                     std::to_string(static_cast<int64_t>(lo)) +
                     " >= " + std::to_string(static_cast<int64_t>(hi)));
  }
  return randomShape(c);
}

OpDefBuilder randomRow(const char *name, std::vector<DType> types) {
  OpDefBuilder b(name);
  b.input("shape: T")
      .output("output: dtype")
      .typeAttr("T", kIndexTypes, DType::kI32)
      .typeAttr("dtype", std::move(types), DType::kF32)
      .attr("seed", AttrType::kInt, int64_t{0})
      .attr("seed2", AttrType::kInt, int64_t{0})
      .stateful();
  return b;
}

} // namespace

void registerRandomOps(OpRegistry &reg) {
  std::vector<DType> uniformTypes = kFloatTypes;
  uniformTypes.push_back(DType::kI32);
  uniformTypes.push_back(DType::kI64);
  reg.add(randomRow("random_uniform", uniformTypes)
              .tf("RandomUniform", "RandomUniformInt") // float and int dtypes
              .attr("minval", AttrType::kFloat, 0.0)
              .attr("maxval", AttrType::kFloat, 1.0)
              .signature("shape, minval, maxval, dtype, seed")
              .shape(uniformShape)
              .doc("uniform in [minval, maxval)")
              .build());
  reg.add(randomRow("random_normal", kFloatTypes)
              .tf("RandomStandardNormal") // which tf.random_normal scales
              .attr("mean", AttrType::kFloat, 0.0)
              .attr("stddev", AttrType::kFloat, 1.0)
              .signature("shape, mean, stddev, dtype, seed")
              .shape(randomShape)
              .build());
  reg.add(randomRow("truncated_normal", kFloatTypes)
              .tf("TruncatedNormal")
              .attr("mean", AttrType::kFloat, 0.0)
              .attr("stddev", AttrType::kFloat, 1.0)
              .signature("shape, mean, stddev, dtype, seed")
              .shape(randomShape)
              .doc("normal, resampled beyond two standard deviations")
              .build());
}

} // namespace sluice::ir
