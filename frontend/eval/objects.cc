// frontend/eval/objects.cc: attributes and methods of object values.
#include "frontend/eval/objects.h"

namespace sluice::frontend {

std::optional<Value> ErrorObject::getAttr(EvaluatorImpl &, const std::string &name) {
  if (name == "kind")
    return Value::errorKind(status.code());
  if (name == "message")
    return Value::string(status.message());
  if (name == "node")
    return Value::string(status.node());
  if (name == "location")
    return Value::string(status.loc().str());
  return std::nullopt;
}

std::string ErrorObject::repr() const {
  return std::string(codeName(status.code())) + ": " + status.message();
}

std::optional<Value> VariableObject::getAttr(EvaluatorImpl &ev, const std::string &name) {
  const ir::Node &h = graph->graph->node(info.handle);
  if (name == "name")
    return Value::string(h.name() + ":0");
  if (name == "initializer")
    return Value::op(graph, info.initializer);
  if (name == "dtype")
    return Value::dtype(h.attr<ir::DType>("dtype"));
  if (name == "device")
    return Value::string(h.requestedDevice());
  if (name == "op")
    return Value::op(graph, info.handle);
  if (name == "shape")
    return ev.getAttr(Value::tensor(graph, info.readValue), "shape", h.loc());
  if (name == "value" || name == "read_value")
    return Value::builtin(name, [this](EvaluatorImpl &, CallArgs &) {
      return Value::tensor(graph, info.readValue);
    });
  if (name == "assign" || name == "assign_add" || name == "assign_sub") {
    auto self = std::static_pointer_cast<VariableObject>(shared_from_this());
    return Value::builtin(name, [self, name](EvaluatorImpl &e, CallArgs &a) {
      CallArgs b = a;
      b.positional.insert(b.positional.begin(), Value::object(self));
      b.positionalLocs.insert(b.positionalLocs.begin(), a.loc);
      Value *fn = e.builtins->lookup(name);
      return e.call(*fn, b);
    });
  }
  return std::nullopt;
}

std::string VariableObject::repr() const {
  const ir::Node &h = graph->graph->node(info.handle);
  return "<variable '" + h.name() + ":0' shape=" + h.attr<ir::Shape>("shape").str() +
         " dtype=" + std::string(ir::dtypeName(h.attr<ir::DType>("dtype"))) + ">";
}

std::optional<Value> DeviceSpecObject::getAttr(EvaluatorImpl &, const std::string &name) {
  auto optS = [](const std::optional<std::string> &s) {
    return s ? Value::string(*s) : Value::none();
  };
  auto optI = [](const std::optional<int> &i) { return i ? Value::integer(*i) : Value::none(); };
  if (name == "job")
    return optS(spec.job);
  if (name == "replica")
    return optI(spec.replica);
  if (name == "task")
    return optI(spec.task);
  if (name == "device_type")
    return optS(spec.deviceType);
  if (name == "device_index")
    return optI(spec.deviceIndex);
  auto self = std::static_pointer_cast<DeviceSpecObject>(shared_from_this());
  if (name == "to_string")
    return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &) {
      return Value::string(self->spec.toString());
    });
  if (name == "merge_from")
    return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &a) {
      const Value &o = requireArg(a, 0, "dev", "merge_from");
      auto other = o.objectAs<DeviceSpecObject>();
      if (other) {
        self->spec.mergeFrom(other->spec);
      } else {
        auto parsed = ir::DeviceSpec::parse(toStr(o, "dev", a.loc));
        if (!parsed.hasValue())
          throwStatus(parsed.takeStatus(), a.loc);
        self->spec.mergeFrom(*parsed);
      }
      return Value::none();
    });
  return std::nullopt;
}

std::optional<Value> ConfigObject::getAttr(EvaluatorImpl &, const std::string &name) {
  if (name == "intra_op_parallelism_threads")
    return Value::integer(options.intraOpThreads);
  if (name == "inter_op_parallelism_threads")
    return Value::integer(options.interOpThreads);
  if (name == "operation_timeout_in_ms")
    return Value::integer(options.operationTimeoutMs);
  if (name == "allow_soft_placement")
    return Value::boolean(options.allowSoftPlacement);
  if (name == "log_device_placement")
    return Value::boolean(options.logDevicePlacement);
  if (name == "deterministic")
    return Value::boolean(options.deterministic);
  if (name == "fuse_read_decode")
    return Value::boolean(options.fuseReadDecode);
  if (name == "fusion")
    return Value::boolean(options.fusion);
  if (name == "backend")
    return Value::string(options.backend);
  return std::nullopt;
}

std::optional<Value> SessionObject::getAttr(EvaluatorImpl &ev, const std::string &name) {
  auto self = std::static_pointer_cast<SessionObject>(shared_from_this());
  if (name == "run")
    return Value::builtin(name, [self](EvaluatorImpl &e, CallArgs &a) {
      if (self->closed)
        throwError(Code::kRuntimeError, "Attempted to use a closed Session.", a.loc);
      return e.runFetches(*self, a);
    });
  if (name == "close")
    return Value::builtin(name, [self](EvaluatorImpl &e, CallArgs &) {
      GilRelease release(e.gil);
      self->session->close().ignore();
      self->closed = true;
      return Value::none();
    });
  if (name == "graph")
    return Value::none();
  return std::nullopt;
}

std::optional<Value> ThreadObject::getAttr(EvaluatorImpl &, const std::string &attr) {
  auto self = std::static_pointer_cast<ThreadObject>(shared_from_this());
  if (attr == "join")
    return Value::builtin(attr, [self](EvaluatorImpl &e, CallArgs &a) { return self->join(e, a.loc); });
  if (attr == "is_alive")
    return Value::builtin(attr, [self](EvaluatorImpl &, CallArgs &) {
      return Value::boolean(self->isAlive());
    });
  if (attr == "name")
    return Value::string(name);
  if (attr == "start")
    return Value::builtin(attr, [self](EvaluatorImpl &, CallArgs &a) {
      self->start(a.loc);
      return Value::none();
    });
  return std::nullopt;
}

} // namespace sluice::frontend
