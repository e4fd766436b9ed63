// tests/driver/library_docs_test.cc: the REPL's library doc table
// (driver/library_docs.h) names real builtins, and every keyword it lists
// is one the builtin accepts.
#include "driver/library_docs.h"

#include <gtest/gtest.h>

#include <sstream>

#include "frontend/eval/interp.h"
#include "frontend/evaluator.h"

namespace sluice::driver {
namespace {

/// The names a signature lets a caller pass by keyword: not `*args`, not
/// those before a `/`, not the `*` marker itself.
std::vector<std::string> keywordNames(const std::string &signature) {
  size_t open = signature.find('('), close = signature.rfind(')');
  std::vector<std::string> params;
  std::string cur;
  bool quoted = false;
  for (char c : signature.substr(open + 1, close - open - 1)) {
    if (c == '"')
      quoted = !quoted;
    if (c == ',' && !quoted) {
      params.push_back(cur);
      cur.clear();
    } else if (c != ' ' || quoted) {
      cur += c;
    }
  }
  if (!cur.empty())
    params.push_back(cur);
  std::vector<std::string> names;
  for (const std::string &p : params) {
    if (p == "/") {
      names.clear(); // positional only
      continue;
    }
    if (p.empty() || p[0] == '*')
      continue;
    names.push_back(p.substr(0, p.find(':')));
  }
  return names;
}

class LibraryDocsTest : public ::testing::Test {
protected:
  LibraryDocsTest() {
    frontend::EvalOptions eo;
    eo.out = &out_;
    eo.err = &out_;
    ev_ = std::make_unique<frontend::Evaluator>(eo, diags_);
  }
  std::ostringstream out_;
  frontend::DiagnosticEngine diags_;
  std::unique_ptr<frontend::Evaluator> ev_;
};

TEST_F(LibraryDocsTest, EveryFunctionIsABuiltinAndEveryStatementParses) {
  for (const LibraryDoc &d : libraryDocs()) {
    if (d.statement) {
      Status s = ev_->runSource("statement.sluice", std::string(d.name) + " { }\n");
      EXPECT_TRUE(s.isOk() && !diags_.hasErrors()) << d.name << ": " << s.message();
      continue;
    }
    const frontend::Value *v = ev_->impl().builtins->lookup(d.name);
    ASSERT_NE(v, nullptr) << d.name << " is not a builtin";
    EXPECT_TRUE(v->is(frontend::Value::kBuiltin)) << d.name;
    EXPECT_EQ(std::string(d.signature).rfind(std::string(d.name) + "(", 0), 0u) << d.signature;
  }
}

TEST_F(LibraryDocsTest, EveryKeywordListedIsAccepted) {
  // The check below would see a keyword the builtin refuses.
  Status refused = ev_->runSource("keywords.sluice", "dense(no_such_keyword: none)\n");
  EXPECT_NE(refused.message().find("unexpected keyword argument 'no_such_keyword'"),
            std::string::npos)
      << refused.message();
  for (const LibraryDoc &d : libraryDocs()) {
    if (d.statement)
      continue;
    for (const std::string &kw : keywordNames(d.signature)) {
      // The call may fail (missing arguments, no session), but never on
      // the keyword itself.
      Status s = ev_->runSource("keywords.sluice", std::string(d.name) + "(" + kw + ": none)\n");
      EXPECT_EQ(s.message().find("unexpected keyword argument"), std::string::npos)
          << d.name << "(" << kw << ": ...): " << s.message();
      diags_.clear();
    }
  }
}

TEST(LibraryDocsTableTest, SortedUniqueAndFound) {
  const auto &docs = libraryDocs();
  for (size_t i = 1; i < docs.size(); ++i)
    EXPECT_LT(std::string(docs[i - 1].name), std::string(docs[i].name));
  ASSERT_NE(findLibraryDoc("shuffle_batch"), nullptr);
  EXPECT_EQ(findLibraryDoc("no_such_function"), nullptr);
  std::string text = libraryDocText(*findLibraryDoc("shuffle_batch"));
  EXPECT_NE(text.find("shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, *"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("TF1: tf.train.shuffle_batch"), std::string::npos) << text;
}

TEST(LibraryDocsTableTest, KeywordNamesFollowTheNotation) {
  EXPECT_EQ(keywordNames("f(a, b: 1, *, c: \"x, y\", d)"),
            (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(keywordNames("f(a, b, /, *, name)"), (std::vector<std::string>{"name"}));
  EXPECT_EQ(keywordNames("group(*inputs, name: \"g\")"), (std::vector<std::string>{"name"}));
}

} // namespace
} // namespace sluice::driver
