// tests/frontend/diagnostics_test.cc: DiagnosticEngine formatting and bookkeeping.
#include <sstream>

#include <gtest/gtest.h>

#include "frontend/diagnostics.h"

namespace sluice::frontend {
namespace {

SourceLoc at(const std::shared_ptr<const std::string> &file, int line, int col) {
  SourceLoc l;
  l.file = file;
  l.line = line;
  l.col = col;
  return l;
}

TEST(Diagnostics, FormatsWithSourceLineAndCaret) {
  DiagnosticEngine d;
  auto path = std::make_shared<const std::string>("a.sluice");
  d.addSource(path, std::make_shared<const std::string>("x = 1\ny = foo(2)\n"));
  d.error(at(path, 2, 5), "unknown name 'foo'");
  EXPECT_EQ(d.format(d.diagnostics()[0]), "a.sluice:2:5: error: unknown name 'foo'\n"
                                          "y = foo(2)\n"
                                          "    ^");
}

TEST(Diagnostics, KeepsTabsAndCountsUtf8AsOneColumn) {
  DiagnosticEngine d;
  auto path = std::make_shared<const std::string>("t.sluice");
  d.addSource(path, std::make_shared<const std::string>("\t\"\xc3\xa9\" + x\r\n"));
  // Byte column 8 is 'x': tab, quote, two bytes of e-acute, quote, space, +, space.
  d.error(at(path, 1, 9), "bad");
  EXPECT_EQ(d.format(d.diagnostics()[0]), "t.sluice:1:9: error: bad\n"
                                          "\t\"\xc3\xa9\" + x\n"
                                          "\t      ^");
}

TEST(Diagnostics, WithoutSourceOrLocation) {
  DiagnosticEngine d;
  auto path = std::make_shared<const std::string>("gone.sluice");
  d.warning(at(path, 3, 1), "no source");
  d.error(SourceLoc{}, "no location");
  EXPECT_EQ(d.format(d.diagnostics()[0]), "gone.sluice:3:1: warning: no source");
  EXPECT_EQ(d.format(d.diagnostics()[1]), "error: no location");
  EXPECT_EQ(d.errorCount(), 1);
  EXPECT_TRUE(d.hasErrors());
}

TEST(Diagnostics, LineOutOfRangeAndEndOfFile) {
  DiagnosticEngine d;
  auto path = std::make_shared<const std::string>("e.sluice");
  d.addSource(path, std::make_shared<const std::string>("x = (\n"));
  d.error(at(path, 2, 1), "at end of file");
  d.error(at(path, 9, 1), "past the end");
  EXPECT_EQ(d.format(d.diagnostics()[0]), "e.sluice:2:1: error: at end of file\n\n^");
  EXPECT_EQ(d.format(d.diagnostics()[1]), "e.sluice:9:1: error: past the end");
}

TEST(Diagnostics, PrintAllAndClear) {
  DiagnosticEngine d;
  auto a = std::make_shared<const std::string>("a.sluice");
  auto b = std::make_shared<const std::string>("b.sluice");
  d.addSource(a, std::make_shared<const std::string>("aa\n"));
  d.addSource(b, std::make_shared<const std::string>("bb\n"));
  d.addSource(std::make_shared<const std::string>("a.sluice"),
              std::make_shared<const std::string>("AA\n")); // replaces a's text
  d.error(at(a, 1, 2), "one");
  d.error(at(b, 1, 1), "two");
  std::ostringstream os;
  d.print(os);
  EXPECT_EQ(os.str(), "a.sluice:1:2: error: one\nAA\n ^\nb.sluice:1:1: error: two\nbb\n^\n");
  d.clear();
  EXPECT_FALSE(d.hasErrors());
  EXPECT_TRUE(d.diagnostics().empty());
}

} // namespace
} // namespace sluice::frontend
