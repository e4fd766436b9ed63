// driver/repl.cc: the REPL engine: input gathering, statements evaluated
// one at a time in one scope and one interactive session, rollback of the
// graph after a failing statement, `:commands` and completion.
#include "driver/repl.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>

#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"
#include "driver/detail/driver_support.h"
#include "driver/detail/repl_support.h"
#include "driver/library_docs.h"
#include "driver/op_reference.h"
#include "driver/task_flags.h"
#include "frontend/evaluator.h"
#include "frontend/parser.h"
#include "ir/op_registry.h"
#include "ir/text/dot.h"
#include "ir/text/printer.h"

namespace sluice::driver {

using namespace sluice::frontend;

namespace {

const char *const kHelp =
    "Statements are the language's; a bare expression prints its value (a symbolic\n"
    "tensor prints its name, dtype, shape and device). One graph and one session:\n"
    "run(x) evaluates x. A failing statement leaves the graph as it was before it.\n"
    "  :help              this text\n"
    "  :run EXPR          run(EXPR) in the session\n"
    "  :ops [PREFIX]      op signatures from the registry\n"
    "  :doc NAME          an op (dtypes, attrs, TF name, kernels) or a library\n"
    "                     function (dense, adam_optimizer, batch, session, ...)\n"
    "  :graph             the graph's IR\n"
    "  :dot FILE          write the graph as Graphviz dot\n"
    "  :placement         the device of each node\n"
    "  :load FILE         evaluate a file into the session\n"
    "  :reset             a fresh graph, scope and session\n"
    "  :type EXPR         the type of EXPR (the graph is left as it was)\n"
    "  :time STATEMENT    run a statement and print how long it took\n"
    "  :quit              leave (also Ctrl-D)\n"
    "Keys: Tab completes, Ctrl-C cancels the input or the running step, Ctrl-D exits.\n";

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

/// What a failed statement changed, undone: the graph and TF's graph
/// collections, and the top-level bindings.
struct Snapshot {
  std::unique_ptr<ir::Graph> graph;
  bool finalized = false;
  std::vector<VariableInfo> globalVariables, localVariables;
  std::vector<std::shared_ptr<Object>> queueRunners;
  std::set<std::string> usedScopes, warnedNodes;
  std::optional<int64_t> graphSeed;
  std::vector<ir::Output> summaries;
  std::map<std::string, ir::Output> supervisorOps;
  std::shared_ptr<Object> supervisorSaver;
  std::unordered_map<std::string, Value> vars;
};

} // namespace

bool needsMoreInput(const std::string &text) { return !detail::openBrackets(text).empty(); }

struct Repl::State {
  ReplOptions opts;
  std::ostream &out;
  std::ostream &err;
  DiagnosticEngine diags;
  std::unique_ptr<Evaluator> ev;
  std::shared_ptr<SessionObject> session;
  std::mutex evMu; // guards ev/session against interrupt() during :reset
  std::string pending;
  std::string allText; // every line so far: the "<repl>" source diagnostics quote
  int linesBefore = 0; // lines of allText before `pending`
  int failures = 0;
  bool quit = false;
  bool idle = false;
  std::shared_ptr<const std::string> path = std::make_shared<const std::string>("<repl>");

  explicit State(ReplOptions o)
      : opts(o), out(o.out ? *o.out : std::cout), err(o.err ? *o.err : std::cerr) {
    start();
  }
  ~State() { stop(); }

  EvaluatorImpl &impl() { return ev->impl(); }
  GraphContext &graph() { return *impl().topGraph; }

  void start() {
    EvalOptions eo;
    eo.mode = EvalMode::kRun;
    eo.out = &out;
    eo.err = &err;
    eo.oneDevice = opts.oneDevice;
    eo.backend = opts.backend;
    eo.clusterHost = defaultClusterHost(&err);
    eo.progressLine = detail::progressLineWanted();
    auto fresh = std::make_unique<Evaluator>(eo, diags);
    EvaluatorImpl &ei = fresh->impl();
    rt::SessionOptions so;
    so.ignoreDeviceRequests = opts.oneDevice;
    if (!opts.backend.empty())
      so.backend = opts.backend;
    GraphContext &g = *ei.topGraph;
    auto created = rt::Session::create(g.graph.get(), &g.mutex, so);
    std::shared_ptr<SessionObject> sess;
    if (created.hasValue()) {
      sess = std::make_shared<SessionObject>(&g, std::move(*created));
      ei.mainState.sessions.push_back(sess);
      ei.globals->set("sess", Value::object(sess));
    } else {
      report(created.takeStatus());
    }
    std::lock_guard<std::mutex> lock(evMu);
    ev = std::move(fresh);
    session = std::move(sess);
  }

