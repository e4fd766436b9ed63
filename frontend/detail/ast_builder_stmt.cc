// frontend/detail/ast_builder_stmt.cc: AstBuilder's statement half (blocks, statements, targets).
#include <unordered_set>

#include "frontend/detail/ast_builder.h"

namespace sluice::frontend::detail {

using P = sluicegen::SluiceParser;

Block AstBuilder::buildFile(P::File_Context *ctx) {
  if (!ctx)
    return {};
  return buildStmtSeq(ctx->stmtSeq());
}

Block AstBuilder::buildStmtSeq(P::StmtSeqContext *ctx) {
  Block block;
  if (!ctx)
    return block;
  for (P::StmtContext *s : ctx->stmt())
    if (StmtPtr stmt = buildStmt(s))
      block.push_back(std::move(stmt));
  return block;
}

Block AstBuilder::buildBlock(P::BlockContext *ctx) {
  if (!ctx)
    return {};
  return buildStmtSeq(ctx->stmtSeq());
}

StmtPtr AstBuilder::buildStmt(P::StmtContext *ctx) {
  if (!ctx)
    return nullptr;
  stmtOut_.reset();
  ctx->accept(this); // a bare StmtContext (no alternative matched) yields null
  return std::move(stmtOut_);
}

antlrcpp::Any AstBuilder::visitFnStmt(P::FnStmtContext *ctx) {
  auto fn = std::make_unique<FnStmt>(loc(ctx));
  if (ctx->NAME())
    fn->name = ctx->NAME()->getText();
  std::unordered_set<std::string> seen;
  bool sawDefault = false;
  for (P::ParamContext *p : ctx->param()) {
    if (!p->NAME())
      continue;
    Param param{p->NAME()->getText(), nullptr, loc(p)};
    if (!seen.insert(param.name).second)
      reporter_.error(param.loc, "duplicate parameter '" + param.name + "'");
    if (p->COLON()) {
      param.defaultValue = buildExpr(p->expr());
      sawDefault = true;
    } else if (sawDefault) {
      reporter_.error(param.loc, "parameter '" + param.name +
                                     "' without a default follows one with a default");
    }
    fn->params.push_back(std::move(param));
  }
  fn->body = std::make_shared<Block>(buildBlock(ctx->block()));
  stmtOut_ = std::move(fn);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitReturnStmt(P::ReturnStmtContext *ctx) {
  auto ret = std::make_unique<ReturnStmt>(loc(ctx));
  if (ctx->exprList())
    ret->value = buildExprList(ctx->exprList());
  stmtOut_ = std::move(ret);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitIfStmt(P::IfStmtContext *ctx) {
  auto stmt = std::make_unique<IfStmt>(loc(ctx));
  std::vector<P::ExprContext *> conds = ctx->expr();
  std::vector<P::BlockContext *> blocks = ctx->block();
  size_t n = std::min(conds.size(), blocks.size());
  for (size_t i = 0; i < n; ++i) {
    stmt->conds.push_back(buildExpr(conds[i]));
    stmt->branches.push_back(buildBlock(blocks[i]));
  }
  if (blocks.size() > conds.size())
    stmt->elseBranch = buildBlock(blocks.back());
  stmtOut_ = std::move(stmt);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitForStmt(P::ForStmtContext *ctx) {
  auto stmt = std::make_unique<ForStmt>(loc(ctx));
  stmt->target = buildForTarget(ctx->forTarget());
  stmt->iter = buildExpr(ctx->expr());
  stmt->body = buildBlock(ctx->block());
  stmtOut_ = std::move(stmt);
  return nullptr;
}

ExprPtr AstBuilder::buildForTarget(P::ForTargetContext *ctx) {
  if (!ctx || ctx->NAME().empty())
    return placeholder(ctx ? loc(ctx) : SourceLoc{});
  std::vector<antlr4::tree::TerminalNode *> names = ctx->NAME();
  if (names.size() == 1 && ctx->COMMA().empty())
    return std::make_unique<NameExpr>(loc(names[0]), names[0]->getText());
  auto tuple = std::make_unique<SequenceExpr>(ExprKind::kTuple, loc(ctx));
  for (auto *n : names)
    tuple->elems.push_back(std::make_unique<NameExpr>(loc(n), n->getText()));
  return tuple;
}

antlrcpp::Any AstBuilder::visitWhileStmt(P::WhileStmtContext *ctx) {
  auto stmt = std::make_unique<WhileStmt>(loc(ctx));
  stmt->cond = buildExpr(ctx->expr());
  stmt->body = buildBlock(ctx->block());
  stmtOut_ = std::move(stmt);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitBreakStmt(P::BreakStmtContext *ctx) {
  stmtOut_ = std::make_unique<BreakStmt>(loc(ctx));
  return nullptr;
}

antlrcpp::Any AstBuilder::visitContinueStmt(P::ContinueStmtContext *ctx) {
  stmtOut_ = std::make_unique<ContinueStmt>(loc(ctx));
  return nullptr;
}

antlrcpp::Any AstBuilder::visitWithStmt(P::WithStmtContext *ctx) {
  auto stmt = std::make_unique<WithStmt>(loc(ctx));
  for (P::WithItemContext *item : ctx->withItem()) {
    WithItem w;
    w.loc = loc(item);
    w.expr = buildExpr(item->expr());
    if (item->NAME())
      w.asName = item->NAME()->getText();
    stmt->items.push_back(std::move(w));
  }
  stmt->body = buildBlock(ctx->block());
  stmtOut_ = std::move(stmt);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitSessionStmt(P::SessionStmtContext *ctx) {
  auto stmt = std::make_unique<SessionStmt>(loc(ctx));
  stmt->args = buildArgs(ctx->argList());
  if (ctx->NAME())
    stmt->asName = ctx->NAME()->getText();
  stmt->body = buildBlock(ctx->block());
  stmtOut_ = std::move(stmt);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitTryStmt(P::TryStmtContext *ctx) {
  auto stmt = std::make_unique<TryStmt>(loc(ctx));
  stmt->body = buildBlock(ctx->block());
  for (P::CatchClauseContext *c : ctx->catchClause()) {
    CatchClause clause;
    clause.loc = loc(c);
    if (c->name())
      clause.kind = c->name()->getText();
    if (c->NAME())
      clause.asName = c->NAME()->getText();
    clause.body = buildBlock(c->block());
    stmt->catches.push_back(std::move(clause));
  }
  stmtOut_ = std::move(stmt);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitImportStmt(P::ImportStmtContext *ctx) {
  auto stmt = std::make_unique<ImportStmt>(loc(ctx));
  stmt->path = decodeString(ctx->STRING());
  stmtOut_ = std::move(stmt);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitTestStmt(P::TestStmtContext *ctx) {
  auto stmt = std::make_unique<TestStmt>(loc(ctx));
  stmt->name = decodeString(ctx->STRING());
  stmt->body = std::make_shared<Block>(buildBlock(ctx->block()));
  stmtOut_ = std::move(stmt);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitFixtureStmt(P::FixtureStmtContext *ctx) {
  auto stmt = std::make_unique<FixtureStmt>(loc(ctx));
  stmt->name = ctx->NAME()->getText();
  stmt->body = std::make_shared<Block>(buildBlock(ctx->block()));
  stmtOut_ = std::move(stmt);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitUseStmt(P::UseStmtContext *ctx) {
  auto stmt = std::make_unique<UseStmt>(loc(ctx));
  for (antlr4::tree::TerminalNode *name : ctx->NAME()) {
    stmt->names.push_back(name->getText());
    stmt->locs.push_back(loc(name));
  }
  stmtOut_ = std::move(stmt);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitTeardownStmt(P::TeardownStmtContext *ctx) {
  auto stmt = std::make_unique<TeardownStmt>(loc(ctx));
  stmt->body = std::make_shared<Block>(buildBlock(ctx->block()));
  stmtOut_ = std::move(stmt);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitSimpleStmt(P::SimpleStmtContext *ctx) {
  std::vector<P::ExprListContext *> lists = ctx->exprList();
  if (lists.empty())
    return nullptr;
  ExprPtr first = buildExprList(lists[0]);
  if (ctx->ASSIGN()) {
    auto stmt = std::make_unique<AssignStmt>(loc(ctx));
    checkTarget(*first, /*allowSequence=*/true);
    stmt->target = std::move(first);
    stmt->value = lists.size() > 1 ? buildExprList(lists[1]) : placeholder(loc(ctx->ASSIGN()));
    stmtOut_ = std::move(stmt);
  } else if (P::AugOpContext *op = ctx->augOp()) {
    auto stmt = std::make_unique<AugAssignStmt>(loc(ctx));
    checkTarget(*first, /*allowSequence=*/false);
    stmt->target = std::move(first);
    stmt->op = op->PLUS_ASSIGN()    ? BinaryOp::kAdd
               : op->MINUS_ASSIGN() ? BinaryOp::kSub
               : op->STAR_ASSIGN()  ? BinaryOp::kMul
                                    : BinaryOp::kDiv;
    stmt->value = buildExpr(ctx->expr());
    stmtOut_ = std::move(stmt);
  } else {
    SourceLoc l = first->loc;
    stmtOut_ = std::make_unique<ExprStmt>(l, std::move(first));
  }
  return nullptr;
}

bool AstBuilder::checkTarget(const Expr &e, bool allowSequence) {
  if (placeholders_.count(&e))
    return false; // a syntax error was reported already
  switch (e.kind) {
  case ExprKind::kName:
  case ExprKind::kIndex:
  case ExprKind::kAttr:
    return true;
  case ExprKind::kTuple:
  case ExprKind::kList:
    if (allowSequence) {
      const auto &seq = static_cast<const SequenceExpr &>(e);
      if (seq.elems.empty()) {
        reporter_.error(e.loc, "cannot assign to an empty sequence");
        return false;
      }
      bool ok = true;
      for (const ExprPtr &elem : seq.elems)
        ok = elem && checkTarget(*elem, true) && ok;
      return ok;
    }
    reporter_.error(e.loc, "cannot use a sequence as the target of an augmented assignment");
    return false;
  case ExprKind::kCall:
    reporter_.error(e.loc, "cannot assign to a function call");
    return false;
  default:
    reporter_.error(e.loc, "cannot assign to this expression");
    return false;
  }
}

} // namespace sluice::frontend::detail
