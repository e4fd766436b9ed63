// tests/frontend/ast_dump.h: prints an AST as a compact S-expression for test expectations.
#pragma once

#include <string>

#include "frontend/ast.h"

namespace sluice::frontend::testing {

inline std::string dump(const Expr *e);
inline std::string dump(const Stmt *s);
inline std::string dump(const Block &b);

inline std::string dumpArgs(const std::vector<Arg> &args) {
  std::string out;
  for (const Arg &a : args)
    out += " " + (a.name.empty() ? "" : a.name + "=") + dump(a.value.get());
  return out;
}

inline const char *opName(BinaryOp op) {
  switch (op) {
  case BinaryOp::kAdd: return "+";
  case BinaryOp::kSub: return "-";
  case BinaryOp::kMul: return "*";
  case BinaryOp::kDiv: return "/";
  case BinaryOp::kFloorDiv: return "//";
  case BinaryOp::kMod: return "%";
  case BinaryOp::kPow: return "**";
  case BinaryOp::kMatMul: return "@";
  case BinaryOp::kEq: return "==";
  case BinaryOp::kNe: return "!=";
  case BinaryOp::kLt: return "<";
  case BinaryOp::kLe: return "<=";
  case BinaryOp::kGt: return ">";
  case BinaryOp::kGe: return ">=";
  case BinaryOp::kIn: return "in";
  case BinaryOp::kNotIn: return "not-in";
  case BinaryOp::kAnd: return "and";
  case BinaryOp::kOr: return "or";
  }
  return "?";
}

inline std::string dump(const Expr *e) {
  if (!e)
    return "_";
  switch (e->kind) {
  case ExprKind::kName: return static_cast<const NameExpr *>(e)->name;
  case ExprKind::kInt: return std::to_string(static_cast<const IntExpr *>(e)->value);
  case ExprKind::kFloat: return "f" + static_cast<const FloatExpr *>(e)->text;
  case ExprKind::kString: return "\"" + static_cast<const StringExpr *>(e)->value + "\"";
  case ExprKind::kBool: return static_cast<const BoolExpr *>(e)->value ? "true" : "false";
  case ExprKind::kNone: return "none";
  case ExprKind::kList:
  case ExprKind::kTuple: {
    auto *s = static_cast<const SequenceExpr *>(e);
    std::string out = e->kind == ExprKind::kList ? "[" : "(tuple";
    for (size_t i = 0; i < s->elems.size(); ++i)
      out += (i > 0 || e->kind == ExprKind::kTuple ? " " : "") + dump(s->elems[i].get());
    return out + (e->kind == ExprKind::kList ? "]" : ")");
  }
  case ExprKind::kDict: {
    auto *d = static_cast<const DictExpr *>(e);
    std::string out = "(dict";
    for (size_t i = 0; i < d->keys.size(); ++i)
      out += " " + dump(d->keys[i].get()) + ":" + dump(d->values[i].get());
    return out + ")";
  }
  case ExprKind::kUnary: {
    auto *u = static_cast<const UnaryExpr *>(e);
    const char *op = u->op == UnaryOp::kNeg ? "neg" : u->op == UnaryOp::kPos ? "pos" : "not";
    return std::string("(") + op + " " + dump(u->operand.get()) + ")";
  }
  case ExprKind::kBinary: {
    auto *b = static_cast<const BinaryExpr *>(e);
    return std::string("(") + opName(b->op) + " " + dump(b->lhs.get()) + " " + dump(b->rhs.get()) + ")";
  }
  case ExprKind::kCall: {
    auto *c = static_cast<const CallExpr *>(e);
    std::string out = "(call " + dump(c->callee.get()) + dumpArgs(c->args);
    if (c->block)
      out += " " + dump(*c->block);
    return out + ")";
  }
  case ExprKind::kAttr: {
    auto *a = static_cast<const AttrExpr *>(e);
    return "(. " + dump(a->object.get()) + " " + a->name + ")";
  }
  case ExprKind::kIndex: {
    auto *x = static_cast<const IndexExpr *>(e);
    std::string out = "(index " + dump(x->object.get());
    for (const IndexItem &it : x->items)
      out += it.isSlice ? " (slice " + dump(it.start.get()) + " " + dump(it.stop.get()) + " " +
                              dump(it.step.get()) + ")"
                        : " " + dump(it.index.get());
    return out + ")";
  }
  case ExprKind::kListComp: {
    auto *c = static_cast<const ListCompExpr *>(e);
    std::string out = "(comp " + dump(c->elem.get());
    for (const CompClause &cl : c->clauses) {
      out += " (for " + dump(cl.target.get()) + " " + dump(cl.iter.get());
      for (const ExprPtr &cond : cl.conds)
        out += " (if " + dump(cond.get()) + ")";
      out += ")";
    }
    return out + ")";
  }
  case ExprKind::kSpawn: {
    auto *s = static_cast<const SpawnExpr *>(e);
    return "(spawn" + dumpArgs(s->args) + " " + dump(s->body) + ")";
  }
  }
  return "?";
}

inline std::string dump(const Block &b) {
  std::string out = "{";
  for (size_t i = 0; i < b.size(); ++i)
    out += (i ? "; " : "") + dump(b[i].get());
  return out + "}";
}

inline std::string dump(const Stmt *s) {
  if (!s)
    return "_";
  switch (s->kind) {
  case StmtKind::kExpr: return dump(static_cast<const ExprStmt *>(s)->expr.get());
  case StmtKind::kAssign: {
    auto *a = static_cast<const AssignStmt *>(s);
    return "(= " + dump(a->target.get()) + " " + dump(a->value.get()) + ")";
  }
  case StmtKind::kAugAssign: {
    auto *a = static_cast<const AugAssignStmt *>(s);
    return std::string("(") + opName(a->op) + "= " + dump(a->target.get()) + " " +
           dump(a->value.get()) + ")";
  }
  case StmtKind::kFn: {
    auto *f = static_cast<const FnStmt *>(s);
    std::string out = "(fn " + f->name + " (";
    for (size_t i = 0; i < f->params.size(); ++i) {
      out += (i ? " " : "") + f->params[i].name;
      if (f->params[i].defaultValue)
        out += "=" + dump(f->params[i].defaultValue.get());
    }
    return out + ") " + dump(*f->body) + ")";
  }
  case StmtKind::kReturn: {
    auto *r = static_cast<const ReturnStmt *>(s);
    return r->value ? "(return " + dump(r->value.get()) + ")" : "(return)";
  }
  case StmtKind::kIf: {
    auto *i = static_cast<const IfStmt *>(s);
    std::string out = "(if";
    for (size_t k = 0; k < i->conds.size(); ++k)
      out += (k ? " elif " : " ") + dump(i->conds[k].get()) + " " + dump(i->branches[k]);
    if (i->elseBranch)
      out += " else " + dump(*i->elseBranch);
    return out + ")";
  }
  case StmtKind::kFor: {
    auto *f = static_cast<const ForStmt *>(s);
    return "(for " + dump(f->target.get()) + " " + dump(f->iter.get()) + " " + dump(f->body) + ")";
  }
  case StmtKind::kWhile: {
    auto *w = static_cast<const WhileStmt *>(s);
    return "(while " + dump(w->cond.get()) + " " + dump(w->body) + ")";
  }
  case StmtKind::kBreak: return "break";
  case StmtKind::kContinue: return "continue";
  case StmtKind::kWith: {
    auto *w = static_cast<const WithStmt *>(s);
    std::string out = "(with";
    for (const WithItem &it : w->items)
      out += " " + dump(it.expr.get()) + (it.asName.empty() ? "" : " as " + it.asName);
    return out + " " + dump(w->body) + ")";
  }
  case StmtKind::kSession: {
    auto *x = static_cast<const SessionStmt *>(s);
    return "(session" + dumpArgs(x->args) + (x->asName.empty() ? "" : " as " + x->asName) +
           " " + dump(x->body) + ")";
  }
  case StmtKind::kTry: {
    auto *t = static_cast<const TryStmt *>(s);
    std::string out = "(try " + dump(t->body);
    for (const CatchClause &c : t->catches)
      out += " (catch " + c.kind + (c.asName.empty() ? "" : " as " + c.asName) + " " +
             dump(c.body) + ")";
    return out + ")";
  }
  case StmtKind::kImport: return "(import \"" + static_cast<const ImportStmt *>(s)->path + "\")";
  case StmtKind::kTest: {
    auto *t = static_cast<const TestStmt *>(s);
    return "(test \"" + t->name + "\" " + dump(*t->body) + ")";
  }
  case StmtKind::kFixture: {
    auto *f = static_cast<const FixtureStmt *>(s);
    return "(fixture " + f->name + " " + dump(*f->body) + ")";
  }
  case StmtKind::kUse: {
    std::string out = "(use";
    for (const std::string &n : static_cast<const UseStmt *>(s)->names)
      out += " " + n;
    return out + ")";
  }
  case StmtKind::kTeardown:
    return "(teardown " + dump(*static_cast<const TeardownStmt *>(s)->body) + ")";
  }
  return "?";
}

} // namespace sluice::frontend::testing
