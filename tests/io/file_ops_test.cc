// tests/io/file_ops_test.cc: read_file, write_file, matching_files,
// tf_record_write and decode_raw through their kernels.
#include "backend/io/record_iterator.h"
#include "io_test_util.h"

namespace sluice::testing {
namespace {

class FileOpsTest : public GraphTest {};

TEST_F(FileOpsTest, WriteThenRead) {
  TempDir d;
  std::string p = d.path("out.txt");
  ir::Node *w = mustAdd("write_file", {constant(str(p)), constant(str("hello\nworld"))});
  ASSERT_TRUE(eval(w).hasValue());
  ir::Node *r = mustAdd("read_file", {constant(str(p))});
  EXPECT_EQ(r->outputShape(0), ir::Shape::scalar());
  auto out = eval(r);
  ASSERT_TRUE(out.hasValue());
  EXPECT_EQ((*out)[0].strings()[0], "hello\nworld");
  ir::Node *missing = mustAdd("read_file", {constant(str(d.path("nope")))});
  auto m = eval(missing);
  ASSERT_FALSE(m.hasValue());
  EXPECT_EQ(m.status().code(), Code::kNotFound);
  EXPECT_EQ(m.status().message(), d.path("nope") + ": No such file or directory");
  EXPECT_HAS(addError("read_file", {constant(strings({"a", "b"}))}), "filename must be a scalar");
}

TEST_F(FileOpsTest, MatchingFiles) {
  TempDir d;
  d.file("b.csv", "");
  d.file("a.csv", "");
  d.file("z.txt", "");
  ir::Node *m = mustAdd("matching_files", {constant(str(d.dir() + "/*.csv"))});
  auto out = eval(m);
  ASSERT_TRUE(out.hasValue());
  EXPECT_TRUE((*out)[0].equals(strings({d.path("a.csv"), d.path("b.csv")})));
  ir::Node *two = mustAdd("matching_files",
                          {constant(strings({d.dir() + "/*.txt", d.dir() + "/a*"}))});
  EXPECT_TRUE((*eval(two))[0].equals(strings({d.path("a.csv"), d.path("z.txt")})));
  ir::Node *none = mustAdd("matching_files", {constant(str(d.dir() + "/*.none"))});
  EXPECT_EQ((*eval(none))[0].numElements(), 0);
}

TEST_F(FileOpsTest, TFRecordWriteReadsBack) {
  TempDir d;
  std::string p = d.path("r.tfrecord");
  ir::Node *w = mustAdd("tf_record_write", {constant(str(p)), constant(strings({"a", "bb", ""}))});
  ASSERT_TRUE(eval(w).hasValue());
  auto it = backend::io::makeTFRecordIterator();
  ASSERT_TRUE(it->open(p).isOk());
  std::string k, v;
  std::vector<std::string> got;
  while (it->next(&k, &v).isOk())
    got.push_back(v);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "bb", ""}));
}

TEST_F(FileOpsTest, DecodeRaw) {
  std::string le("\x01\x00\x00\x00\x02\x00\x00\x00", 8);
  std::string le2("\xff\xff\xff\xff\x00\x01\x00\x00", 8);
  ir::Node *n = mustAdd("decode_raw", {constant(strings({le, le2}))}, {{"out_type", DType::kI32}});
  EXPECT_EQ(n->outputShape(0), ir::Shape({2, -1}));
  auto out = eval(n);
  ASSERT_TRUE(out.hasValue());
  EXPECT_TRUE((*out)[0].equals(Tensor::fromVector(std::vector<int32_t>{1, 2, -1, 256}, {2, 2})));
  ir::Node *be = mustAdd("decode_raw", {constant(strings({le}))},
                         {{"out_type", DType::kI32}, {"little_endian", false}});
  EXPECT_TRUE((*eval(be))[0].equals(
      Tensor::fromVector(std::vector<int32_t>{0x01000000, 0x02000000}, {1, 2})));
  ir::Node *bytes = mustAdd("decode_raw", {constant(str("ab"))}, {{"out_type", DType::kU8}});
  EXPECT_TRUE((*eval(bytes))[0].equals(Tensor::fromVector(std::vector<uint8_t>{'a', 'b'})));
  ir::Node *uneven = mustAdd("decode_raw", {constant(strings({"abcd", "abc"}))},
                             {{"out_type", DType::kU8}});
  EXPECT_EQ(evalError(uneven),
            "DecodeRaw requires input strings to all be the same size, but element 1 has size 3 != 4");
  ir::Node *odd = mustAdd("decode_raw", {constant(str("abc"))}, {{"out_type", DType::kI32}});
  EXPECT_EQ(evalError(odd),
            "Input to DecodeRaw has length 3 that is not a multiple of 4, the size of i32");
}

} // namespace
} // namespace sluice::testing
