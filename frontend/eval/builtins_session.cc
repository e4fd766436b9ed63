// frontend/eval/builtins_session.cc: run() and config_proto().
#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"

namespace sluice::frontend {

void installSessionBuiltins(EvaluatorImpl &evaluator, Env &env) {
  env.set("run", Value::builtin("run", [](EvaluatorImpl &ev, CallArgs &a) {
            auto sess = ev.currentSession(a.loc);
            if (sess->closed)
              throwError(Code::kRuntimeError, "Attempted to use a closed Session.", a.loc);
            return ev.runFetches(*sess, a);
          }));
  env.set("config_proto", Value::builtin("config_proto", [](EvaluatorImpl &ev, CallArgs &a) {
            checkKeywords(a, "config_proto",
                          {"device_count", "intra_op_parallelism_threads",
                           "inter_op_parallelism_threads", "allow_soft_placement",
                           "log_device_placement", "operation_timeout_in_ms",
                           "device_filters", "deterministic", "stall_detection",
                           "fuse_read_decode", "fusion", "backend"});
            if (!a.positional.empty())
              throwError(Code::kTypeError, "config_proto() takes keyword arguments only", a.loc);
            auto c = std::make_shared<ConfigObject>();
            for (size_t k = 0; k < a.keywords.size(); ++k) {
              const auto &[key, v] = a.keywords[k];
              const SourceLoc &loc = a.keywordLocs[k];
              auto nonNegative = [&](int64_t x) {
                if (x < 0)
                  throwError(Code::kValueError, key + " must be >= 0, got " + std::to_string(x), loc);
                return x;
              };
              if (key == "device_count") {
                if (!v.is(Value::kDict))
                  throwError(Code::kTypeError, "device_count must be a dict such as {\"CPU\": 1}", loc);
                for (const auto &[dk, dv] : v.asDict()->items)
                  c->options.deviceCount[toStr(dk, "device type", loc)] =
                      static_cast<int>(nonNegative(toInt(dv, "device count", loc)));
              } else if (key == "intra_op_parallelism_threads") {
                c->options.intraOpThreads = static_cast<int>(nonNegative(toInt(v, key, loc)));
              } else if (key == "inter_op_parallelism_threads") {
                c->options.interOpThreads = static_cast<int>(nonNegative(toInt(v, key, loc)));
              } else if (key == "operation_timeout_in_ms") {
                c->options.operationTimeoutMs = toInt(v, key, loc);
              } else if (key == "allow_soft_placement") {
                c->options.allowSoftPlacement = ev.truthy(v, loc);
              } else if (key == "log_device_placement") {
                c->options.logDevicePlacement = ev.truthy(v, loc);
              } else if (key == "stall_detection") {
                c->stallDetection = ev.truthy(v, loc);
              } else if (key == "deterministic") {
                c->options.deterministic = ev.truthy(v, loc);
              } else if (key == "fuse_read_decode") {
                c->options.fuseReadDecode = ev.truthy(v, loc);
              } else if (key == "fusion") {
                c->options.fusion = ev.truthy(v, loc);
              } else if (key == "backend") {
                std::string b = toStr(v, key, loc);
                if (b != "interp" && b != "jit")
                  throwError(Code::kValueError, "backend must be \"interp\" or \"jit\", got \"" +
                                                    b + "\"", loc);
                c->options.backend = b;
                c->backendSet = true;
              } else if (key == "device_filters") {
                for (const Value &f : ev.iterate(v, loc))
                  c->options.deviceFilters.push_back(toStr(f, "device filter", loc));
              }
            }
            return Value::object(c);
          }));
  (void)evaluator;
}

} // namespace sluice::frontend
