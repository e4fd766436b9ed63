// ir/ops/pipeline_ops.cc: op rows TF1's input helpers are built from:
// count_up_to (epoch limits), random_shuffle (shuffled producers) and
// assert (run-time checks such as a non-empty filename list).
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

void registerPipelineOps(OpRegistry &reg) {
  reg.add(OpDefBuilder("count_up_to")
              .tf("CountUpTo", "ResourceCountUpTo")
              .input("ref: resource")
              .output("output: T")
              .typeAttr("T", kIndexTypes, DType::kI64)
              .attr("limit", AttrType::kInt)
              .signature("ref, limit")
              .stateful()
              .shape(scalarShape)
              .doc("increments a variable; out_of_range once it reaches limit")
              .build());
  reg.add(OpDefBuilder("random_shuffle")
              .tf("RandomShuffle")
              .input("value: T")
              .output("output: T")
              .typeAttr("T")
              .attr("seed", AttrType::kInt, int64_t{0})
              .attr("seed2", AttrType::kInt, int64_t{0})
              .signature("value, seed")
              .stateful()
              .shape(unchangedShape)
              .doc("shuffles a tensor along its first dimension")
              .build());
  reg.add(OpDefBuilder("assert")
              .tf("Assert")
              .input("condition: bool")
              .input("data: Tlist")
              .attr("Tlist", AttrType::kTypeList)
              .attr("summarize", AttrType::kInt, int64_t{3})
              .signature("condition, data, summarize")
              .stateful()
              .doc("fails invalid_argument when condition is false")
              .build());
}

} // namespace sluice::ir
