// ir/ops/transfer_ops.cc: the edges the partitioner cuts (TF's _Send and
// _Recv). A send in the producer's partition and a recv in the consumer's
// meet in a rendezvous under the same key, built from these attrs.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

using AT = AttrType;

OpDefBuilder &endpointAttrs(OpDefBuilder &b) {
  return b.attr("tensor_name", AT::kString)
      .attr("send_device", AT::kString)
      .attr("send_device_incarnation", AT::kInt, int64_t{1})
      .attr("recv_device", AT::kString);
}

} // namespace

void registerTransferOps(OpRegistry &reg) {
  {
    OpDefBuilder b("send");
    b.tf("_Send");
    b.input("tensor: T").typeAttr("T");
    endpointAttrs(b).stateful().doc("hands its input to the rendezvous under its key");
    reg.add(b.build());
  }
  {
    OpDefBuilder b("recv");
    b.tf("_Recv");
    b.output("tensor: tensor_type").typeAttr("tensor_type");
    endpointAttrs(b)
        .attr("shape", AT::kShape, Shape::unknown())
        .stateful()
        .async()
        .shape([](InferenceContext &c) {
          c.setOutput(0, c.attr<Shape>("shape"));
          return Status::ok();
        })
        .doc("waits for the tensor sent under its key");
    reg.add(b.build());
  }
}

} // namespace sluice::ir
