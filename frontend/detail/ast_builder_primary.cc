// frontend/detail/ast_builder_primary.cc: AstBuilder's visit methods for primaries (literals, displays, spawn).
#include "frontend/detail/ast_builder.h"
#include "frontend/detail/literals.h"

namespace sluice::frontend::detail {

using P = sluicegen::SluiceParser;

antlrcpp::Any AstBuilder::visitExpectErrorPrimary(P::ExpectErrorPrimaryContext *ctx) {
  SourceLoc l = loc(ctx);
  auto callee = std::make_unique<NameExpr>(l, "expect_error");
  if (!ctx->LPAREN()) {
    exprOut_ = std::move(callee);
    return nullptr;
  }
  auto call = std::make_unique<CallExpr>(l, std::move(callee));
  call->args = buildArgs(ctx->argList());
  if (ctx->block())
    call->block = std::make_unique<Block>(buildBlock(ctx->block()));
  exprOut_ = std::move(call);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitNamePrimary(P::NamePrimaryContext *ctx) {
  exprOut_ = std::make_unique<NameExpr>(loc(ctx), ctx->NAME()->getText());
  return nullptr;
}

antlrcpp::Any AstBuilder::visitIntPrimary(P::IntPrimaryContext *ctx) {
  SourceLoc l = loc(ctx);
  std::string text = reporter_.tokenText(ctx->INT()->getSymbol());
  std::optional<uint64_t> value = parseIntLiteral(text);
  if (!value)
    reporter_.error(l, "integer literal is too large");
  exprOut_ = std::make_unique<IntExpr>(l, value.value_or(0), std::move(text));
  return nullptr;
}

antlrcpp::Any AstBuilder::visitFloatPrimary(P::FloatPrimaryContext *ctx) {
  SourceLoc l = loc(ctx);
  std::string text = reporter_.tokenText(ctx->FLOAT()->getSymbol());
  std::optional<double> value = parseFloatLiteral(text);
  if (!value)
    reporter_.error(l, "float literal is out of range");
  exprOut_ = std::make_unique<FloatExpr>(l, value.value_or(0.0), std::move(text));
  return nullptr;
}

antlrcpp::Any AstBuilder::visitStringPrimary(P::StringPrimaryContext *ctx) {
  exprOut_ = std::make_unique<StringExpr>(loc(ctx), decodeString(ctx->STRING()));
  return nullptr;
}

antlrcpp::Any AstBuilder::visitTruePrimary(P::TruePrimaryContext *ctx) {
  exprOut_ = std::make_unique<BoolExpr>(loc(ctx), true);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitFalsePrimary(P::FalsePrimaryContext *ctx) {
  exprOut_ = std::make_unique<BoolExpr>(loc(ctx), false);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitNonePrimary(P::NonePrimaryContext *ctx) {
  exprOut_ = std::make_unique<NoneExpr>(loc(ctx));
  return nullptr;
}

antlrcpp::Any AstBuilder::visitParenPrimary(P::ParenPrimaryContext *ctx) {
  std::vector<P::ExprContext *> exprs = ctx->expr();
  if (exprs.size() == 1 && ctx->COMMA().empty()) {
    exprOut_ = buildExpr(exprs[0]); // (e) is e
    return nullptr;
  }
  auto tuple = std::make_unique<SequenceExpr>(ExprKind::kTuple, loc(ctx));
  for (P::ExprContext *e : exprs)
    tuple->elems.push_back(buildExpr(e));
  exprOut_ = std::move(tuple);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitListPrimary(P::ListPrimaryContext *ctx) {
  std::vector<P::ExprContext *> exprs = ctx->expr();
  std::vector<P::CompClauseContext *> clauses = ctx->compClause();
  if (!clauses.empty()) {
    auto comp = std::make_unique<ListCompExpr>(loc(ctx));
    comp->elem = exprs.empty() ? placeholder(loc(ctx)) : buildExpr(exprs[0]);
    for (P::CompClauseContext *c : clauses)
      comp->clauses.push_back(buildCompClause(c));
    exprOut_ = std::move(comp);
    return nullptr;
  }
  auto list = std::make_unique<SequenceExpr>(ExprKind::kList, loc(ctx));
  for (P::ExprContext *e : exprs)
    list->elems.push_back(buildExpr(e));
  exprOut_ = std::move(list);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitDictPrimary(P::DictPrimaryContext *ctx) {
  auto dict = std::make_unique<DictExpr>(loc(ctx));
  for (P::DictEntryContext *entry : ctx->dictEntry()) {
    std::vector<P::ExprContext *> kv = entry->expr();
    dict->keys.push_back(kv.size() > 0 ? buildExpr(kv[0]) : placeholder(loc(entry)));
    dict->values.push_back(kv.size() > 1 ? buildExpr(kv[1]) : placeholder(loc(entry)));
  }
  exprOut_ = std::move(dict);
  return nullptr;
}

antlrcpp::Any AstBuilder::visitSpawnPrimary(P::SpawnPrimaryContext *ctx) {
  auto spawn = std::make_unique<SpawnExpr>(loc(ctx));
  spawn->args = buildArgs(ctx->argList());
  spawn->body = buildBlock(ctx->block());
  exprOut_ = std::move(spawn);
  return nullptr;
}

} // namespace sluice::frontend::detail
