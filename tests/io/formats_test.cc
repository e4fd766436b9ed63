// tests/io/formats_test.cc: the record iterators (text lines, fixed
// length, whole file, TFRecord) and CRC32C, including TF's edge cases.
#include "backend/io/buffered_file.h"
#include "backend/io/crc32c.h"
#include "backend/io/record_iterator.h"
#include "io_test_util.h"

namespace sluice::testing {
namespace {

using namespace backend::io;

struct Rec {
  std::string key, value;
};

std::vector<Rec> readAll(RecordIterator &it, const std::string &path, Status *end = nullptr) {
  std::vector<Rec> out;
  Status s = it.open(path);
  EXPECT_TRUE(s.isOk()) << s.message();
  while (true) {
    Rec r;
    Status n = it.next(&r.key, &r.value);
    if (!n.isOk()) {
      if (end)
        *end = n;
      else
        EXPECT_EQ(n.code(), Code::kOutOfRange) << n.message();
      break;
    }
    out.push_back(r);
  }
  return out;
}

std::vector<std::string> values(const std::vector<Rec> &rs) {
  std::vector<std::string> v;
  for (auto &r : rs)
    v.push_back(r.value);
  return v;
}

TEST(Crc32cTest, KnownValues) {
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(crc32c("", 0), 0u);
  std::string zeros(32, '\0');
  EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  // Extending in pieces equals one pass.
  std::string s = "The quick brown fox jumps over the lazy dog, twice over";
  uint32_t whole = crc32c(s.data(), s.size());
  uint32_t part = crc32cExtend(crc32c(s.data(), 13), s.data() + 13, s.size() - 13);
  EXPECT_EQ(whole, part);
  EXPECT_EQ(unmaskCrc(maskCrc(whole)), whole);
  EXPECT_NE(maskCrc(whole), whole);
}

TEST(TextLineTest, KeysLinesAndCrLf) {
  TempDir d;
  std::string p = d.file("a.txt", "one\r\ntwo\n\nfour\nlast");
  auto it = makeTextLineIterator(0);
  auto rs = readAll(*it, p);
  ASSERT_EQ(rs.size(), 5u);
  EXPECT_EQ(values(rs), (std::vector<std::string>{"one", "two", "", "four", "last"}));
  EXPECT_EQ(rs[0].key, p + ":1");
  EXPECT_EQ(rs[4].key, p + ":5");
}

TEST(TextLineTest, SkipHeaderCountsPhysicalLines) {
  TempDir d;
  std::string p = d.file("a.csv", "x,y\n1,2\n3,4\n");
  auto it = makeTextLineIterator(1);
  auto rs = readAll(*it, p);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].key, p + ":2");
  EXPECT_EQ(rs[0].value, "1,2");
  EXPECT_EQ(rs[1].key, p + ":3");
  // Reopening (the next file) skips its header too.
  std::string q = d.file("b.csv", "h\nz\n");
  auto rs2 = readAll(*it, q);
  ASSERT_EQ(rs2.size(), 1u);
  EXPECT_EQ(rs2[0].key, q + ":2");
}

TEST(TextLineTest, ShortAndEmptyFilesYieldNothing) {
  TempDir d;
  auto it = makeTextLineIterator(3);
  EXPECT_TRUE(readAll(*it, d.file("short", "a\nb\n")).empty());
  EXPECT_TRUE(readAll(*it, d.file("short2", "a\nb")).empty());
  auto it0 = makeTextLineIterator(0);
  EXPECT_TRUE(readAll(*it0, d.file("empty", "")).empty());
  // A lone "\r" at the end is not a line (TF's ReadLine).
  EXPECT_EQ(values(readAll(*it0, d.file("cr", "a\n\r"))), std::vector<std::string>{"a"});
}

TEST(TextLineTest, LinesAcrossBufferBoundaries) {
  TempDir d;
  std::string content;
  std::vector<std::string> lines;
  for (int i = 0; content.size() < 3 * BufferedFile::kBufferSize; ++i) {
    std::string l = std::to_string(i) + std::string(i % 97, 'x');
    lines.push_back(l);
    content += l + (i % 3 == 0 ? "\r\n" : "\n");
  }
  std::string big(BufferedFile::kBufferSize + 10, 'y'); // one line longer than the buffer
  lines.push_back(big);
  content += big;
  std::string p = d.file("big.txt", content);
  auto it = makeTextLineIterator(0);
  auto rs = readAll(*it, p);
  ASSERT_EQ(rs.size(), lines.size());
  EXPECT_EQ(values(rs), lines);
  EXPECT_EQ(rs.back().key, p + ":" + std::to_string(lines.size()));
}

TEST(TextLineTest, MissingFileIsNotFound) {
  auto it = makeTextLineIterator(0);
  Status s = it->open("/nonexistent/dir/file.csv");
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.message(), "/nonexistent/dir/file.csv: No such file or directory");
  TempDir d;
  Status dir = it->open(d.dir());
  EXPECT_EQ(dir.code(), Code::kFailedPrecondition);
}

TEST(FixedLengthTest, HeaderFooterAndShortTail) {
  TempDir d;
  std::string p = d.file("f.bin", "HHabcdefgXFF"); // header 2, footer 2, records of 3
  FixedLengthOptions o;
  o.recordBytes = 3;
  o.headerBytes = 2;
  o.footerBytes = 2;
  auto it = makeFixedLengthIterator(o);
  auto rs = readAll(*it, p);
  // Data region "abcdefgX" (8 bytes): two records, the short tail dropped.
  EXPECT_EQ(values(rs), (std::vector<std::string>{"abc", "def"}));
  EXPECT_EQ(rs[0].key, p + ":0");
  EXPECT_EQ(rs[1].key, p + ":1");
}

