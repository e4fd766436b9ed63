// frontend/value.h: the values the build-time language computes with:
// host values (numbers, strings, lists, dicts, functions, host tensors)
// and symbolic values (outputs of graph nodes). A host value and a
// symbolic tensor are distinct kinds, never silently confused.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "frontend/ast.h"
#include "ir/dtype.h"
#include "ir/node.h"
#include "ir/tensor.h"
#include "support/status.h"

namespace sluice::frontend {

class Value;
class Env;
class EvaluatorImpl;
class Object;
struct GraphContext;

using List = std::vector<Value>;
using ListPtr = std::shared_ptr<List>;

/// An ordered dict whose keys are any hashable value (strings, numbers,
/// tensors: `{x: 1.0}` keys a feed by the node bound to x).
struct Dict {
  std::vector<std::pair<Value, Value>> items;
  const Value *find(const Value &key) const;
  void set(Value key, Value value);
};
using DictPtr = std::shared_ptr<Dict>;

/// A user function: its definition and the scope it closes over.
struct Function {
  std::string name;
  const std::vector<Param> *params;
  std::shared_ptr<Block> body;
  std::shared_ptr<const FnStmt> keepAlive; // owns params/body lifetime
  std::shared_ptr<Env> closure;
};

struct CallArgs;
/// A builtin function or bound method.
struct Builtin {
  std::string name;
  std::function<Value(EvaluatorImpl &, CallArgs &)> fn;
};

/// One output of a node in a particular graph.
struct SymTensor {
  GraphContext *graph;
  ir::Output out;
};

/// A node with no (or ignored) outputs: TF's Operation.
struct SymOp {
  GraphContext *graph;
  ir::NodeId node;
};

struct ErrorKind {
  Code code;
};

class Value {
public:
  using Storage =
      std::variant<std::monostate, bool, int64_t, double, std::string, ListPtr,
                   ListPtr /*tuple*/, DictPtr, std::shared_ptr<Function>,
                   std::shared_ptr<Builtin>, ir::Tensor, SymTensor, SymOp,
                   ir::DType, ErrorKind, std::shared_ptr<Object>>;
  enum Kind {
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kList,
    kTuple,
    kDict,
    kFunction,
    kBuiltin,
    kHostTensor,
    kTensor,
    kOp,
    kDType,
    kErrorKind,
    kObject,
  };

  Value() = default;
  static Value none() { return Value(); }
  static Value boolean(bool b) { return Value(Storage(std::in_place_index<kBool>, b)); }
  static Value integer(int64_t i) { return Value(Storage(std::in_place_index<kInt>, i)); }
  static Value real(double d) { return Value(Storage(std::in_place_index<kFloat>, d)); }
  static Value string(std::string s) {
    return Value(Storage(std::in_place_index<kString>, std::move(s)));
  }
  static Value list(List items = {}) {
    return Value(Storage(std::in_place_index<kList>,
                         std::make_shared<List>(std::move(items))));
  }
  static Value tuple(List items = {}) {
    return Value(Storage(std::in_place_index<kTuple>,
                         std::make_shared<List>(std::move(items))));
  }
  static Value dict(DictPtr d = std::make_shared<Dict>()) {
    return Value(Storage(std::in_place_index<kDict>, std::move(d)));
  }
  static Value function(std::shared_ptr<Function> f) {
    return Value(Storage(std::in_place_index<kFunction>, std::move(f)));
  }
  static Value builtin(std::string name,
                       std::function<Value(EvaluatorImpl &, CallArgs &)> fn);
  static Value hostTensor(ir::Tensor t) {
    return Value(Storage(std::in_place_index<kHostTensor>, std::move(t)));
  }
  static Value tensor(GraphContext *g, ir::Output o) {
    return Value(Storage(std::in_place_index<kTensor>, SymTensor{g, o}));
  }
  static Value op(GraphContext *g, ir::NodeId n) {
    return Value(Storage(std::in_place_index<kOp>, SymOp{g, n}));
  }
  static Value dtype(ir::DType t) { return Value(Storage(std::in_place_index<kDType>, t)); }
  static Value errorKind(Code c) {
    return Value(Storage(std::in_place_index<kErrorKind>, ErrorKind{c}));
  }
  static Value object(std::shared_ptr<Object> o) {
    return Value(Storage(std::in_place_index<kObject>, std::move(o)));
  }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is(Kind k) const { return kind() == k; }
  bool isNone() const { return is(kNone); }
  bool isNumber() const { return is(kInt) || is(kFloat) || is(kBool); }
  bool isSequence() const { return is(kList) || is(kTuple); }
  bool isSymbolic() const { return is(kTensor) || is(kOp); }

  bool asBool() const { return std::get<kBool>(v_); }
  int64_t asInt() const { return std::get<kInt>(v_); }
  double asFloat() const { return std::get<kFloat>(v_); }
  /// Int, float or bool as a double.
  double asNumber() const;
  const std::string &asString() const { return std::get<kString>(v_); }
  const ListPtr &asList() const {
    return is(kList) ? std::get<kList>(v_) : std::get<kTuple>(v_);
  }
  const DictPtr &asDict() const { return std::get<kDict>(v_); }
  const std::shared_ptr<Function> &asFunction() const { return std::get<kFunction>(v_); }
  const std::shared_ptr<Builtin> &asBuiltin() const { return std::get<kBuiltin>(v_); }
  const ir::Tensor &asHostTensor() const { return std::get<kHostTensor>(v_); }
  const SymTensor &asTensor() const { return std::get<kTensor>(v_); }
  const SymOp &asOp() const { return std::get<kOp>(v_); }
  ir::DType asDType() const { return std::get<kDType>(v_); }
  Code asErrorKind() const { return std::get<kErrorKind>(v_).code; }
  const std::shared_ptr<Object> &asObject() const { return std::get<kObject>(v_); }
  template <typename T> std::shared_ptr<T> objectAs() const {
    return is(kObject) ? std::dynamic_pointer_cast<T>(asObject()) : nullptr;
  }

  /// The language's name of the kind: "int", "list", "tensor", ...
  std::string typeName() const;
  /// Python-ish equality (deep for containers; identity for objects).
  bool equals(const Value &o) const;
  size_t hash() const;

private:
  /// equals() without the cycle check, for one level.
  bool equalsOnce(const Value &o) const;

  explicit Value(Storage s) : v_(std::move(s)) {}
  Storage v_;
};

/// Methods and attributes of resource-like values (sessions, threads,
/// errors, device specs, variables ...).
class Object : public std::enable_shared_from_this<Object> {
public:
  virtual ~Object() = default;
  virtual std::string typeName() const = 0;
  /// `obj.name`; return nullopt for an unknown attribute.
  virtual std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name);
  /// Text for print().
  virtual std::string repr() const;
  /// `==` between two objects: identity unless the type has a value
  /// (cluster specs compare by content, as TF's ClusterSpec).
  virtual bool equalsObject(const Object &o) const { return this == &o; }
  /// `if obj`: true unless the type says otherwise (an empty cluster).
  virtual bool truthy() const { return true; }
};

/// Positional and keyword arguments of a call, with locations for errors.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<SourceLoc> positionalLocs;
  std::vector<std::pair<std::string, Value>> keywords;
  std::vector<SourceLoc> keywordLocs;
  SourceLoc loc;            // the call
  const Block *block = nullptr; // trailing block (expect_error)
};

} // namespace sluice::frontend
