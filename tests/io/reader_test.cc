// tests/io/reader_test.cc: the reader protocol (TF's ReaderBase) against an
// in-test queue: files in turn, empty files skipped, out_of_range and bad
// elements from the queue, missing files, read_up_to within one file,
// counters and reset; then the reader ops through their kernels.
#include <thread>

#include "backend/io/reader_resource.h"
#include "io_test_util.h"

namespace sluice::testing {
namespace {

using backend::ReaderResource;

struct Result {
  Status status;
  std::vector<std::string> keys, values;
  bool done = false;
};

std::shared_ptr<ReaderResource> textReader(int64_t skip = 0) {
  return std::make_shared<ReaderResource>(
      "TextLineReader", [skip] { return backend::io::makeTextLineIterator(skip); });
}

Result readSync(ReaderResource &r, std::shared_ptr<TestQueue> q, int64_t n = 1,
                CancellationManager *cm = nullptr) {
  Result res;
  r.readUpTo(q, cm, n, [&](Status s, std::vector<std::string> k, std::vector<std::string> v) {
    res.status = std::move(s);
    res.keys = std::move(k);
    res.values = std::move(v);
    res.done = true;
  });
  EXPECT_TRUE(res.done) << "read did not complete inline";
  return res;
}

TEST(ReaderTest, ReadsFilesInTurnAndSkipsEmptyOnes) {
  TempDir d;
  auto q = std::make_shared<TestQueue>();
  std::string a = d.file("a.csv", "h\n1\n2\n");
  std::string e = d.file("e.csv", "");
  std::string h = d.file("h.csv", "only header\n");
  std::string b = d.file("b.csv", "h\n3");
  for (auto &f : {a, e, h, b})
    q->addName(f);
  q->close(false, [](Status) {});
  auto r = textReader(1);
  std::vector<std::string> keys, vals;
  while (true) {
    Result res = readSync(*r, q);
    if (!res.status.isOk()) {
      EXPECT_EQ(res.status.code(), Code::kOutOfRange);
      EXPECT_EQ(res.status.message(), q->closedMessage()); // unchanged
      break;
    }
    ASSERT_EQ(res.keys.size(), 1u);
    keys.push_back(res.keys[0]);
    vals.push_back(res.values[0]);
  }
  EXPECT_EQ(vals, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(keys, (std::vector<std::string>{a + ":2", a + ":3", b + ":2"}));
  EXPECT_EQ(r->numRecordsProduced(), 3);
  EXPECT_EQ(r->numWorkUnitsCompleted(), 4);
  // Closed and exhausted stays out_of_range.
  EXPECT_EQ(readSync(*r, q).status.code(), Code::kOutOfRange);
}

TEST(ReaderTest, ReadUpToNeverSpansFiles) {
  TempDir d;
  auto q = std::make_shared<TestQueue>();
  q->addName(d.file("a", "1\n2\n3\n"));
  q->addName(d.file("b", "4\n5\n"));
  q->close(false, [](Status) {});
  auto r = textReader();
  Result x = readSync(*r, q, 2);
  EXPECT_EQ(x.values, (std::vector<std::string>{"1", "2"}));
  Result y = readSync(*r, q, 2);
  EXPECT_EQ(y.values, (std::vector<std::string>{"3"})); // returns early at the file end
  Result z = readSync(*r, q, 10);
  EXPECT_EQ(z.values, (std::vector<std::string>{"4", "5"}));
  Result end = readSync(*r, q, 10);
  EXPECT_EQ(end.status.code(), Code::kOutOfRange);
}

TEST(ReaderTest, BadElementsAndMissingFiles) {
  TempDir d;
  auto q = std::make_shared<TestQueue>();
  auto r = textReader();
  q->add({Tensor::scalar<int32_t>(3)});
  Result bad = readSync(*r, q);
  EXPECT_EQ(bad.status.code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status.message(), "Expected queue with single string component");
  q->add({strings({"a", "b"})});
  Result two = readSync(*r, q);
  EXPECT_EQ(two.status.message(), "Expected to dequeue a one-element string tensor");
  q->add({str("x"), str("y")});
  EXPECT_EQ(readSync(*r, q).status.message(), "Expected single component queue");

  q->addName(d.path("missing.csv"));
  q->addName(d.file("ok.csv", "fine\n"));
  Result missing = readSync(*r, q);
  EXPECT_EQ(missing.status.code(), Code::kNotFound);
  EXPECT_EQ(missing.status.message(), d.path("missing.csv") + ": No such file or directory");
  Result next = readSync(*r, q); // the next read moves on
  ASSERT_TRUE(next.status.isOk()) << next.status.message();
  EXPECT_EQ(next.values, std::vector<std::string>{"fine"});
}

TEST(ReaderTest, WaitsForAFilenameWithoutBlocking) {
  TempDir d;
  auto q = std::make_shared<TestQueue>();
  auto r = textReader();
  Result first, second;
  std::atomic<int> finished{0};
  auto cb = [&](Result &out) {
    return [&out, &finished](Status s, std::vector<std::string> k, std::vector<std::string> v) {
      out.status = std::move(s);
      out.keys = std::move(k);
      out.values = std::move(v);
      out.done = true;
      ++finished;
    };
  };
  r->readUpTo(q, nullptr, 1, cb(first));
  r->readUpTo(q, nullptr, 1, cb(second)); // waits behind the first
  EXPECT_EQ(finished.load(), 0);
  EXPECT_EQ(q->dequeues, 1); // one read at a time, as TF's reader mutex
  std::thread producer([&] { q->addName(d.file("a", "x\ny\n")); });
  producer.join();
  EXPECT_EQ(finished.load(), 2);
  EXPECT_EQ(first.values, std::vector<std::string>{"x"});
  EXPECT_EQ(second.values, std::vector<std::string>{"y"}); // the same file
  EXPECT_EQ(q->dequeues, 1);
}

TEST(ReaderTest, CancelledWhileWaitingBehindAnotherRead) {
  auto q = std::make_shared<TestQueue>();
  auto r = textReader();
  CancellationManager cm;
  Result first, second;
  r->readUpTo(q, nullptr, 1, [&](Status s, auto, auto) { first.status = s; first.done = true; });
  r->readUpTo(q, &cm, 1, [&](Status s, auto, auto) { second.status = s; second.done = true; });
  cm.startCancel();
  EXPECT_TRUE(second.done);
  EXPECT_EQ(second.status.code(), Code::kCancelled);
  q->close(false, [](Status) {});
  EXPECT_TRUE(first.done);
  EXPECT_EQ(first.status.code(), Code::kOutOfRange);
}

TEST(ReaderTest, ResetDropsFileAndCounters) {
  TempDir d;
  auto q = std::make_shared<TestQueue>();
  std::string a = d.file("a", "1\n2\n");
  q->addName(a);
  q->addName(a);
  auto r = textReader();
  EXPECT_EQ(readSync(*r, q).values, std::vector<std::string>{"1"});
  EXPECT_EQ(r->numRecordsProduced(), 1);
  r->reset();
  EXPECT_EQ(r->numRecordsProduced(), 0);
  EXPECT_EQ(r->numWorkUnitsCompleted(), 0);
  Result again = readSync(*r, q); // a fresh file from the queue
  EXPECT_EQ(again.values, std::vector<std::string>{"1"});
  EXPECT_EQ(q->size(), 0);
}

// --- the ops, through their kernels ---

class ReaderOpsTest : public GraphTest {
protected:
  std::shared_ptr<TestQueue> queue = std::make_shared<TestQueue>();
  ir::Output queueNode;
  Tensor queueHandle = Tensor(DType::kResource, {});

  void SetUp() override {
    auto made = resources.lookupOrCreate<backend::QueueInterface>(
        "", "fq", [&]() -> Expected<std::shared_ptr<backend::QueueInterface>> {
          return std::shared_ptr<backend::QueueInterface>(queue);
        });
    ASSERT_TRUE(made.hasValue());
    queueHandle.strings()[0] = "fq";
    // Any resource-typed node stands in for the queue op statically.
    ir::Node *v = mustAdd("variable", {}, {{"dtype", DType::kString}}, "fq");
    queueNode = {v->id(), 0};
  }
  Tensor handleOf(ir::Node *readerNode) {
    auto out = run(readerNode, {});
    EXPECT_TRUE(out.hasValue()) << out.status().message();
    return out.hasValue() ? (*out)[0] : Tensor();
  }
};

TEST_F(ReaderOpsTest, ReadAndReadUpTo) {
  TempDir d;
  std::string a = d.file("a.csv", "x\n1\n2\n3\n");
  queue->addName(a);
  queue->close(false, [](Status) {});
  ir::Node *reader = mustAdd("text_line_reader", {}, {{"skip_header_lines", int64_t{1}}});
  Tensor h = handleOf(reader);
  ir::Node *read = mustAdd("reader_read", {{reader->id(), 0}, queueNode});
  EXPECT_EQ(read->outputShape(0), ir::Shape::scalar());
  auto one = run(read, {h, queueHandle});
  ASSERT_TRUE(one.hasValue()) << one.status().message();
  EXPECT_EQ((*one)[0].strings()[0], a + ":2");
  EXPECT_EQ((*one)[1].strings()[0], "1");

  ir::Output n = constant(Tensor::scalar<int64_t>(5));
  ir::Node *upTo = mustAdd("reader_read_up_to", {{reader->id(), 0}, queueNode, n});
  EXPECT_EQ(upTo->outputShape(1), ir::Shape({-1}));
  auto many = run(upTo, {h, queueHandle, Tensor::scalar<int64_t>(5)});
  ASSERT_TRUE(many.hasValue()) << many.status().message();
  EXPECT_TRUE((*many)[1].equals(strings({"2", "3"})));

  ir::Node *count = mustAdd("reader_num_records_produced", {{reader->id(), 0}});
  auto c = run(count, {h});
  ASSERT_TRUE(c.hasValue());
  EXPECT_EQ((*c)[0].scalarValue<int64_t>(), 3);
  ir::Node *units = mustAdd("reader_num_work_units_completed", {{reader->id(), 0}});
  EXPECT_EQ((*run(units, {h}))[0].scalarValue<int64_t>(), 1);

  auto end = run(read, {h, queueHandle});
  ASSERT_FALSE(end.hasValue());
  EXPECT_EQ(end.status().code(), Code::kOutOfRange);

  ir::Node *reset = mustAdd("reader_reset", {{reader->id(), 0}});
  ASSERT_TRUE(run(reset, {h}).hasValue());
  EXPECT_EQ((*run(count, {h}))[0].scalarValue<int64_t>(), 0);

  auto zero = run(upTo, {h, queueHandle, Tensor::scalar<int64_t>(0)});
  ASSERT_FALSE(zero.hasValue());
  EXPECT_EQ(zero.status().message(), "num_records must be > 0 but got 0");
}

TEST_F(ReaderOpsTest, ReaderKindsAndSharing) {
  TempDir d;
  ir::Node *a = mustAdd("whole_file_reader", {}, {{"shared_name", std::string("shared")}});
  ir::Node *b = mustAdd("whole_file_reader", {}, {{"shared_name", std::string("shared")}});
  Tensor ha = handleOf(a), hb = handleOf(b);
  EXPECT_EQ(ha.strings()[0], hb.strings()[0]);
  ir::Node *t = mustAdd("tf_record_reader", {}, {{"shared_name", std::string("shared")}});
  auto clash = run(t, {});
  ASSERT_FALSE(clash.hasValue());
  EXPECT_EQ(clash.status().code(), Code::kInvalidArgument);

  queue->addName(d.file("w", "abc"));
  ir::Node *read = mustAdd("reader_read", {{a->id(), 0}, queueNode});
  auto r = run(read, {ha, queueHandle});
  ASSERT_TRUE(r.hasValue());
  EXPECT_EQ((*r)[1].strings()[0], "abc");
  EXPECT_EQ((*r)[0].strings()[0], d.path("w"));

  // A reader handle that names nothing.
  Tensor ghost(DType::kResource, {});
  ghost.strings()[0] = "ghost";
  auto g2 = run(read, {ghost, queueHandle});
  ASSERT_FALSE(g2.hasValue());
  EXPECT_EQ(g2.status().code(), Code::kNotFound);
}

TEST_F(ReaderOpsTest, AttrChecks) {
  EXPECT_HAS(addError("text_line_reader", {}, {{"skip_header_lines", int64_t{-1}}}),
             "skip_header_lines must be >= 0 not -1");
  EXPECT_HAS(addError("fixed_length_record_reader", {}, {{"record_bytes", int64_t{0}}}),
             "record_bytes must be > 0 not 0");
  EXPECT_HAS(addError("fixed_length_record_reader", {},
                      {{"record_bytes", int64_t{4}}, {"hop_bytes", int64_t{-2}}}),
             "hop_bytes must be >= 0 not -2");
  EXPECT_HAS(addError("tf_record_reader", {}, {{"compression_type", std::string("GZIP")}}),
             "compression_type 'GZIP' is not supported");
}

TEST_F(ReaderOpsTest, FixedLengthAndTFRecordThroughOps) {
  TempDir d;
  ir::Node *fl = mustAdd("fixed_length_record_reader", {},
                         {{"record_bytes", int64_t{2}}, {"header_bytes", int64_t{1}}});
  Tensor h = handleOf(fl);
  queue->addName(d.file("f", "Habcdefg"));
  queue->close(false, [](Status) {});
  ir::Node *upTo = mustAdd("reader_read_up_to",
                           {{fl->id(), 0}, queueNode, constant(Tensor::scalar<int64_t>(8))});
  auto r = run(upTo, {h, queueHandle, Tensor::scalar<int64_t>(8)});
  ASSERT_TRUE(r.hasValue()) << r.status().message();
  EXPECT_TRUE((*r)[1].equals(strings({"ab", "cd", "ef"})));
  EXPECT_TRUE((*r)[0].equals(strings({d.path("f") + ":0", d.path("f") + ":1", d.path("f") + ":2"})));
}

} // namespace
} // namespace sluice::testing