TEST(FixedLengthTest, HopBytes) {
  TempDir d;
  std::string p = d.file("f.bin", "0123456789");
  FixedLengthOptions o;
  o.recordBytes = 4;
  o.hopBytes = 3;
  auto it = makeFixedLengthIterator(o);
  EXPECT_EQ(values(readAll(*it, p)), (std::vector<std::string>{"0123", "3456", "6789"}));
  o.hopBytes = 5;
  auto it2 = makeFixedLengthIterator(o);
  EXPECT_EQ(values(readAll(*it2, p)), (std::vector<std::string>{"0123", "5678"}));
}

TEST(FixedLengthTest, FileShorterThanHeader) {
  TempDir d;
  FixedLengthOptions o;
  o.recordBytes = 1;
  o.headerBytes = 10;
  o.footerBytes = 5;
  auto it = makeFixedLengthIterator(o);
  EXPECT_TRUE(readAll(*it, d.file("s", "abc")).empty());
}

TEST(WholeFileTest, OneRecordPerFile) {
  TempDir d;
  std::string p = d.file("w", std::string("a\0b\nc", 5));
  auto it = makeWholeFileIterator();
  auto rs = readAll(*it, p);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].key, p);
  EXPECT_EQ(rs[0].value, std::string("a\0b\nc", 5));
  auto empty = readAll(*it, d.file("e", ""));
  ASSERT_EQ(empty.size(), 1u); // TF's WholeFileReader yields empty files too
  EXPECT_EQ(empty[0].value, "");
  EXPECT_EQ(it->open(d.path("missing")).code(), Code::kNotFound);
}

std::string writeRecords(const std::string &path, const std::vector<std::string> &recs) {
  TFRecordWriter w;
  EXPECT_TRUE(w.open(path).isOk());
  for (auto &r : recs)
    EXPECT_TRUE(w.write(r).isOk());
  EXPECT_TRUE(w.close().isOk());
  return path;
}

TEST(TFRecordTest, RoundTripWithOffsets) {
  TempDir d;
  std::string big(3 << 20, 'z');
  big[12345] = 'q';
  std::vector<std::string> recs = {"hello", "", "world!", big, "tail"};
  std::string p = writeRecords(d.path("r.tfrecord"), recs);
  auto it = makeTFRecordIterator();
  auto rs = readAll(*it, p);
  EXPECT_EQ(values(rs), recs);
  EXPECT_EQ(rs[0].key, p + ":0");
  EXPECT_EQ(rs[1].key, p + ":21"); // 16 bytes of framing + 5
  EXPECT_EQ(rs[2].key, p + ":37");
}

TEST(TFRecordTest, KnownBytes) {
  // A record written by TF's tf.io.TFRecordWriter for b"abc".
  TempDir d;
  std::string p = writeRecords(d.path("k"), {"abc"});
  std::string bytes;
  ASSERT_TRUE(readFileToString(p, &bytes).isOk());
  ASSERT_EQ(bytes.size(), 19u);
  uint32_t lenCrc, dataCrc;
  std::memcpy(&lenCrc, bytes.data() + 8, 4);
  std::memcpy(&dataCrc, bytes.data() + 15, 4);
  EXPECT_EQ(lenCrc, maskCrc(crc32c(bytes.data(), 8)));
  EXPECT_EQ(dataCrc, maskCrc(crc32c("abc", 3)));
}

TEST(TFRecordTest, CorruptDataIsDataLossWithOffset) {
  TempDir d;
  std::string p = writeRecords(d.path("c"), {"first", "second", "third"});
  std::string bytes;
  ASSERT_TRUE(readFileToString(p, &bytes).isOk());
  bytes[21 + 12 + 2] ^= 0x20; // a payload byte of the second record (offset 21)
  ASSERT_TRUE(writeStringToFile(p, bytes).isOk());
  auto it = makeTFRecordIterator();
  Status end;
  auto rs = readAll(*it, p, &end);
  EXPECT_EQ(values(rs), std::vector<std::string>{"first"});
  EXPECT_EQ(end.code(), Code::kDataLoss);
  EXPECT_EQ(end.message(), p + ": corrupted record at 21");
}

TEST(TFRecordTest, CorruptLengthAndTruncation) {
  TempDir d;
  std::string p = writeRecords(d.path("c"), {"first", "second"});
  std::string bytes;
  ASSERT_TRUE(readFileToString(p, &bytes).isOk());
  std::string badLen = bytes;
  badLen[0] ^= 1;
  ASSERT_TRUE(writeStringToFile(p, badLen).isOk());
  auto it = makeTFRecordIterator();
  Status end;
  EXPECT_TRUE(readAll(*it, p, &end).empty());
  EXPECT_EQ(end.code(), Code::kDataLoss);
  EXPECT_EQ(end.message(), p + ": corrupted record at 0");

  ASSERT_TRUE(writeStringToFile(p, bytes.substr(0, bytes.size() - 3)).isOk());
  auto rs = readAll(*it, p, &end);
  EXPECT_EQ(rs.size(), 1u);
  EXPECT_EQ(end.code(), Code::kDataLoss);
  EXPECT_EQ(end.message(), p + ": truncated record at 21");
}

TEST(FileHelpersTest, MatchFilesSorted) {
  TempDir d;
  d.file("b.csv", "");
  d.file("a.csv", "");
  d.file("c.txt", "");
  auto m = matchFiles(d.dir() + "/*.csv");
  ASSERT_TRUE(m.hasValue());
  EXPECT_EQ(*m, (std::vector<std::string>{d.path("a.csv"), d.path("b.csv")}));
  auto none = matchFiles(d.dir() + "/*.none");
  ASSERT_TRUE(none.hasValue());
  EXPECT_TRUE(none->empty());
}

} // namespace
} // namespace sluice::testing