  void stop() {
    if (!ev)
      return;
    if (session) {
      {
        GilRelease release(impl().gil);
        session->session->close().ignore();
      }
      session->closed = true;
      impl().mainState.sessions.clear();
    }
    std::unique_ptr<Evaluator> old;
    {
      std::lock_guard<std::mutex> lock(evMu);
      old = std::move(ev);
      session.reset();
    }
    old.reset();
  }

  void report(const Status &s) {
    detail::reportStatus(s, diags, err);
    err.flush();
  }

  Snapshot take() {
    GraphContext &g = graph();
    Snapshot s;
    {
      std::shared_lock lock(g.mutex);
      s.graph = g.graph->clone();
      s.finalized = g.graph->isFinalized();
    }
    s.globalVariables = g.globalVariables;
    s.localVariables = g.localVariables;
    s.queueRunners = g.queueRunners;
    s.usedScopes = g.usedScopes;
    s.warnedNodes = g.warnedNodes;
    s.graphSeed = g.graphSeed;
    s.summaries = g.summaries;
    s.supervisorOps = g.supervisorOps;
    s.supervisorSaver = g.supervisorSaver;
    s.vars = impl().globals->vars();
    return s;
  }

  void restore(Snapshot &s) {
    GraphContext &g = graph();
    {
      std::unique_lock lock(g.mutex);
      if (s.finalized)
        s.graph->finalize();
      g.graph->swap(*s.graph);
    }
    g.globalVariables = std::move(s.globalVariables);
    g.localVariables = std::move(s.localVariables);
    g.queueRunners = std::move(s.queueRunners);
    g.usedScopes = std::move(s.usedScopes);
    g.warnedNodes = std::move(s.warnedNodes);
    g.graphSeed = s.graphSeed;
    g.summaries = std::move(s.summaries);
    g.supervisorOps = std::move(s.supervisorOps);
    g.supervisorSaver = std::move(s.supervisorSaver);
    impl().globals->setVars(std::move(s.vars));
    if (session)
      session->session->forgetCompiled();
  }

  /// Prints diagnostics gathered (syntax errors, warnings) and forgets them.
  bool flushDiagnostics() {
    bool errors = diags.hasErrors();
    if (!diags.diagnostics().empty()) {
      diags.print(err);
      err.flush();
    }
    diags.clear();
    return !errors;
  }

  /// Whether `v`'s node still exists: a value kept in a list mutated in
  /// place may name a node a rollback removed.
  static bool live(const SymTensor &t) {
    std::shared_lock lock(t.graph->mutex);
    return t.out.node < t.graph->graph->numNodes();
  }

  std::string tensorLine(const Value &v) {
    const SymTensor &t = v.asTensor();
    if (!live(t))
      return "<tensor of a removed node>";
    std::string device;
    ir::Output o = t.out;
    {
      std::shared_lock lock(t.graph->mutex);
      const ir::Node &n = t.graph->graph->node(o.node);
      device = n.requestedDevice();
    }
    if (session && t.graph == &graph()) {
      auto placed = session->session->placement();
      if (placed.hasValue() && o.node < static_cast<int>(placed->size()))
        device = (*placed)[o.node];
    }
    std::shared_lock lock(t.graph->mutex);
    const ir::Node &n = t.graph->graph->node(o.node);
    return "<tensor '" + n.name() + ":" + std::to_string(o.index) +
           "' dtype=" + std::string(ir::dtypeName(n.outputType(o.index))) +
           " shape=" + n.outputShape(o.index).str() +
           " device=" + (device.empty() ? "(none)" : device) + ">";
  }

  void echo(const Value &v) {
    if (v.isNone())
      return;
    if (v.is(Value::kTensor))
      out << tensorLine(v) << "\n";
    else
      out << impl().repr(v, true) << "\n";
    out.flush();
  }

  std::string typeText(const Value &v) {
    if (v.is(Value::kTensor) && live(v.asTensor())) {
      const SymTensor &t = v.asTensor();
      std::shared_lock lock(t.graph->mutex);
      const ir::Node &n = t.graph->graph->node(t.out.node);
      return "tensor " + std::string(ir::dtypeName(n.outputType(t.out.index))) + " " +
             n.outputShape(t.out.index).str() + " (symbolic)";
    }
    if (v.is(Value::kHostTensor))
      return "host tensor " + std::string(ir::dtypeName(v.asHostTensor().dtype())) + " " +
             ir::Shape(v.asHostTensor().dims()).str();
    if (v.is(Value::kOp))
      return "operation (symbolic)";
    return v.typeName();
  }

  enum class Mode { kEcho, kRun, kType, kTime };

