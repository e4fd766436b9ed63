// tests/distributed/tensor_codec_test.cc: tensors survive the wire, and
// malformed messages are errors, never crashes.
#include <gtest/gtest.h>

#include "runtime/distributed/tensor_codec.h"

namespace sluice::dist {
namespace {

ir::Tensor roundTrip(const ir::Tensor &t) {
  rpc::TensorProto p;
  encodeTensor(t, &p);
  std::string bytes = p.SerializeAsString();
  rpc::TensorProto back;
  EXPECT_TRUE(back.ParseFromString(bytes));
  auto r = decodeTensor(back);
  EXPECT_TRUE(r.hasValue()) << r.status().toString();
  return r.hasValue() ? *r : ir::Tensor();
}

TEST(TensorCodecTest, EveryKindRoundTrips) {
  std::vector<ir::Tensor> cases = {
      ir::Tensor::fromVector<float>({1.5f, -2, 3}),
      ir::Tensor::scalar<int64_t>(-7),
      ir::Tensor::fromVector<int32_t>({}),
      ir::Tensor::scalar<bool>(true),
      ir::Tensor::scalar<double>(1e300),
  };
  ir::Tensor s(ir::DType::kString, {2});
  s.strings()[0] = "a,b";
  s.strings()[1] = std::string("\0x", 2);
  cases.push_back(s);
  for (const ir::Tensor &t : cases) {
    ir::Tensor back = roundTrip(t);
    EXPECT_TRUE(back.equals(t)) << ir::formatTensor(t) << " vs " << ir::formatTensor(back);
    EXPECT_EQ(back.dims(), t.dims());
  }
}

TEST(TensorCodecTest, MalformedMessagesAreInvalidArgument) {
  rpc::TensorProto bad_dtype;
  bad_dtype.set_dtype(9999);
  EXPECT_EQ(decodeTensor(bad_dtype).status().code(), Code::kInvalidArgument);

  rpc::TensorProto negative;
  negative.set_dtype(static_cast<int>(ir::DType::kF32));
  negative.add_dims(-3);
  EXPECT_EQ(decodeTensor(negative).status().code(), Code::kInvalidArgument);

  rpc::TensorProto huge; // 2^62 elements: no allocation is attempted
  huge.set_dtype(static_cast<int>(ir::DType::kF32));
  huge.add_dims(int64_t(1) << 31);
  huge.add_dims(int64_t(1) << 31);
  EXPECT_EQ(decodeTensor(huge).status().code(), Code::kInvalidArgument);

  rpc::TensorProto short_data;
  short_data.set_dtype(static_cast<int>(ir::DType::kF32));
  short_data.add_dims(4);
  short_data.set_data(std::string(12, '\0'));
  EXPECT_EQ(decodeTensor(short_data).status().code(), Code::kInvalidArgument);

  rpc::TensorProto strings;
  strings.set_dtype(static_cast<int>(ir::DType::kString));
  strings.add_dims(3);
  strings.add_strings("one");
  EXPECT_EQ(decodeTensor(strings).status().code(), Code::kInvalidArgument);

  // 2^31 elements are allowed, but the payload is checked before the
  // tensor is allocated: 64 GiB of empty strings, 8 GiB of f32 otherwise.
  rpc::TensorProto many_strings;
  many_strings.set_dtype(static_cast<int>(ir::DType::kString));
  many_strings.add_dims(int64_t(1) << 31);
  EXPECT_EQ(decodeTensor(many_strings).status().code(), Code::kInvalidArgument);
  rpc::TensorProto many_floats;
  many_floats.set_dtype(static_cast<int>(ir::DType::kF32));
  many_floats.add_dims(int64_t(1) << 31);
  many_floats.set_data(std::string(4, '\0'));
  EXPECT_EQ(decodeTensor(many_floats).status().code(), Code::kInvalidArgument);
}

TEST(TensorCodecTest, StatusesKeepSluiceKindsAndNodes) {
  Status s(Code::kValueError, "bad value", {}, "node_a");
  Status back = fromGrpc(toGrpc(s), "task /job:ps/replica:0/task:0 at h:1");
  EXPECT_EQ(back.code(), Code::kValueError);
  EXPECT_EQ(back.node(), "node_a");
  EXPECT_EQ(back.message(), "bad value");

  grpc::Status transport(grpc::StatusCode::UNAVAILABLE, "Connection refused");
  Status named = fromGrpc(transport, "task /job:ps/replica:0/task:0 at h:1");
  EXPECT_EQ(named.code(), Code::kUnavailable);
  EXPECT_EQ(named.message(), "task /job:ps/replica:0/task:0 at h:1: Connection refused");
}

} // namespace
} // namespace sluice::dist
