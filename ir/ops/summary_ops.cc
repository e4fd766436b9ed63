// ir/ops/summary_ops.cc: summary op rows (TF's logging_ops): a scalar
// summary serializes tags and values as a Summary proto; merge_summary
// joins several.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

void registerSummaryOps(OpRegistry &reg) {
  reg.add(OpDefBuilder("scalar_summary")
              .tf("ScalarSummary")
              .input("tags: string")
              .input("values: T")
              .output("summary: string")
              .typeAttr("T", kNumericTypes)
              .signature("tags, values")
              .shape([](InferenceContext &c) {
                const Shape &t = c.inputShape(0), &v = c.inputShape(1);
                if (t.hasRank() && v.hasRank() && !t.isCompatibleWith(v))
                  return c.error("tags and values not the same shape: " + t.str() +
                                 " != " + v.str());
                return scalarShape(c);
              })
              .doc("A serialized Summary with one simple_value per element of "
                   "values, tagged by the same element of tags (TF's "
                   "ScalarSummary).")
              .build());

  reg.add(OpDefBuilder("merge_summary")
              .tf("MergeSummary")
              .input("inputs: N*string")
              .output("summary: string")
              .attr("N", AttrType::kInt)
              .minimum(1)
              .signature("inputs")
              .shape(scalarShape)
              .doc("The union of serialized Summary protos; a tag in two inputs "
                   "is invalid_argument (TF's MergeSummary).")
              .build());
}

} // namespace sluice::ir