  /// Parses `text` (its first `skip` columns blanked: a command's name)
  /// and evaluates its statements one at a time.
  bool runText(const std::string &text, size_t skip, Mode mode) {
    std::string padded(static_cast<size_t>(linesBefore), '\n');
    padded += std::string(skip, ' ') + text.substr(std::min(skip, text.size()));
    auto source = std::make_shared<const std::string>(std::move(padded));
    auto module = parseModule(path, source, diags);
    bool parsed = flushDiagnostics() && module;
    // The parser registered the padded text; later errors may quote any line.
    diags.addSource(path, std::make_shared<const std::string>(allText));
    if (!parsed)
      return false;
    EvaluatorImpl &ei = impl();
    bool ok = true;
    auto t0 = std::chrono::steady_clock::now();
    if ((mode == Mode::kRun || mode == Mode::kType) &&
        (module->body.size() != 1 || module->body[0]->kind != StmtKind::kExpr)) {
      err << "sluice: error: " << (mode == Mode::kRun ? ":run" : ":type")
          << " takes one expression\n";
      return false;
    }
    for (const StmtPtr &st : module->body) {
      Snapshot snap = take();
      try {
        if (st->kind == StmtKind::kExpr) {
          const Expr &e = *static_cast<const ExprStmt &>(*st).expr;
          Value v = ei.eval(e, ei.globals);
          if (mode == Mode::kRun) {
            Value *runFn = ei.builtins->lookup("run");
            CallArgs a;
            a.loc = e.loc;
            a.positional.push_back(v);
            a.positionalLocs.push_back(e.loc);
            v = ei.call(*runFn, a);
          }
          if (mode == Mode::kType) {
            out << typeText(v) << "\n";
            restore(snap);
          } else {
            echo(v);
          }
        } else {
          Value ret;
          Flow f = ei.exec(*st, ei.globals, ret);
          if (f == Flow::kBreak || f == Flow::kContinue)
            throwError(Code::kValueError, "'break' or 'continue' outside a loop", st->loc);
        }
      } catch (LangError &e) {
        restore(snap);
        flushDiagnostics();
        report(e.status);
        ok = false;
        break;
      }
      if (!flushDiagnostics()) {
        restore(snap);
        ok = false;
        break;
      }
    }
    ei.modules.push_back(std::move(module));
    if (mode == Mode::kTime) {
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                      .count();
      char buf[64];
      std::snprintf(buf, sizeof buf, "time: %.3f ms\n", ms);
      out << buf;
    }
    out.flush();
    return ok;
  }

  bool loadFile(const std::string &file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      err << "sluice: error: cannot read '" << file << "'\n";
      return false;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    Snapshot snap = take();
    flushDiagnostics();
    Status s = impl().runSource(file, ss.str());
    bool syntaxOk = flushDiagnostics();
    if (s.isOk() && syntaxOk)
      return true;
    restore(snap);
    if (syntaxOk)
      report(s);
    return false;
  }

  bool placementTable() {
    if (!session) {
      err << "sluice: error: no session\n";
      return false;
    }
    auto placed = session->session->placement();
    if (!placed.hasValue()) {
      report(placed.takeStatus());
      return false;
    }
    std::vector<std::array<std::string, 4>> rows{{"node", "op", "requested", "assigned"}};
    {
      std::shared_lock lock(graph().mutex);
      const ir::Graph &g = *graph().graph;
      for (ir::NodeId id = 0; id < g.numNodes() && id < static_cast<int>(placed->size());
           ++id) {
        const ir::Node &n = g.node(id);
        rows.push_back({n.name(), n.opName(),
                        n.requestedDevice().empty() ? "-" : n.requestedDevice(),
                        (*placed)[id]});
      }
    }
    std::array<size_t, 4> width{};
    for (const auto &r : rows)
      for (size_t c = 0; c < 4; ++c)
        width[c] = std::max(width[c], r[c].size());
    for (const auto &r : rows) {
      std::string line;
      for (size_t c = 0; c < 4; ++c) {
        line += r[c];
        if (c < 3)
          line += std::string(width[c] - r[c].size() + 2, ' ');
      }
      out << line << "\n";
    }
    return true;
  }

