// runtime/distributed/tensor_codec.cc: the TensorProto encoding (raw bytes
// for numbers, one bytes field per string) and status mapping.
#include "runtime/distributed/tensor_codec.h"

#include <cstring>

namespace sluice::dist {

namespace {

// A tensor a message may describe: at most 2^31 elements, no negative dims.
constexpr int64_t kMaxElements = int64_t(1) << 31;

bool knownDtype(int v) {
  switch (static_cast<ir::DType>(v)) {
  case ir::DType::kF16: case ir::DType::kF32: case ir::DType::kF64:
  case ir::DType::kI8: case ir::DType::kI16: case ir::DType::kI32: case ir::DType::kI64:
  case ir::DType::kU8: case ir::DType::kBool: case ir::DType::kString:
    return true;
  default:
    return false;
  }
}

struct CodePair {
  Code ours;
  grpc::StatusCode theirs;
};
constexpr CodePair kCodes[] = {
    {Code::kCancelled, grpc::StatusCode::CANCELLED},
    {Code::kUnknown, grpc::StatusCode::UNKNOWN},
    {Code::kInvalidArgument, grpc::StatusCode::INVALID_ARGUMENT},
    {Code::kDeadlineExceeded, grpc::StatusCode::DEADLINE_EXCEEDED},
    {Code::kNotFound, grpc::StatusCode::NOT_FOUND},
    {Code::kAlreadyExists, grpc::StatusCode::ALREADY_EXISTS},
    {Code::kPermissionDenied, grpc::StatusCode::PERMISSION_DENIED},
    {Code::kUnauthenticated, grpc::StatusCode::UNAUTHENTICATED},
    {Code::kResourceExhausted, grpc::StatusCode::RESOURCE_EXHAUSTED},
    {Code::kFailedPrecondition, grpc::StatusCode::FAILED_PRECONDITION},
    {Code::kAborted, grpc::StatusCode::ABORTED},
    {Code::kOutOfRange, grpc::StatusCode::OUT_OF_RANGE},
    {Code::kUnimplemented, grpc::StatusCode::UNIMPLEMENTED},
    {Code::kInternal, grpc::StatusCode::INTERNAL},
    {Code::kUnavailable, grpc::StatusCode::UNAVAILABLE},
    {Code::kDataLoss, grpc::StatusCode::DATA_LOSS},
};

} // namespace

void encodeTensor(const ir::Tensor &t, rpc::TensorProto *out) {
  out->set_dtype(static_cast<int>(t.dtype()));
  for (int64_t d : t.dims())
    out->add_dims(d);
  if (t.dtype() == ir::DType::kString) {
    for (int64_t i = 0; i < t.numElements(); ++i)
      out->add_strings(t.strings()[i]);
    return;
  }
  out->set_data(static_cast<const char *>(t.rawData()), t.byteSize());
}

Expected<ir::Tensor> tensorShell(int dtypeValue, const std::vector<int64_t> &dimValues,
                                 size_t payload) {
  if (!knownDtype(dtypeValue))
    return invalidArgument("a tensor message has an unsupported dtype " +
                           std::to_string(dtypeValue));
  auto dtype = static_cast<ir::DType>(dtypeValue);
  ir::Dims dims;
  int64_t n = 1;
  for (int64_t d : dimValues) {
    if (d < 0 || (d > 0 && n > kMaxElements / d))
      return invalidArgument("a tensor message has bad dims");
    n *= d;
    dims.push_back(d);
  }
  // What the message carries must match before the tensor is allocated.
  if (dtype == ir::DType::kString) {
    if (payload != static_cast<size_t>(n))
      return invalidArgument("a string tensor message holds " + std::to_string(payload) +
                             " strings for " + std::to_string(n) + " elements");
  } else if (payload != static_cast<size_t>(n) * ir::dtypeSize(dtype)) {
    return invalidArgument("a tensor message holds " + std::to_string(payload) +
                           " bytes for " +
                           std::to_string(static_cast<size_t>(n) * ir::dtypeSize(dtype)));
  }
  return ir::Tensor::uninitialized(dtype, std::move(dims));
}

Expected<ir::Tensor> decodeTensor(const rpc::TensorProto &p) {
  bool strings = p.dtype() == static_cast<int>(ir::DType::kString);
  SLUICE_ASSIGN_OR_RETURN(
      ir::Tensor t,
      tensorShell(p.dtype(), {p.dims().begin(), p.dims().end()},
                  strings ? static_cast<size_t>(p.strings_size()) : p.data().size()));
  if (t.dtype() == ir::DType::kString) {
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.strings()[i] = p.strings(static_cast<int>(i));
    return t;
  }
  if (t.byteSize())
    std::memcpy(t.rawData(), p.data().data(), t.byteSize());
  return t;
}

grpc::Status toGrpc(const Status &s) {
  if (s.isOk())
    return grpc::Status::OK;
  // Sluice's own kinds beyond gRPC's (value_error...) travel as unknown,
  // with the exact kind and the node in the details for Sluice peers.
  grpc::StatusCode code = grpc::StatusCode::UNKNOWN;
  for (const CodePair &c : kCodes)
    if (c.ours == s.code())
      code = c.theirs;
  std::string msg = s.message();
  if (s.loc().valid())
    msg = s.loc().str() + ": " + msg;
  std::string details = std::string(codeName(s.code())) + "\n" + s.node();
  return grpc::Status(code, msg, details);
}

Status fromGrpc(const grpc::Status &s, const std::string &peer) {
  if (s.ok())
    return Status::ok();
  Code code = Code::kUnknown;
  for (const CodePair &c : kCodes)
    if (c.theirs == s.error_code())
      code = c.ours;
  std::string node;
  const std::string &details = s.error_details();
  auto nl = details.find('\n');
  if (nl != std::string::npos) {
    if (auto exact = codeFromName(std::string_view(details).substr(0, nl));
        exact && *exact != Code::kOk)
      code = *exact;
    node = details.substr(nl + 1);
  }
  // A call the transport failed names the task it could not reach, and
  // a refused one (no or a wrong token) the task that refused it.
  if (s.error_code() == grpc::StatusCode::UNAVAILABLE ||
      s.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
      (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED && details.empty()))
    return Status(code, peer + ": " + s.error_message(), {}, node);
  return Status(code, s.error_message(), {}, node);
}

} // namespace sluice::dist
