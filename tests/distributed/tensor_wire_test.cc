// tests/distributed/tensor_wire_test.cc: the hand-written wire format is
// protobuf's (each side reads the other's bytes), whatever the slices the
// bytes arrive in, and malformed bytes are errors, never crashes.
#include <gtest/gtest.h>

#include "runtime/distributed/tensor_codec.h"
#include "runtime/distributed/tensor_wire.h"

namespace sluice::dist {
namespace {

constexpr int kFeeds = rpc::RunGraphRequest::kFeedsFieldNumber;

std::vector<ir::Tensor> someTensors() {
  ir::Tensor big(ir::DType::kF32, {3000}); // past the size sent in place
  for (int64_t i = 0; i < big.numElements(); ++i)
    big.data<float>()[i] = static_cast<float>(i) * 0.5f;
  ir::Tensor s(ir::DType::kString, {2});
  s.strings()[0] = "a,b";
  s.strings()[1] = std::string("\0x", 2);
  return {big, ir::Tensor::scalar<int64_t>(-7), ir::Tensor::fromVector<int32_t>({}),
          ir::Tensor(ir::DType::kF64, {2, 0, 3}), s, ir::Tensor::scalar<bool>(true)};
}

rpc::RunGraphRequest head() {
  rpc::RunGraphRequest h;
  h.set_handle("g7");
  h.set_step_id(int64_t(1) << 40);
  h.set_timeout_ms(250);
  return h;
}

std::string flatten(const grpc::ByteBuffer &b) {
  grpc::Slice s;
  EXPECT_TRUE(b.DumpToSingleSlice(&s).ok());
  return std::string(reinterpret_cast<const char *>(s.begin()), s.size());
}

// The bytes cut into `piece`-byte slices, as a network read may cut them.
grpc::ByteBuffer sliced(const std::string &bytes, size_t piece) {
  std::vector<grpc::Slice> slices;
  for (size_t i = 0; i < bytes.size(); i += piece)
    slices.emplace_back(bytes.data() + i, std::min(piece, bytes.size() - i));
  return grpc::ByteBuffer(slices.data(), slices.size());
}

void expectSame(const std::vector<ir::Tensor> &got, const std::vector<ir::Tensor> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(got[i].equals(want[i])) << i << ": " << ir::formatTensor(got[i]);
    EXPECT_EQ(got[i].dims(), want[i].dims()) << i;
  }
}

TEST(TensorWireTest, ProtobufReadsWhatWeWrite) {
  auto tensors = someTensors();
  rpc::RunGraphRequest parsed;
  ASSERT_TRUE(parsed.ParseFromString(flatten(encodeWithTensors(head(), kFeeds, tensors))));
  EXPECT_EQ(parsed.handle(), "g7");
  EXPECT_EQ(parsed.step_id(), int64_t(1) << 40);
  EXPECT_EQ(parsed.timeout_ms(), 250);
  std::vector<ir::Tensor> back;
  for (const rpc::TensorProto &p : parsed.feeds()) {
    auto t = decodeTensor(p);
    ASSERT_TRUE(t.hasValue()) << t.status().toString();
    back.push_back(*t);
  }
  expectSame(back, tensors);
}

TEST(TensorWireTest, WeReadWhatProtobufWritesInAnySlices) {
  auto tensors = someTensors();
  rpc::RunGraphRequest full = head();
  for (const ir::Tensor &t : tensors)
    encodeTensor(t, full.add_feeds());
  rpc::TensorProto unpacked; // dims not packed, data before dims: legal
  std::string data(8, '\0');
  unpacked.set_data(data);
  unpacked.set_dtype(static_cast<int>(ir::DType::kI32));
  std::string unpackedBytes = unpacked.SerializeAsString();
  for (int64_t d : {1, 2}) // field 2, varint wire type
    unpackedBytes += std::string(1, char(0x10)) + char(d);
  full.add_feeds()->ParseFromString(unpackedBytes);
  std::string bytes = full.SerializeAsString();
  for (size_t piece : {size_t(1), size_t(7), size_t(4096), bytes.size()}) {
    rpc::RunGraphRequest rest;
    std::vector<ir::Tensor> back;
    Status s = decodeWithTensors(sliced(bytes, piece), &rest, kFeeds, &back);
    ASSERT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(rest.handle(), "g7");
    EXPECT_EQ(rest.timeout_ms(), 250);
    EXPECT_EQ(rest.feeds_size(), 0);
    ASSERT_EQ(back.size(), tensors.size() + 1);
    back.pop_back();
    expectSame(back, tensors);
  }
}

TEST(TensorWireTest, OurBytesRoundTrip) {
  auto tensors = someTensors();
  rpc::RunGraphRequest rest;
  std::vector<ir::Tensor> back;
  ASSERT_TRUE(
      decodeWithTensors(encodeWithTensors(head(), kFeeds, tensors), &rest, kFeeds, &back).isOk());
  EXPECT_EQ(rest.step_id(), int64_t(1) << 40);
  expectSame(back, tensors);
}

TEST(TensorWireTest, MalformedBytesAreInvalidArgument) {
  std::string good = flatten(encodeWithTensors(head(), kFeeds, someTensors()));
  for (size_t cut : {size_t(1), size_t(5), good.size() / 2, good.size() - 1}) {
    rpc::RunGraphRequest rest;
    std::vector<ir::Tensor> back;
    Status s = decodeWithTensors(sliced(good.substr(0, cut), 3), &rest, kFeeds, &back);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << cut;
  }
  rpc::RunGraphRequest shortData;
  rpc::TensorProto *p = shortData.add_feeds();
  p->set_dtype(static_cast<int>(ir::DType::kF32));
  p->add_dims(4);
  p->set_data(std::string(12, '\0'));
  rpc::RunGraphRequest rest;
  std::vector<ir::Tensor> back;
  Status s = decodeWithTensors(sliced(shortData.SerializeAsString(), 4), &rest, kFeeds, &back);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("12 bytes for 16"), std::string::npos) << s.message();

  // A hostile peer's 2^31 declared strings, none sent: refused before the
  // 64 GiB of the tensor's strings are allocated.
  rpc::RunGraphRequest manyStrings;
  p = manyStrings.add_feeds();
  p->set_dtype(static_cast<int>(ir::DType::kString));
  p->add_dims(int64_t(1) << 31);
  back.clear();
  s = decodeWithTensors(sliced(manyStrings.SerializeAsString(), 2), &rest, kFeeds, &back);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("0 strings for 2147483648"), std::string::npos) << s.message();
}

} // namespace
} // namespace sluice::dist
