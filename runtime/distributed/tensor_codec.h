// runtime/distributed/tensor_codec.h: tensors and statuses on the wire.
#pragma once

#include <grpcpp/grpcpp.h>

#include "ir/tensor.h"
#include "runtime/distributed/worker.pb.h"
#include "support/status.h"

namespace sluice::dist {

void encodeTensor(const ir::Tensor &t, rpc::TensorProto *out);
/// invalid_argument for a malformed message (a bad dtype, a byte count
/// that does not match the dims, absurd dims), never a crash.
Expected<ir::Tensor> decodeTensor(const rpc::TensorProto &p);

/// The tensor a message's dtype and dims describe, numbers uninitialized
/// and strings empty; invalid_argument as decodeTensor, and unless the
/// message's `payload` fits it: its bytes of data (numbers) or its count
/// of strings. Checked before anything is allocated, so that a message
/// declaring 2^31 elements it does not carry costs nothing. The piece of
/// decodeTensor that tensor_wire.cc shares.
Expected<ir::Tensor> tensorShell(int dtype, const std::vector<int64_t> &dims, size_t payload);

/// TF's status codes are gRPC's: the code passes through unchanged.
grpc::Status toGrpc(const Status &s);
/// A failed call's status, the peer named: "task /job:ps/... at h:p: ...".
Status fromGrpc(const grpc::Status &s, const std::string &peer);

} // namespace sluice::dist
