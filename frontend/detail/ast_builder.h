// frontend/detail/ast_builder.h: a visitor over ANTLR's parse tree that
// builds the ast.h nodes, checking literals, targets and expression depth.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "antlr4-runtime.h"
#include "SluiceBaseVisitor.h"
#include "SluiceParser.h"

#include "frontend/ast.h"
#include "frontend/detail/syntax_reporter.h"

namespace sluice::frontend::detail {

/// Expressions may nest this deep in the AST (chains count: `1+1+...+1`
/// with n operators is n deep). Deeper input is reported, not built.
inline constexpr int kMaxExprDepth = 2000;

/// Statements and primaries are dispatched through the generated visitor
/// (one visit method per labeled alternative); each visit leaves its node
/// in stmtOut_ / exprOut_, since unique_ptrs do not fit in antlrcpp::Any.
/// Every accessor may return null after a syntax error, so each use is
/// null-checked and missing parts become placeholders.
class AstBuilder : public sluicegen::SluiceBaseVisitor {
  using P = sluicegen::SluiceParser;

public:
  explicit AstBuilder(SyntaxReporter &reporter) : reporter_(reporter) {}

  Block buildFile(P::File_Context *ctx);

  // Statements (ast_builder_stmt.cc).
  antlrcpp::Any visitFnStmt(P::FnStmtContext *ctx) override;
  antlrcpp::Any visitReturnStmt(P::ReturnStmtContext *ctx) override;
  antlrcpp::Any visitIfStmt(P::IfStmtContext *ctx) override;
  antlrcpp::Any visitForStmt(P::ForStmtContext *ctx) override;
  antlrcpp::Any visitWhileStmt(P::WhileStmtContext *ctx) override;
  antlrcpp::Any visitBreakStmt(P::BreakStmtContext *ctx) override;
  antlrcpp::Any visitContinueStmt(P::ContinueStmtContext *ctx) override;
  antlrcpp::Any visitWithStmt(P::WithStmtContext *ctx) override;
  antlrcpp::Any visitSessionStmt(P::SessionStmtContext *ctx) override;
  antlrcpp::Any visitTryStmt(P::TryStmtContext *ctx) override;
  antlrcpp::Any visitImportStmt(P::ImportStmtContext *ctx) override;
  antlrcpp::Any visitTestStmt(P::TestStmtContext *ctx) override;
  antlrcpp::Any visitFixtureStmt(P::FixtureStmtContext *ctx) override;
  antlrcpp::Any visitUseStmt(P::UseStmtContext *ctx) override;
  antlrcpp::Any visitTeardownStmt(P::TeardownStmtContext *ctx) override;
  antlrcpp::Any visitSimpleStmt(P::SimpleStmtContext *ctx) override;

  // Primaries (ast_builder_expr.cc).
  antlrcpp::Any visitExpectErrorPrimary(P::ExpectErrorPrimaryContext *ctx) override;
  antlrcpp::Any visitNamePrimary(P::NamePrimaryContext *ctx) override;
  antlrcpp::Any visitIntPrimary(P::IntPrimaryContext *ctx) override;
  antlrcpp::Any visitFloatPrimary(P::FloatPrimaryContext *ctx) override;
  antlrcpp::Any visitStringPrimary(P::StringPrimaryContext *ctx) override;
  antlrcpp::Any visitTruePrimary(P::TruePrimaryContext *ctx) override;
  antlrcpp::Any visitFalsePrimary(P::FalsePrimaryContext *ctx) override;
  antlrcpp::Any visitNonePrimary(P::NonePrimaryContext *ctx) override;
  antlrcpp::Any visitParenPrimary(P::ParenPrimaryContext *ctx) override;
  antlrcpp::Any visitListPrimary(P::ListPrimaryContext *ctx) override;
  antlrcpp::Any visitDictPrimary(P::DictPrimaryContext *ctx) override;
  antlrcpp::Any visitSpawnPrimary(P::SpawnPrimaryContext *ctx) override;

private:
  // Statements.
  Block buildStmtSeq(P::StmtSeqContext *ctx);
  Block buildBlock(P::BlockContext *ctx);
  StmtPtr buildStmt(P::StmtContext *ctx);
  ExprPtr buildForTarget(P::ForTargetContext *ctx);
  /// Checks that `e` can be assigned to; `allowSequence` for `a, b = ...`.
  bool checkTarget(const Expr &e, bool allowSequence);

  // Expressions.
  ExprPtr buildExpr(P::ExprContext *ctx);
  ExprPtr buildExprList(P::ExprListContext *ctx); // one expr, or a tuple
  ExprPtr buildOr(P::OrExprContext *ctx);
  ExprPtr buildAnd(P::AndExprContext *ctx);
  ExprPtr buildNot(P::NotExprContext *ctx);
  ExprPtr buildComparison(P::ComparisonContext *ctx);
  ExprPtr buildArith(P::ArithContext *ctx);
  ExprPtr buildTerm(P::TermContext *ctx);
  ExprPtr buildFactor(P::FactorContext *ctx);
  ExprPtr buildPostfix(P::PostfixContext *ctx);
  ExprPtr buildPrimary(P::PrimaryContext *ctx);
  ExprPtr applyTrailer(ExprPtr object, const SourceLoc &loc, P::TrailerContext *ctx);
  std::vector<Arg> buildArgs(P::ArgListContext *ctx);
  IndexItem buildSubscript(P::SubscriptContext *ctx);
  CompClause buildCompClause(P::CompClauseContext *ctx);
  /// Folds a left-associative chain `operand (op operand)*` whose children
  /// alternate operand contexts and operator terminals.
  template <typename OperandCtx, typename BuildFn>
  ExprPtr foldLeft(antlr4::ParserRuleContext *ctx, BuildFn build);

  // Helpers.
  SourceLoc loc(const antlr4::Token *token) const { return reporter_.loc(token); }
  SourceLoc loc(antlr4::ParserRuleContext *ctx) const;
  SourceLoc loc(antlr4::tree::TerminalNode *node) const;
  /// A NoneExpr standing in for a part lost to a reported error.
  ExprPtr placeholder(const SourceLoc &l);
  std::string decodeString(antlr4::tree::TerminalNode *node);
  /// Adds `n` to the expression depth; false (and one diagnostic per file)
  /// when that passes kMaxExprDepth. Pair every true with leave(n).
  bool enter(int n, const SourceLoc &l);
  void leave(int n) { depth_ -= n; }

  SyntaxReporter &reporter_;
  StmtPtr stmtOut_;
  ExprPtr exprOut_;
  std::unordered_set<const Expr *> placeholders_;
  int depth_ = 0;
  bool depthReported_ = false;
};

} // namespace sluice::frontend::detail
