// frontend/eval/builtins_summary.cc: scalar_summary, merge_all_summaries
// and summary_writer (TF's FileWriter): TensorBoard event files plus a
// plain metrics.jsonl (backend/io/event_file.h).
#include "backend/io/event_file.h"
#include "frontend/eval/objects.h"

namespace sluice::frontend {

namespace io = backend::io;

namespace {

using BuiltinFn = std::function<Value(EvaluatorImpl &, CallArgs &)>;

void def(Env &env, const std::string &name, BuiltinFn fn) {
  env.set(name, Value::builtin(name, std::move(fn)));
}

/// summary_writer(logdir): TF's summary.FileWriter for scalar summaries.
class SummaryWriterObject : public Object {
public:
  SummaryWriterObject(std::string logdir, std::unique_ptr<io::SummaryFileWriter> w)
      : logdir_(std::move(logdir)), writer_(std::move(w)) {}
  std::string typeName() const override { return "summary_writer"; }
  std::optional<Value> getAttr(EvaluatorImpl &, const std::string &name) override {
    auto self = std::static_pointer_cast<SummaryWriterObject>(shared_from_this());
    if (name == "add_summary")
      return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &a) {
        checkKeywords(a, "add_summary", {"summary", "global_step"});
        const Value &s = requireArg(a, 0, "summary", "add_summary");
        if (!s.is(Value::kHostTensor) || s.asHostTensor().dtype() != ir::DType::kString ||
            s.asHostTensor().numElements() != 1)
          throwError(Code::kTypeError,
                     "add_summary() takes a fetched summary (a string scalar), got a " +
                         s.typeName(),
                     a.loc);
        Value stepV = argOr(a, 1, "global_step", Value::none());
        int64_t step = stepV.is(Value::kHostTensor) ? stepV.asHostTensor().elementAsInt(0)
                       : stepV.isNone()             ? 0
                                                    : toInt(stepV, "global_step", a.loc);
        if (!self->writer_)
          throwError(Code::kFailedPrecondition, "the summary writer is closed", a.loc);
        if (Status st = self->writer_->addSummary(s.asHostTensor().strings()[0], step); !st)
          throwStatus(std::move(st), a.loc);
        return Value::none();
      });
    if (name == "flush") // every add reaches the files at once
      return Value::builtin(name, [](EvaluatorImpl &, CallArgs &) { return Value::none(); });
    if (name == "close")
      return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &a) {
        if (self->writer_) {
          Status st = self->writer_->close();
          self->writer_.reset();
          if (!st)
            throwStatus(std::move(st), a.loc);
        }
        return Value::none();
      });
    if (name == "get_logdir")
      return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &) {
        return Value::string(self->logdir_);
      });
    if (name == "event_path")
      return Value::string(writer_ ? writer_->eventPath() : "");
    return std::nullopt;
  }

private:
  std::string logdir_;
  std::unique_ptr<io::SummaryFileWriter> writer_;
};

} // namespace

void installSummaryBuiltins(EvaluatorImpl &evaluator, Env &env) {
  def(env, "scalar_summary", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "scalar_summary", {"name", "tensor", "collections", "family"});
    std::string name = toStr(requireArg(a, 0, "name", "scalar_summary"), "name", a.loc);
    if (name.empty() || name.back() == '/')
      throwError(Code::kValueError, "scalar_summary needs a name (not ending in '/'), got '" + name + "'", a.loc);
    const Value &x = requireArg(a, 1, "tensor", "scalar_summary");
    Value family = argOr(a, 3, "family", Value::none());
    if (!family.isNone())
      name = toStr(family, "family", a.loc) + "/" + name;
    ir::Output value = ev.toTensor(x, std::nullopt, a.loc);
    const ir::Shape &shape = ev.graph().graph->node(value.node).outputShape(value.index);
    if (shape.hasRank() && shape.rank() != 0)
      throwError(Code::kValueError,
                 "scalar_summary needs a scalar, got shape " + shape.str() + " for '" + name + "'",
                 a.loc);
    // TF's summary_scope: the tag and the op's name are the unique name
    // scope made from `name` under the current scopes ("train/loss").
    std::string scope = ev.uniqueScope(name);
    std::string tagName = scope.substr(0, scope.size() - 1);
    ir::Output tag = [&] {
      NameScopeGuard inside(ev.ts(), scope);
      return ev.toTensor(Value::string(tagName), ir::DType::kString, a.loc);
    }();
    Value out = [&] {
      NameScopeGuard root(ev.ts(), ""); // tagName is already the full name
      return ev.makeOp("scalar_summary", {tag, value}, {}, a.loc, tagName);
    }();
    Value collections = argOr(a, 2, "collections", Value::none());
    bool collect = collections.isNone();
    if (!collections.isNone())
      for (const Value &c : ev.iterate(collections, a.loc))
        collect = collect || (c.is(Value::kString) && c.asString() == "summaries");
    if (collect)
      ev.graph().summaries.push_back(out.asTensor().out);
    return out;
  });
  def(env, "merge_all_summaries", [](EvaluatorImpl &ev, CallArgs &a) {
    GraphContext &g = ev.graph();
    if (g.summaries.empty())
      return Value::none(); // as TF's merge_all
    return ev.makeOp("merge_summary", g.summaries, {}, a.loc, "Merge/MergeSummary");
  });
  def(env, "summary_writer", [](EvaluatorImpl &, CallArgs &a) {
    checkKeywords(a, "summary_writer", {"logdir", "graph"});
    std::string logdir = toStr(requireArg(a, 0, "logdir", "summary_writer"), "logdir", a.loc);
    auto w = io::SummaryFileWriter::open(logdir);
    if (!w.hasValue())
      throwStatus(w.takeStatus(), a.loc);
    return Value::object(std::make_shared<SummaryWriterObject>(logdir, std::move(*w)));
  });
  (void)evaluator;
}

} // namespace sluice::frontend
