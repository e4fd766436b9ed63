// frontend/eval/builtins_replication.cc: average_towers(...), the helper
// of in-graph replication: the element-wise mean of the values each tower
// computed, for plain tensors and for TF's (gradient, variable) pairs
// (cifar10_multi_gpu_train's average_gradients; docs/tf1-semantics.md §6).
#include "frontend/eval/objects.h"

namespace sluice::frontend {

namespace {

bool isGradVarPair(const Value &v) {
  return v.is(Value::kTuple) && v.asList()->size() == 2 &&
         (*v.asList())[1].objectAs<VariableObject>() != nullptr;
}

class Averager {
public:
  Averager(EvaluatorImpl &ev, const SourceLoc &loc) : ev_(ev), loc_(loc) {}

  Value average(const std::vector<Value> &towers, const std::string &path) {
    const Value &first = towers[0];
    size_t nones = 0;
    for (const Value &v : towers)
      nones += v.isNone();
    if (nones == towers.size())
      return Value::none(); // e.g. a variable no tower's loss depends on
    if (nones > 0)
      mismatch(path, "is none in some towers only");
    if (isGradVarPair(first)) {
      // TF pairs the averaged gradient with tower 0's variable: towers
      // share their variables.
      std::vector<Value> grads;
      for (size_t i = 0; i < towers.size(); ++i) {
        if (!isGradVarPair(towers[i]))
          mismatch(path, "is a (gradient, variable) pair in tower 0 but not in tower " +
                             std::to_string(i));
        grads.push_back((*towers[i].asList())[0]);
      }
      return Value::tuple({average(grads, path + "[0]"), (*first.asList())[1]});
    }
    if (first.isSequence()) {
      size_t n = first.asList()->size();
      for (size_t i = 1; i < towers.size(); ++i)
        if (towers[i].kind() != first.kind() || towers[i].asList()->size() != n)
          mismatch(path, "has " + std::to_string(n) + " elements in tower 0 but not in tower " +
                             std::to_string(i));
      List out;
      for (size_t k = 0; k < n; ++k) {
        std::vector<Value> column;
        for (const Value &t : towers)
          column.push_back((*t.asList())[k]);
        out.push_back(average(column, path + "[" + std::to_string(k) + "]"));
      }
      return first.is(Value::kTuple) ? Value::tuple(std::move(out)) : Value::list(std::move(out));
    }
    if (first.is(Value::kDict)) {
      auto out = std::make_shared<Dict>();
      for (const auto &[key, v0] : first.asDict()->items) {
        std::vector<Value> column;
        for (size_t i = 0; i < towers.size(); ++i) {
          const Value *v = towers[i].is(Value::kDict) ? towers[i].asDict()->find(key) : nullptr;
          if (!v || towers[i].asDict()->items.size() != first.asDict()->items.size())
            mismatch(path, "has other keys in tower " + std::to_string(i) + " than in tower 0");
          column.push_back(*v);
        }
        out->set(key, average(column, path + "[" + ev_.repr(key, true) + "]"));
      }
      return Value::dict(out);
    }
    // A leaf: TF's expand_dims + concat + reduce_mean, as stack + mean.
    List values;
    for (const Value &v : towers)
      values.push_back(Value::tensor(&ev_.graph(), ev_.toTensor(v, std::nullopt, loc_)));
    CallArgs s;
    s.positional = {Value::list(std::move(values))};
    s.positionalLocs = {loc_};
    s.keywords = {{"axis", Value::integer(0)}};
    s.keywordLocs = {loc_};
    s.loc = loc_;
    Value stacked = ev_.call(*ev_.builtins->lookup("stack"), s);
    CallArgs m;
    m.positional = {stacked};
    m.positionalLocs = {loc_};
    m.keywords = {{"axis", Value::integer(0)}};
    m.keywordLocs = {loc_};
    m.loc = loc_;
    return ev_.call(*ev_.builtins->lookup("reduce_mean"), m);
  }

private:
  [[noreturn]] void mismatch(const std::string &path, const std::string &what) {
    throwError(Code::kValueError,
               "average_towers(): the towers differ in structure: tower_values[i]" + path + " " +
                   what,
               loc_);
  }

  EvaluatorImpl &ev_;
  SourceLoc loc_;
};

Value averageTowers(EvaluatorImpl &ev, CallArgs &a) {
  checkKeywords(a, "average_towers", {"tower_values", "name"});
  std::vector<Value> towers =
      ev.iterate(requireArg(a, 0, "tower_values", "average_towers"), a.loc);
  if (towers.empty())
    throwError(Code::kValueError, "average_towers() needs at least one tower", a.loc);
  std::string name = toStr(argOr(a, 1, "name", Value::string("average_towers")), "name", a.loc);
  NameScopeGuard scope(ev.ts(), ev.uniqueScope(name));
  return Averager(ev, a.loc).average(towers, "");
}

} // namespace

void installReplicationBuiltins(EvaluatorImpl &, Env &env) {
  env.set("average_towers", Value::builtin("average_towers", averageTowers));
}

} // namespace sluice::frontend
