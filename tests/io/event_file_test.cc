// tests/io/event_file_test.cc: Summary and Event protos in wire format
// (against bytes worked out from the .proto field numbers), the event
// file read back as TFRecords, metrics.jsonl, and the summary kernels.
#include "backend/io/event_file.h"
#include "backend/io/record_iterator.h"
#include "io_test_util.h"

namespace sluice::testing {
namespace {

namespace io = backend::io;

TEST(EventFileTest, ScalarSummaryWireBytes) {
  // Summary{value: [Value{tag: "loss", simple_value: 1.0}]}:
  // 0a 0b | 0a 04 'l' 'o' 's' 's' | 15 00 00 80 3f
  std::string want = std::string("\x0a\x0b\x0a\x04loss\x15\x00\x00\x80\x3f", 13);
  EXPECT_EQ(io::encodeScalarSummary({{"loss", 1.0f}}), want);
  auto back = io::decodeScalarSummary(want + io::encodeScalarSummary({{"acc", 0.5f}}));
  ASSERT_TRUE(back.hasValue());
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].tag, "loss");
  EXPECT_EQ((*back)[1].value, 0.5f);
  // A Value of another kind (an image: field 4) is skipped; node_name
  // (field 7) is ignored.
  std::string image = std::string("\x0a\x09\x0a\x03img\x22\x02\x08\x01", 11);
  auto skipped = io::decodeScalarSummary(image + want);
  ASSERT_TRUE(skipped.hasValue());
  ASSERT_EQ(skipped->size(), 1u);
  EXPECT_EQ((*skipped)[0].tag, "loss");
  EXPECT_FALSE(io::decodeScalarSummary("\x0a\x7f").hasValue());
  EXPECT_FALSE(io::decodeScalarSummary(std::string("\x0b", 1)).hasValue()); // a group
}

TEST(EventFileTest, EventWireBytes) {
  io::Event e;
  e.wallTime = 2.0;
  e.step = 300;
  e.summary = io::encodeScalarSummary({{"x", 3.0f}});
  std::string bytes = io::encodeEvent(e);
  // wall_time: tag 09 + 8 bytes of 2.0; step: tag 10, varint 300 = ac 02.
  EXPECT_EQ(bytes.substr(0, 9), std::string("\x09\x00\x00\x00\x00\x00\x00\x00\x40", 9));
  EXPECT_EQ(bytes.substr(9, 3), "\x10\xac\x02");
  EXPECT_EQ(static_cast<unsigned char>(bytes[12]), 0x2a); // field 5, length-delimited
  auto back = io::decodeEvent(bytes);
  ASSERT_TRUE(back.hasValue());
  EXPECT_EQ(back->wallTime, 2.0);
  EXPECT_EQ(back->step, 300);
  EXPECT_EQ(back->summary, e.summary);
  EXPECT_FALSE(back->fileVersion);
  io::Event neg;
  neg.step = -1;
  auto n = io::decodeEvent(io::encodeEvent(neg));
  ASSERT_TRUE(n.hasValue());
  EXPECT_EQ(n->step, -1);
}

TEST(EventFileTest, WriterWritesTFRecordsAndJsonLines) {
  TempDir d;
  std::string logdir = d.path("logs/run1"); // created by the writer
  std::string eventPath;
  {
    auto w = io::SummaryFileWriter::open(logdir);
    ASSERT_TRUE(w.hasValue()) << w.status().toString();
    eventPath = (*w)->eventPath();
    EXPECT_HAS(eventPath, logdir + "/events.out.tfevents.");
    ASSERT_TRUE((*w)->addSummary(io::encodeScalarSummary({{"loss", 0.5f}, {"acc", 0.25f}}), 10).isOk());
    ASSERT_TRUE((*w)->addSummary(io::encodeScalarSummary({{"loss", 0.125f}}), 20).isOk());
    EXPECT_FALSE((*w)->addSummary("\x0a\x7f", 30).isOk());
  }
  auto it = io::makeTFRecordIterator();
  ASSERT_TRUE(it->open(eventPath).isOk());
  std::vector<io::Event> events;
  std::string key, value;
  while (it->next(&key, &value).isOk()) {
    auto e = io::decodeEvent(value);
    ASSERT_TRUE(e.hasValue());
    events.push_back(*e);
  }
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].fileVersion, std::optional<std::string>("brain.Event:2"));
  EXPECT_GT(events[0].wallTime, 1.5e9);
  EXPECT_EQ(events[1].step, 10);
  auto s1 = io::decodeScalarSummary(*events[1].summary);
  ASSERT_TRUE(s1.hasValue());
  ASSERT_EQ(s1->size(), 2u);
  EXPECT_EQ((*s1)[1].tag, "acc");
  EXPECT_EQ(events[2].step, 20);
  std::ifstream metrics(logdir + "/metrics.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(metrics, line);)
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].substr(0, 23), "{\"step\":10,\"wall_time\":") << lines[0];
  EXPECT_HAS(lines[0], ",\"tag\":\"loss\",\"value\":0.5}");
  EXPECT_HAS(lines[1], "\"tag\":\"acc\",\"value\":0.25}");
  EXPECT_HAS(lines[2], "{\"step\":20,");
  EXPECT_HAS(lines[2], "\"value\":0.125}");
}

class SummaryKernelTest : public GraphTest {};

TEST_F(SummaryKernelTest, ScalarAndMerge) {
  ir::Node *s = mustAdd("scalar_summary", {constant(str("loss")), constant(Tensor::scalar<double>(2.5))});
  EXPECT_EQ(s->outputShape(0), ir::Shape::scalar());
  auto out = eval(s);
  ASSERT_TRUE(out.hasValue());
  EXPECT_EQ((*out)[0].strings()[0], io::encodeScalarSummary({{"loss", 2.5f}}));
  ir::Node *two = mustAdd("scalar_summary", {constant(strings({"a", "b"})),
                                             constant(Tensor::fromVector<int32_t>({1, 2}))});
  ir::Node *m = mustAdd("merge_summary", {{s->id(), 0}, {two->id(), 0}});
  auto merged = run(m, {(*out)[0], (*eval(two))[0]});
  ASSERT_TRUE(merged.hasValue());
  auto values = io::decodeScalarSummary((*merged)[0].strings()[0]);
  ASSERT_TRUE(values.hasValue());
  ASSERT_EQ(values->size(), 3u);
  EXPECT_EQ((*values)[2].tag, "b");
  EXPECT_EQ((*values)[2].value, 2.0f);
  auto dup = run(m, {(*out)[0], (*out)[0]});
  ASSERT_FALSE(dup.hasValue());
  EXPECT_EQ(dup.status().message(), "Duplicate tag loss found in summary inputs");
  EXPECT_HAS(addError("scalar_summary", {constant(strings({"a", "b"})),
                                         constant(Tensor::scalar<float>(1))}),
             "tags and values not the same shape: [2] != []");
}

} // namespace
} // namespace sluice::testing
