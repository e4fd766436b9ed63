// ir/op_def.h: the declarative description of one op: its inputs, outputs,
// attributes, flags and shape function. One OpDef per TF op name.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/attr.h"
#include "support/status.h"

namespace sluice::ir {

class InferenceContext;
class GradBuilder;
struct NodeSpec;
/// An op's reverse-mode rule (ir/gradients.h): builds its inputs'
/// gradients from its outputs'.
using GradFn = std::function<void(GradBuilder &)>;
using ShapeFn = std::function<Status(InferenceContext &)>;
/// Derives attrs that output counts or dtypes depend on (unstack's `num`
/// from the input's static shape, split's `num_split` from `size_splits`,
/// zeros_like's `dtype` from `T`). Runs in Graph::addNode after inputs bind
/// type attrs and before attrs are checked; gets the inputs' static shapes.
using AttrFn =
    std::function<Status(NodeSpec &, const std::vector<Shape> &)>;

/// An input or output. Its dtype is fixed, or given by a type attr; a list
/// argument has `numberAttr` copies of `typeAttr`, or the types in
/// `typeListAttr`.
struct ArgDef {
  std::string name;
  DType fixedType = DType::kInvalid;
  std::string typeAttr;
  std::string numberAttr;
  std::string typeListAttr;
  bool isList() const { return !numberAttr.empty() || !typeListAttr.empty(); }
};

struct AttrDef {
  std::string name;
  AttrType type;
  std::optional<AttrValue> defaultValue;
  /// For kType attrs: the dtypes allowed (empty = any).
  std::vector<DType> allowed;
  /// For kInt attrs: the smallest value allowed.
  std::optional<int64_t> minimum;
  /// An optional attr may be absent (no default); kernels test hasAttr().
  bool optional = false;
};

/// Type sets used by op rows.
extern const std::vector<DType> kNumericTypes;  // floats and ints
extern const std::vector<DType> kFloatTypes;
extern const std::vector<DType> kIntegerTypes;
extern const std::vector<DType> kRealAndBoolTypes; // numeric + bool
extern const std::vector<DType> kIndexTypes;       // i32, i64

struct OpDef {
  std::string name;
  std::vector<ArgDef> inputs;
  std::vector<ArgDef> outputs;
  std::vector<AttrDef> attrs;
  /// Stateful ops are never folded or deduplicated and always run.
  bool stateful = false;
  /// Async ops may block (queue dequeue); the executor never holds a pool
  /// thread while they wait.
  bool async = false;
  /// Expensive ops are run on the pool rather than inline.
  bool expensive = false;
  ShapeFn shapeFn;
  AttrFn attrFn;
  /// The gradient rule (ir/grads/*.cc); without one the op is not
  /// differentiable: an error on a needed path, unless notDifferentiable
  /// says its inputs simply get no gradient (TF's NotDifferentiable).
  GradFn gradient;
  bool notDifferentiable = false;
  std::string summary;
  /// The TF 1.15 op(s) this op stands for, exactly as TF spells them, the
  /// one TF1's Python builds first (add: AddV2, then the older Add); empty
  /// for Sluice's own ops (fused, reader_read_csv). The op reference shows
  /// them, and a GraphDef importer maps TF's nodes back through them.
  std::vector<std::string> tfNames;
  /// The family the op was registered with ("math", "array", ...: one
  /// register*Ops function of ir/op_registry.h); the reference groups by it.
  std::string family;
  /// TF1's Python positional order: names of inputs and attrs. The
  /// frontend binds positional arguments in this order; keyword arguments
  /// by name. Inputs and attrs are named after TF's Python arguments.
  std::vector<std::string> signature;
  /// Other accepted keyword names (e.g. keep_dims -> keepdims).
  std::vector<std::pair<std::string, std::string>> aliases;

  const AttrDef *findAttr(std::string_view n) const;
};

/// Fluent builder so that op rows read like TF's REGISTER_OP.
class OpDefBuilder {
public:
  explicit OpDefBuilder(std::string name) { def_.name = std::move(name); }

  /// "x: T", "x: f32", "xs: N*T", "xs: Tlist" (a type-list attr name).
  OpDefBuilder &input(std::string spec);
  OpDefBuilder &output(std::string spec);
  OpDefBuilder &attr(std::string name, AttrType type,
                     std::optional<AttrValue> def = std::nullopt);
  OpDefBuilder &typeAttr(std::string name, std::vector<DType> allowed = {},
                         std::optional<DType> def = std::nullopt);
  OpDefBuilder &minimum(int64_t m); // on the last attr
  OpDefBuilder &optional();         // the last attr may be absent
  /// "input_tensor, axis, keepdims": TF1's Python positional order.
  OpDefBuilder &signature(const std::string &names);
  OpDefBuilder &alias(std::string from, std::string to) {
    def_.aliases.emplace_back(std::move(from), std::move(to));
    return *this;
  }
  OpDefBuilder &stateful() { def_.stateful = true; return *this; }
  OpDefBuilder &async() { def_.async = true; def_.expensive = true; return *this; }
  OpDefBuilder &expensive() { def_.expensive = true; return *this; }
  OpDefBuilder &shape(ShapeFn fn) { def_.shapeFn = std::move(fn); return *this; }
  OpDefBuilder &inferAttrs(AttrFn fn) { def_.attrFn = std::move(fn); return *this; }
  OpDefBuilder &doc(std::string s) { def_.summary = std::move(s); return *this; }
  /// The TF op names this op stands for: .tf("AddV2", "Add").
  template <typename... Names> OpDefBuilder &tf(const Names &...names) {
    (def_.tfNames.emplace_back(names), ...);
    return *this;
  }
  OpDefBuilder &tf(std::vector<std::string> names) {
    def_.tfNames = std::move(names);
    return *this;
  }
  /// Finishes the row; without signature() the positional order is the
  /// inputs, then the attrs, as declared.
  OpDef build();

private:
  ArgDef parseArg(const std::string &spec);
  OpDef def_;
};

} // namespace sluice::ir
