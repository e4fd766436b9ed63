// frontend/detail/ast_builder_expr.cc: AstBuilder's expression half (operators, postfix, primaries).
#include "frontend/detail/ast_builder.h"
#include "frontend/detail/literals.h"

namespace sluice::frontend::detail {

using P = sluicegen::SluiceParser;
using antlr4::tree::TerminalNode;

namespace {
bool isErrorNode(antlr4::tree::ParseTree *t) {
  return dynamic_cast<antlr4::tree::ErrorNode *>(t) != nullptr;
}

std::optional<BinaryOp> binaryOpOf(antlr4::tree::ParseTree *child) {
  if (auto *cmp = dynamic_cast<P::CompOpContext *>(child)) {
    if (cmp->EQ()) return BinaryOp::kEq;
    if (cmp->NE()) return BinaryOp::kNe;
    if (cmp->LT()) return BinaryOp::kLt;
    if (cmp->LE()) return BinaryOp::kLe;
    if (cmp->GT()) return BinaryOp::kGt;
    if (cmp->GE()) return BinaryOp::kGe;
    if (cmp->KW_NOT()) return BinaryOp::kNotIn;
    if (cmp->KW_IN()) return BinaryOp::kIn;
    return std::nullopt;
  }
  auto *t = dynamic_cast<TerminalNode *>(child);
  if (!t || isErrorNode(t))
    return std::nullopt;
  switch (t->getSymbol()->getType()) {
  case P::PLUS: return BinaryOp::kAdd;
  case P::MINUS: return BinaryOp::kSub;
  case P::STAR: return BinaryOp::kMul;
  case P::SLASH: return BinaryOp::kDiv;
  case P::DSLASH: return BinaryOp::kFloorDiv;
  case P::PERCENT: return BinaryOp::kMod;
  case P::AT: return BinaryOp::kMatMul;
  case P::KW_AND: return BinaryOp::kAnd;
  case P::KW_OR: return BinaryOp::kOr;
  default: return std::nullopt;
  }
}
} // namespace

SourceLoc AstBuilder::loc(antlr4::ParserRuleContext *ctx) const {
  return reporter_.loc(ctx ? ctx->getStart() : nullptr);
}

SourceLoc AstBuilder::loc(TerminalNode *node) const {
  return reporter_.loc(node ? node->getSymbol() : nullptr);
}

ExprPtr AstBuilder::placeholder(const SourceLoc &l) {
  auto e = std::make_unique<NoneExpr>(l);
  placeholders_.insert(e.get());
  return e;
}

bool AstBuilder::enter(int n, const SourceLoc &l) {
  depth_ += n;
  if (depth_ <= kMaxExprDepth)
    return true;
  depth_ -= n;
  if (!depthReported_) {
    depthReported_ = true;
    reporter_.error(l, "expression is too deeply nested (limit " +
                           std::to_string(kMaxExprDepth) + ")");
  }
  return false;
}

std::string AstBuilder::decodeString(TerminalNode *node) {
  if (!node || node->getSymbol()->getStartIndex() == INVALID_INDEX)
    return "";
  antlr4::Token *token = node->getSymbol();
  std::vector<StringError> errors;
  std::string value = decodeStringLiteral(reporter_.tokenText(token), errors);
  for (const StringError &e : errors)
    reporter_.error(reporter_.loc(token->getLine(),
                                  token->getCharPositionInLine() + e.offset),
                    e.message);
  return value;
}

ExprPtr AstBuilder::buildExpr(P::ExprContext *ctx) {
  if (!ctx || !ctx->orExpr())
    return placeholder(loc(ctx));
  if (!enter(1, loc(ctx)))
    return placeholder(loc(ctx));
  ExprPtr e = buildOr(ctx->orExpr());
  leave(1);
  return e;
}

ExprPtr AstBuilder::buildExprList(P::ExprListContext *ctx) {
  if (!ctx)
    return placeholder(SourceLoc{});
  std::vector<P::ExprContext *> exprs = ctx->expr();
  if (exprs.size() == 1 && ctx->COMMA().empty())
    return buildExpr(exprs[0]);
  auto tuple = std::make_unique<SequenceExpr>(ExprKind::kTuple, loc(ctx));
  for (P::ExprContext *e : exprs)
    tuple->elems.push_back(buildExpr(e));
  return tuple;
}

template <typename OperandCtx, typename BuildFn>
ExprPtr AstBuilder::foldLeft(antlr4::ParserRuleContext *ctx, BuildFn build) {
  SourceLoc l = loc(ctx);
  int n = 0;
  for (auto *child : ctx->children)
    n += dynamic_cast<OperandCtx *>(child) != nullptr;
  if (n == 0)
    return placeholder(l);
  if (!enter(n - 1, l))
    return placeholder(l);
  ExprPtr result;
  BinaryOp op = BinaryOp::kAdd; // replaced by the operator before each operand
  for (auto *child : ctx->children) {
    if (auto *operand = dynamic_cast<OperandCtx *>(child)) {
      ExprPtr e = (this->*build)(operand);
      result = result ? std::make_unique<BinaryExpr>(l, op, std::move(result), std::move(e))
                      : std::move(e);
    } else if (auto o = binaryOpOf(child)) {
      op = *o;
    }
  }
  leave(n - 1);
  return result;
}

ExprPtr AstBuilder::buildOr(P::OrExprContext *ctx) {
  return foldLeft<P::AndExprContext>(ctx, &AstBuilder::buildAnd);
}

ExprPtr AstBuilder::buildAnd(P::AndExprContext *ctx) {
  return foldLeft<P::NotExprContext>(ctx, &AstBuilder::buildNot);
}

ExprPtr AstBuilder::buildNot(P::NotExprContext *ctx) {
  std::vector<TerminalNode *> nots = ctx->KW_NOT();
  int n = static_cast<int>(nots.size());
  if (!ctx->comparison())
    return placeholder(loc(ctx));
  if (!enter(n, loc(ctx)))
    return placeholder(loc(ctx));
  ExprPtr e = buildComparison(ctx->comparison());
  for (int i = n - 1; i >= 0; --i)
    e = std::make_unique<UnaryExpr>(loc(nots[i]), UnaryOp::kNot, std::move(e));
  leave(n);
  return e;
}

ExprPtr AstBuilder::buildComparison(P::ComparisonContext *ctx) {
  return foldLeft<P::ArithContext>(ctx, &AstBuilder::buildArith);
}

ExprPtr AstBuilder::buildArith(P::ArithContext *ctx) {
  return foldLeft<P::TermContext>(ctx, &AstBuilder::buildTerm);
}

ExprPtr AstBuilder::buildTerm(P::TermContext *ctx) {
  return foldLeft<P::FactorContext>(ctx, &AstBuilder::buildFactor);
}

ExprPtr AstBuilder::buildFactor(P::FactorContext *ctx) {
  // sign* postfix (POW sign* postfix)*: each segment is its signs and operand.
  struct Segment {
    std::vector<P::SignContext *> signs;
    P::PostfixContext *operand = nullptr;
  };
  std::vector<Segment> segs(1);
  int n = 0;
  for (auto *child : ctx->children) {
    if (auto *s = dynamic_cast<P::SignContext *>(child)) {
      segs.back().signs.push_back(s);
      ++n;
    } else if (auto *p = dynamic_cast<P::PostfixContext *>(child)) {
      segs.back().operand = p;
      segs.emplace_back();
      ++n;
    }
  }
  segs.pop_back(); // the empty segment after the last operand
  if (segs.empty())
    return placeholder(loc(ctx));
  if (!enter(n, loc(ctx)))
    return placeholder(loc(ctx));
  std::vector<ExprPtr> operands;
  for (Segment &s : segs)
    operands.push_back(buildPostfix(s.operand));
  auto applySigns = [&](const Segment &s, ExprPtr e) {
    for (size_t j = s.signs.size(); j-- > 0;) {
      UnaryOp op = s.signs[j]->MINUS() ? UnaryOp::kNeg : UnaryOp::kPos;
      e = std::make_unique<UnaryExpr>(loc(s.signs[j]), op, std::move(e));
    }
    return e;
  };
  // '**' is right-associative: a ** -b ** c is a ** (-(b ** c)).
  ExprPtr result = std::move(operands.back());
  for (size_t i = segs.size() - 1; i-- > 0;) {
    SourceLoc l = operands[i]->loc;
    result = applySigns(segs[i + 1], std::move(result));
    result = std::make_unique<BinaryExpr>(l, BinaryOp::kPow, std::move(operands[i]),
                                          std::move(result));
  }
  result = applySigns(segs[0], std::move(result));
  leave(n);
  return result;
}

ExprPtr AstBuilder::buildPostfix(P::PostfixContext *ctx) {
  if (!ctx || !ctx->primary())
    return placeholder(loc(ctx));
  std::vector<P::TrailerContext *> trailers = ctx->trailer();
  int n = static_cast<int>(trailers.size());
  SourceLoc l = loc(ctx);
  if (!enter(n, l))
    return placeholder(l);
  ExprPtr e = buildPrimary(ctx->primary());
  for (P::TrailerContext *t : trailers)
    e = applyTrailer(std::move(e), l, t);
  leave(n);
  return e;
}

ExprPtr AstBuilder::applyTrailer(ExprPtr object, const SourceLoc &l, P::TrailerContext *ctx) {
  if (auto *call = dynamic_cast<P::CallTrailerContext *>(ctx)) {
    auto e = std::make_unique<CallExpr>(l, std::move(object));
    e->args = buildArgs(call->argList());
    return e;
  }
  if (auto *attr = dynamic_cast<P::AttrTrailerContext *>(ctx)) {
    std::string name = attr->name() ? attr->name()->getText() : "";
    return std::make_unique<AttrExpr>(l, std::move(object), std::move(name));
  }
  if (auto *index = dynamic_cast<P::IndexTrailerContext *>(ctx)) {
    auto e = std::make_unique<IndexExpr>(l, std::move(object));
    for (P::SubscriptContext *s : index->subscript())
      e->items.push_back(buildSubscript(s));
    return e;
  }
  return object; // an alternative lost to a syntax error
}

std::vector<Arg> AstBuilder::buildArgs(P::ArgListContext *ctx) {
  std::vector<Arg> args;
  if (!ctx)
    return args;
  for (P::ArgContext *a : ctx->arg()) {
    Arg arg;
    arg.loc = loc(a);
    if (a->NAME() && a->COLON())
      arg.name = a->NAME()->getText();
    arg.value = buildExpr(a->expr());
    args.push_back(std::move(arg));
  }
  return args;
}

IndexItem AstBuilder::buildSubscript(P::SubscriptContext *ctx) {
  IndexItem item;
  item.loc = loc(ctx);
  if (!ctx->c1) {
    if (!ctx->lo)
      reporter_.error(item.loc, "expected an index or a slice");
    item.index = ctx->lo ? buildExpr(ctx->lo) : placeholder(item.loc);
    return item;
  }
  item.isSlice = true;
  if (ctx->lo)
    item.start = buildExpr(ctx->lo);
  if (ctx->hi)
    item.stop = buildExpr(ctx->hi);
  if (ctx->st)
    item.step = buildExpr(ctx->st);
  return item;
}

CompClause AstBuilder::buildCompClause(P::CompClauseContext *ctx) {
  CompClause clause;
  clause.target = buildForTarget(ctx->forTarget());
  std::vector<P::OrExprContext *> parts = ctx->orExpr();
  for (size_t i = 0; i < parts.size(); ++i) {
    ExprPtr e = buildOr(parts[i]);
    if (i == 0)
      clause.iter = std::move(e);
    else
      clause.conds.push_back(std::move(e));
  }
  if (!clause.iter)
    clause.iter = placeholder(loc(ctx));
  return clause;
}

ExprPtr AstBuilder::buildPrimary(P::PrimaryContext *ctx) {
  exprOut_.reset();
  ctx->accept(this);
  if (!exprOut_)
    return placeholder(loc(ctx));
  return std::move(exprOut_);
}

} // namespace sluice::frontend::detail
