// frontend/eval/builtins_readers.cc: readers (text_line_reader,
// fixed_length_record_reader, whole_file_reader, tf_record_reader) as
// objects with TF1's methods, decode_csv returning a list as in TF, and a
// host-side tf_record_writer for tests and tools.
#include "backend/io/record_iterator.h"
#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"
#include "frontend/eval/reader_object.h"
#include "ir/op_registry.h"

namespace sluice::frontend {

namespace {

const ir::OpDef &opDef(const char *name) {
  const ir::OpDef *op = ir::opRegistry().find(name);
  if (!op)
    throwError(Code::kInternal, std::string("op '") + name + "' is not registered", {});
  return *op;
}

/// A method that calls `op` with the object as its first argument.
Value boundOp(std::shared_ptr<Object> self, const std::string &method, const char *op) {
  return Value::builtin(method, [self, op](EvaluatorImpl &ev, CallArgs &a) {
    CallArgs b = a;
    b.positional.insert(b.positional.begin(), Value::object(self));
    b.positionalLocs.insert(b.positionalLocs.begin(), a.loc);
    return ev.callOp(opDef(op), b);
  });
}

/// tf_record_writer(path): TF's python_io.TFRecordWriter, run on the host.
class TFRecordWriterObject : public Object {
public:
  std::string typeName() const override { return "tf_record_writer"; }
  std::string repr() const override { return "<tf_record_writer '" + path + "'>"; }
  std::optional<Value> getAttr(EvaluatorImpl &, const std::string &name) override {
    auto self = std::static_pointer_cast<TFRecordWriterObject>(shared_from_this());
    if (name == "write")
      return Value::builtin("write", [self](EvaluatorImpl &, CallArgs &a) {
        const Value &rec = requireArg(a, 0, "record", "write");
        std::string s;
        if (rec.is(Value::kHostTensor) && rec.asHostTensor().dtype() == ir::DType::kString &&
            rec.asHostTensor().numElements() == 1)
          s = rec.asHostTensor().strings()[0];
        else
          s = toStr(rec, "record", a.loc);
        if (Status st = self->writer.write(s); !st.isOk())
          throwStatus(std::move(st), a.loc);
        return Value::none();
      });
    if (name == "flush" || name == "close")
      return Value::builtin(name, [self, name](EvaluatorImpl &, CallArgs &a) {
        Status st = name == "flush" ? self->writer.flush() : self->writer.close();
        if (!st.isOk())
          throwStatus(std::move(st), a.loc);
        return Value::none();
      });
    if (name == "path")
      return Value::string(path);
    return std::nullopt;
  }

  std::string path;
  backend::io::TFRecordWriter writer;
};

Value makeReader(EvaluatorImpl &ev, CallArgs &a, const char *op, const char *kind) {
  Value h = ev.callOp(opDef(op), a);
  if (!h.is(Value::kTensor))
    throwError(Code::kInternal, std::string(op) + " did not give a handle", a.loc);
  return Value::object(
      std::make_shared<ReaderObject>(h.asTensor().graph, h.asTensor().out.node, kind));
}

} // namespace

std::optional<Value> ReaderObject::getAttr(EvaluatorImpl &ev, const std::string &name) {
  auto self = shared_from_this();
  if (name == "read")
    return boundOp(self, name, "reader_read");
  if (name == "read_up_to")
    return boundOp(self, name, "reader_read_up_to");
  if (name == "num_records_produced")
    return boundOp(self, name, "reader_num_records_produced");
  if (name == "num_work_units_completed")
    return boundOp(self, name, "reader_num_work_units_completed");
  if (name == "reset")
    return boundOp(self, name, "reader_reset");
  if (name == "reader_ref")
    return Value::tensor(graph, {handle, 0});
  if (name == "op")
    return Value::op(graph, handle);
  if (name == "name")
    return Value::string(graph->graph->node(handle).name());
  if (name == "supports_serialize")
    return Value::boolean(false);
  return std::nullopt;
}

std::string ReaderObject::repr() const {
  return "<" + kind + " '" + graph->graph->node(handle).name() + "'>";
}

void installReaderBuiltins(EvaluatorImpl &ev, Env &env) {
  (void)ev;
  auto def = [&env](const std::string &name, std::function<Value(EvaluatorImpl &, CallArgs &)> fn) {
    env.set(name, Value::builtin(name, std::move(fn)));
  };
  def("text_line_reader", [](EvaluatorImpl &e, CallArgs &a) {
    return makeReader(e, a, "text_line_reader", "TextLineReader");
  });
  def("fixed_length_record_reader", [](EvaluatorImpl &e, CallArgs &a) {
    return makeReader(e, a, "fixed_length_record_reader", "FixedLengthRecordReader");
  });
  def("whole_file_reader", [](EvaluatorImpl &e, CallArgs &a) {
    return makeReader(e, a, "whole_file_reader", "WholeFileReader");
  });
  def("tf_record_reader", [](EvaluatorImpl &e, CallArgs &a) {
    return makeReader(e, a, "tf_record_reader", "TFRecordReader");
  });
  // TF's decode_csv always returns a list, even for one column.
  def("decode_csv", [](EvaluatorImpl &e, CallArgs &a) {
    Value r = e.callOp(opDef("decode_csv"), a);
    if (r.is(Value::kList))
      return r;
    if (r.is(Value::kTensor))
      return Value::list({r});
    return Value::list();
  });
  def("tf_record_writer", [](EvaluatorImpl &, CallArgs &a) {
    checkKeywords(a, "tf_record_writer", {"path", "options"});
    auto w = std::make_shared<TFRecordWriterObject>();
    w->path = toStr(requireArg(a, 0, "path", "tf_record_writer"), "path", a.loc);
    Value opts = argOr(a, 1, "options", Value::none());
    if (!opts.isNone())
      throwError(Code::kUnimplemented, "tf_record_writer: compression options are not supported",
                 a.loc);
    if (Status s = w->writer.open(w->path); !s.isOk())
      throwStatus(std::move(s), a.loc);
    return Value::object(w);
  });
}

} // namespace sluice::frontend