  bool command(const std::string &text) {
    std::string body = trim(text.substr(1));
    size_t sp = body.find_first_of(" \t\n");
    std::string name = body.substr(0, sp);
    std::string arg = sp == std::string::npos ? "" : trim(body.substr(sp));
    // Where the argument starts in `text`: what runText blanks.
    size_t argAt = text.find(name) + name.size();
    if (name == "help" || name == "h" || name == "?") {
      out << kHelp;
      return true;
    }
    if (name == "quit" || name == "q" || name == "exit") {
      quit = true;
      return true;
    }
    if (name == "run" || name == "type" || name == "time") {
      if (arg.empty()) {
        err << "sluice: error: :" << name << " needs "
            << (name == "time" ? "a statement" : "an expression") << "\n";
        return false;
      }
      return runText(text, argAt, name == "run" ? Mode::kRun : name == "type" ? Mode::kType
                                                                               : Mode::kTime);
    }
    if (name == "ops") {
      for (const std::string &op : ir::opRegistry().names())
        if (op.compare(0, arg.size(), arg) == 0)
          out << opSignature(*ir::opRegistry().find(op)) << "\n";
      return true;
    }
    if (name == "doc") {
      const ir::OpDef *op = arg.empty() ? nullptr : ir::opRegistry().find(arg);
      const LibraryDoc *lib = arg.empty() ? nullptr : findLibraryDoc(arg);
      if (!op && !lib) {
        err << "sluice: error: :doc: no op or library function named '" << arg << "'\n";
        return false;
      }
      // A library builtin shadows the op of its name (constant, variable,
      // fifo_queue): what a call gets comes first.
      if (lib)
        out << libraryDocText(*lib);
      if (lib && op)
        out << "the registry op '" << arg << "': " << opSignature(*op) << "\n";
      else if (op)
        out << opDoc(*op);
      return true;
    }
    if (name == "graph") {
      std::shared_lock lock(graph().mutex);
      out << ir::printGraph(*graph().graph);
      return true;
    }
    if (name == "dot") {
      if (arg.empty()) {
        err << "sluice: error: :dot needs a file name\n";
        return false;
      }
      std::string text;
      {
        std::shared_lock lock(graph().mutex);
        text = ir::writeDot(*graph().graph);
      }
      std::ofstream f(arg, std::ios::binary);
      if (!(f << text)) {
        err << "sluice: error: cannot write '" << arg << "'\n";
        return false;
      }
      out << "wrote " << arg << "\n";
      return true;
    }
    if (name == "placement")
      return placementTable();
    if (name == "load") {
      if (arg.empty()) {
        err << "sluice: error: :load needs a file name\n";
        return false;
      }
      return loadFile(arg);
    }
    if (name == "reset") {
      stop();
      start();
      out << "reset: a fresh graph and session\n";
      return true;
    }
    err << "sluice: error: unknown command ':" << name << "' (:help lists them)\n";
    return false;
  }

  bool evaluate(const std::string &text) {
    std::string t = trim(text);
    bool ok = true;
    if (t.empty())
      ok = true;
    else if (t[0] == ':')
      ok = command(text.substr(text.find(':')));
    else
      ok = runText(text, 0, Mode::kEcho);
    out.flush();
    err.flush();
    if (!ok)
      ++failures;
    return ok;
  }

};

Repl::Repl(ReplOptions opts) : s_(std::make_unique<State>(opts)) {}
Repl::~Repl() { setIdle(false); }

bool Repl::addLine(const std::string &line) {
  s_->pending += line;
  s_->pending += '\n';
  s_->allText += line;
  s_->allText += '\n';
  if (needsMoreInput(s_->pending))
    return false;
  flush();
  return true;
}

bool Repl::pending() const { return !s_->pending.empty(); }

void Repl::flush() {
  std::string text = std::move(s_->pending);
  s_->pending.clear();
  if (!trim(text).empty())
    s_->evaluate(text);
  s_->linesBefore = static_cast<int>(std::count(s_->allText.begin(), s_->allText.end(), '\n'));
}

void Repl::discardPending() {
  s_->pending.clear();
  s_->linesBefore = static_cast<int>(std::count(s_->allText.begin(), s_->allText.end(), '\n'));
}

bool Repl::load(const std::string &path) {
  bool ok = s_->loadFile(path);
  if (!ok)
    ++s_->failures;
  return ok;
}

ReplCompletion Repl::complete(const std::string &line, size_t cursor) {
  std::unique_lock<std::mutex> lock(s_->impl().gil, std::defer_lock);
  if (s_->idle)
    lock.lock();
  return detail::completeInput(s_->impl(), s_->pending, line, cursor);
}

void Repl::interrupt() {
  std::lock_guard<std::mutex> lock(s_->evMu);
  if (s_->ev)
    s_->ev->impl().interruptRuns();
}

void Repl::setIdle(bool idle) {
  if (idle == s_->idle)
    return;
  s_->idle = idle;
  if (idle)
    s_->impl().gil.unlock();
  else
    s_->impl().gil.lock();
}

bool Repl::quitRequested() const { return s_->quit; }
int Repl::failures() const { return s_->failures; }

} // namespace sluice::driver
