// frontend/ast.h: the abstract syntax tree of a .sluice file.
// The parser (frontend/parser.cc) builds it from ANTLR's parse tree; the
// evaluator walks it. Every node carries the SourceLoc of its first token.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/source_loc.h"

namespace sluice::frontend {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

enum class ExprKind {
  kName,
  kInt,
  kFloat,
  kString,
  kBool,
  kNone,
  kList,
  kTuple,
  kDict,
  kUnary,
  kBinary,
  kCall,
  kAttr,
  kIndex,
  kListComp,
  kSpawn,
};

struct Expr {
  explicit Expr(ExprKind k, SourceLoc l) : kind(k), loc(std::move(l)) {}
  virtual ~Expr() = default;
  ExprKind kind;
  SourceLoc loc;
};

struct NameExpr : Expr {
  explicit NameExpr(SourceLoc l, std::string n)
      : Expr(ExprKind::kName, std::move(l)), name(std::move(n)) {}
  std::string name;
};

/// An integer literal. The parser rejects literals that do not fit in a
/// uint64 ("integer literal is too large"); the evaluator checks the dtype.
struct IntExpr : Expr {
  IntExpr(SourceLoc l, uint64_t v, std::string t)
      : Expr(ExprKind::kInt, std::move(l)), value(v), text(std::move(t)) {}
  uint64_t value;
  std::string text;
};

struct FloatExpr : Expr {
  FloatExpr(SourceLoc l, double v, std::string t)
      : Expr(ExprKind::kFloat, std::move(l)), value(v), text(std::move(t)) {}
  double value;
  std::string text;
};

/// A string literal with escapes already decoded (raw strings kept as is).
struct StringExpr : Expr {
  StringExpr(SourceLoc l, std::string v)
      : Expr(ExprKind::kString, std::move(l)), value(std::move(v)) {}
  std::string value;
};

struct BoolExpr : Expr {
  BoolExpr(SourceLoc l, bool v) : Expr(ExprKind::kBool, std::move(l)), value(v) {}
  bool value;
};

struct NoneExpr : Expr {
  explicit NoneExpr(SourceLoc l) : Expr(ExprKind::kNone, std::move(l)) {}
};

/// `[a, b]` (kList) or `(a, b)`, `(a,)`, `()` (kTuple).
struct SequenceExpr : Expr {
  SequenceExpr(ExprKind k, SourceLoc l) : Expr(k, std::move(l)) {}
  std::vector<ExprPtr> elems;
};

struct DictExpr : Expr {
  explicit DictExpr(SourceLoc l) : Expr(ExprKind::kDict, std::move(l)) {}
  std::vector<ExprPtr> keys;
  std::vector<ExprPtr> values;
};

enum class UnaryOp { kNeg, kPos, kNot };

struct UnaryExpr : Expr {
  UnaryExpr(SourceLoc l, UnaryOp o, ExprPtr e)
      : Expr(ExprKind::kUnary, std::move(l)), op(o), operand(std::move(e)) {}
  UnaryOp op;
  ExprPtr operand;
};

enum class BinaryOp {
  kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow, kMatMul,
  kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn,
  kAnd, kOr, // short-circuit on host values
};

struct BinaryExpr : Expr {
  BinaryExpr(SourceLoc l, BinaryOp o, ExprPtr a, ExprPtr b)
      : Expr(ExprKind::kBinary, std::move(l)), op(o), lhs(std::move(a)),
        rhs(std::move(b)) {}
  BinaryOp op;
  ExprPtr lhs, rhs;
};

/// One call argument: positional (name empty) or keyword `name: value`.
struct Arg {
  std::string name;
  ExprPtr value;
  SourceLoc loc;
};

/// `callee(args)`, optionally followed by a block for the forms that take
/// one (`expect_error(kind, "text") { ... }`); `block` is null otherwise.
struct CallExpr : Expr {
  CallExpr(SourceLoc l, ExprPtr c)
      : Expr(ExprKind::kCall, std::move(l)), callee(std::move(c)) {}
  ExprPtr callee;
  std::vector<Arg> args;
  std::unique_ptr<Block> block;
};

/// `object.name`
struct AttrExpr : Expr {
  AttrExpr(SourceLoc l, ExprPtr o, std::string n)
      : Expr(ExprKind::kAttr, std::move(l)), object(std::move(o)),
        name(std::move(n)) {}
  ExprPtr object;
  std::string name;
};

/// One subscript item: a plain index, or a slice `start:stop:step` whose
/// parts may each be absent.
struct IndexItem {
  bool isSlice = false;
  ExprPtr index;             // when !isSlice
  ExprPtr start, stop, step; // when isSlice; each may be null
  SourceLoc loc;
};

/// `object[items]`, e.g. `x[1]`, `x[a:b]`, `x[0, 1:3]`.
struct IndexExpr : Expr {
  IndexExpr(SourceLoc l, ExprPtr o)
      : Expr(ExprKind::kIndex, std::move(l)), object(std::move(o)) {}
  ExprPtr object;
  std::vector<IndexItem> items;
};

/// One `for TARGET in ITER [if COND]...` clause of a comprehension.
struct CompClause {
  ExprPtr target; // a NameExpr or a tuple of names
  ExprPtr iter;
  std::vector<ExprPtr> conds;
};

/// `[elem for x in xs if c ...]`
struct ListCompExpr : Expr {
  explicit ListCompExpr(SourceLoc l) : Expr(ExprKind::kListComp, std::move(l)) {}
  ExprPtr elem;
  std::vector<CompClause> clauses;
};

/// `spawn(name: "feeder") { ... }` or `spawn { ... }`: starts a thread.
struct SpawnExpr : Expr {
  explicit SpawnExpr(SourceLoc l) : Expr(ExprKind::kSpawn, std::move(l)) {}
  std::vector<Arg> args;
  Block body;
};

enum class StmtKind {
  kExpr,
  kAssign,
  kAugAssign,
  kFn,
  kReturn,
  kIf,
  kFor,
  kWhile,
  kBreak,
  kContinue,
  kWith,
  kSession,
  kTry,
  kImport,
  kTest,
  kFixture,
  kUse,
  kTeardown,
};

struct Stmt {
  Stmt(StmtKind k, SourceLoc l) : kind(k), loc(std::move(l)) {}
  virtual ~Stmt() = default;
  StmtKind kind;
  SourceLoc loc;
};

struct ExprStmt : Stmt {
  ExprStmt(SourceLoc l, ExprPtr e) : Stmt(StmtKind::kExpr, std::move(l)), expr(std::move(e)) {}
  ExprPtr expr;
};

/// `target = value`. A target is a NameExpr, an IndexExpr (`d["k"] = v`),
/// an AttrExpr, or a tuple/list SequenceExpr of targets (`a, b = f()`).
struct AssignStmt : Stmt {
  AssignStmt(SourceLoc l) : Stmt(StmtKind::kAssign, std::move(l)) {}
  ExprPtr target;
  ExprPtr value;
};

/// `target += value` (also -=, *=, /=).
struct AugAssignStmt : Stmt {
  AugAssignStmt(SourceLoc l) : Stmt(StmtKind::kAugAssign, std::move(l)) {}
  ExprPtr target;
  BinaryOp op;
  ExprPtr value;
};

struct Param {
  std::string name;
  ExprPtr defaultValue; // null when required
  SourceLoc loc;
};

/// `fn name(a, b: 2) { ... }`
struct FnStmt : Stmt {
  FnStmt(SourceLoc l) : Stmt(StmtKind::kFn, std::move(l)) {}
  std::string name;
  std::vector<Param> params;
  std::shared_ptr<Block> body; // shared: function values outlive the AST walk
};

struct ReturnStmt : Stmt {
  ReturnStmt(SourceLoc l) : Stmt(StmtKind::kReturn, std::move(l)) {}
  ExprPtr value; // may be null
};

/// `if a { } else if b { } else { }`: one branch per condition.
struct IfStmt : Stmt {
  IfStmt(SourceLoc l) : Stmt(StmtKind::kIf, std::move(l)) {}
  std::vector<ExprPtr> conds;
  std::vector<Block> branches;
  std::optional<Block> elseBranch;
};

struct ForStmt : Stmt {
  ForStmt(SourceLoc l) : Stmt(StmtKind::kFor, std::move(l)) {}
  ExprPtr target; // NameExpr or tuple of names
  ExprPtr iter;
  Block body;
};

struct WhileStmt : Stmt {
  WhileStmt(SourceLoc l) : Stmt(StmtKind::kWhile, std::move(l)) {}
  ExprPtr cond;
  Block body;
};

struct BreakStmt : Stmt {
  explicit BreakStmt(SourceLoc l) : Stmt(StmtKind::kBreak, std::move(l)) {}
};
struct ContinueStmt : Stmt {
  explicit ContinueStmt(SourceLoc l) : Stmt(StmtKind::kContinue, std::move(l)) {}
};

/// `with a, b as x { }`: each item is a context expression, optionally bound.
struct WithItem {
  ExprPtr expr;
  std::string asName;
  SourceLoc loc;
};
struct WithStmt : Stmt {
  WithStmt(SourceLoc l) : Stmt(StmtKind::kWith, std::move(l)) {}
  std::vector<WithItem> items;
  Block body;
};

/// `session { }`, `session(config: ...) { }`, `session(...) as sess { }`.
struct SessionStmt : Stmt {
  SessionStmt(SourceLoc l) : Stmt(StmtKind::kSession, std::move(l)) {}
  std::vector<Arg> args;
  std::string asName;
  Block body;
};

/// `catch out_of_range as e { }`; kind "any" catches every error.
struct CatchClause {
  std::string kind;
  std::string asName;
  Block body;
  SourceLoc loc;
};
struct TryStmt : Stmt {
  TryStmt(SourceLoc l) : Stmt(StmtKind::kTry, std::move(l)) {}
  Block body;
  std::vector<CatchClause> catches;
};

struct ImportStmt : Stmt {
  ImportStmt(SourceLoc l) : Stmt(StmtKind::kImport, std::move(l)) {}
  std::string path;
};

/// `test "name" { ... }`
struct TestStmt : Stmt {
  TestStmt(SourceLoc l) : Stmt(StmtKind::kTest, std::move(l)) {}
  std::string name;
  std::shared_ptr<Block> body;
};

/// `fixture NAME { ... }`: setup that tests opt into with `use NAME`.
struct FixtureStmt : Stmt {
  FixtureStmt(SourceLoc l) : Stmt(StmtKind::kFixture, std::move(l)) {}
  std::string name;
  std::shared_ptr<Block> body;
};

/// `use a, b` in a test or a fixture.
struct UseStmt : Stmt {
  UseStmt(SourceLoc l) : Stmt(StmtKind::kUse, std::move(l)) {}
  std::vector<std::string> names;
  std::vector<SourceLoc> locs;
};

/// `teardown { ... }` in a fixture: runs after the test that used it.
struct TeardownStmt : Stmt {
  TeardownStmt(SourceLoc l) : Stmt(StmtKind::kTeardown, std::move(l)) {}
  std::shared_ptr<Block> body;
};

/// A parsed file. The source text is kept for diagnostics' source lines.
struct Module {
  std::shared_ptr<const std::string> path;
  std::shared_ptr<const std::string> source;
  Block body;
};

} // namespace sluice::frontend
