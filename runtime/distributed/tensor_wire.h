// runtime/distributed/tensor_wire.h: worker.proto's tensor-carrying
// messages (RunGraph's, RecvTensor's) written and read by hand over gRPC
// byte buffers, so that a big tensor's bytes are not copied on the way out
// (its buffer is a slice of the message) and are copied once on the way in
// (from the received slices straight into the tensor). The bytes are
// protobuf's encoding of the message, so any protobuf reader reads them.
#pragma once

#include <grpcpp/support/byte_buffer.h>

#include <vector>

#include "ir/tensor.h"
#include "support/status.h"

namespace google::protobuf {
class MessageLite;
}

namespace sluice::dist {

/// `rest` as protobuf serializes it, followed by `tensors` as entries of
/// its TensorProto field number `tensorField` (protobuf appends repeated
/// fields of concatenated messages, and keeps the last of a singular one).
/// The tensors' buffers are shared, not copied: they stay alive, and must
/// not be written, until gRPC has sent the message.
grpc::ByteBuffer encodeWithTensors(const google::protobuf::MessageLite &rest, int tensorField,
                                   const std::vector<ir::Tensor> &tensors);

/// The inverse: each entry of field `tensorField` decoded into `tensors`,
/// every other field parsed by protobuf into `rest`. tensorField 0 (no
/// such field) parses a plain message. invalid_argument for malformed
/// bytes or tensors (as decodeTensor), never a crash.
Status decodeWithTensors(const grpc::ByteBuffer &buf, google::protobuf::MessageLite *rest,
                         int tensorField = 0, std::vector<ir::Tensor> *tensors = nullptr);

} // namespace sluice::dist
