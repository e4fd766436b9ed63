// frontend/eval/eval_stmt.cc: statements, files and imports.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/eval/interp.h"
#include "frontend/source_file.h"
#include "frontend/eval/objects.h"
#include "frontend/parser.h"

namespace sluice::frontend {

void throwError(Code code, std::string message, const SourceLoc &loc) {
  throw LangError{Status(code, std::move(message), loc)};
}

void throwStatus(Status s, const SourceLoc &loc) {
  s.withLoc(loc);
  throw LangError{std::move(s)};
}

Value *Env::lookup(const std::string &name) {
  for (Env *e = this; e; e = e->parent_.get()) {
    auto it = e->vars_.find(name);
    if (it != e->vars_.end())
      return &it->second;
  }
  return nullptr;
}

namespace {
constexpr int kMaxCallDepth = 2000;

} // namespace

Status EvaluatorImpl::runFile(const std::string &path) {
  auto text = readSourceFile(path);
  if (!text.hasValue())
    return text.takeStatus();
  return runSource(path, std::move(*text));
}

Status EvaluatorImpl::runSource(const std::string &path, std::string text) {
  auto pathPtr = std::make_shared<const std::string>(path);
  auto textPtr = std::make_shared<const std::string>(std::move(text));
  diags.addSource(pathPtr, textPtr);
  auto module = parseModule(pathPtr, textPtr, diags);
  if (diags.hasErrors() || !module)
    return invalidArgument("syntax errors");
  importStack.push_back(std::filesystem::absolute(path).lexically_normal().string());
  try {
    runModule(*module, globals);
  } catch (LangError &e) {
    importStack.pop_back();
    modules.push_back(std::move(module));
    return e.status;
  }
  importStack.pop_back();
  modules.push_back(std::move(module));
  return Status::ok();
}

void EvaluatorImpl::runModule(const Module &m, const std::shared_ptr<Env> &env) {
  Value ret;
  Flow f = execBlock(m.body, env, ret);
  if (f == Flow::kBreak || f == Flow::kContinue)
    throwError(Code::kValueError, "'break' or 'continue' outside a loop", {});
}

std::shared_ptr<Env> EvaluatorImpl::importFile(const std::string &path,
                                               const SourceLoc &loc) {
  namespace fs = std::filesystem;
  fs::path base = importStack.empty() ? fs::current_path()
                                      : fs::path(importStack.back()).parent_path();
  fs::path full = (base / path).lexically_normal();
  std::string key = full.string();
  auto it = imports.find(key);
  if (it != imports.end()) {
    if (!it->second)
      throwError(Code::kValueError, "circular import of '" + path + "'", loc);
    return it->second;
  }
  auto text = readSourceFile(key);
  if (!text.hasValue()) {
    Status s = text.takeStatus();
    throwError(s.code(), "cannot import '" + path + "': " + s.message(), loc);
  }
  imports[key] = nullptr;
  auto pathPtr = std::make_shared<const std::string>(key);
  auto textPtr = std::make_shared<const std::string>(std::move(*text));
  diags.addSource(pathPtr, textPtr);
  int before = diags.errorCount();
  auto module = parseModule(pathPtr, textPtr, diags);
  if (!module || diags.errorCount() > before)
    throwError(Code::kInvalidArgument, "syntax errors in imported file '" + path + "'", loc);
  auto env = std::make_shared<Env>(builtins);
  importStack.push_back(key);
  try {
    runModule(*module, env);
  } catch (...) {
    importStack.pop_back();
    modules.push_back(std::move(module));
    throw;
  }
  importStack.pop_back();
  modules.push_back(std::move(module));
  imports[key] = env;
  return env;
}

Flow EvaluatorImpl::execBlock(const Block &b, const std::shared_ptr<Env> &env,
                              Value &ret) {
  for (const auto &s : b) {
    Flow f = exec(*s, env, ret);
    if (f != Flow::kNormal)
      return f;
  }
  return Flow::kNormal;
}

namespace {

/// Restores a ThreadState stack on scope exit. It keeps a copy, not just
/// the size: control_dependencies(none) and colocate_with(none,
/// ignore_existing: true) clear the outer entries for their block only.
template <typename V> struct StackGuard {
  V &v;
  V saved;
  explicit StackGuard(V &vec) : v(vec), saved(vec) {}
  ~StackGuard() { v = std::move(saved); }
};

} // namespace

Flow EvaluatorImpl::exec(const Stmt &s, const std::shared_ptr<Env> &env, Value &ret) {
  switch (s.kind) {
  case StmtKind::kExpr:
    eval(*static_cast<const ExprStmt &>(s).expr, env);
    return Flow::kNormal;
  case StmtKind::kAssign: {
    const auto &a = static_cast<const AssignStmt &>(s);
    assign(*a.target, eval(*a.value, env), env);
    return Flow::kNormal;
  }
  case StmtKind::kAugAssign: {
    const auto &a = static_cast<const AugAssignStmt &>(s);
    Value cur = eval(*a.target, env);
    assign(*a.target, binary(a.op, cur, eval(*a.value, env), a.loc), env);
    return Flow::kNormal;
  }
  case StmtKind::kFn: {
    const auto &f = static_cast<const FnStmt &>(s);
    auto fn = std::make_shared<Function>();
    fn->name = f.name;
    fn->params = &f.params;
    fn->body = f.body;
    fn->closure = env;
    env->set(f.name, Value::function(fn));
    return Flow::kNormal;
  }
  case StmtKind::kReturn: {
    const auto &r = static_cast<const ReturnStmt &>(s);
    ret = r.value ? eval(*r.value, env) : Value::none();
    return Flow::kReturn;
  }
  case StmtKind::kIf: {
    const auto &i = static_cast<const IfStmt &>(s);
    for (size_t k = 0; k < i.conds.size(); ++k)
      if (truthy(eval(*i.conds[k], env), i.conds[k]->loc))
        return execBlock(i.branches[k], env, ret);
    if (i.elseBranch)
      return execBlock(*i.elseBranch, env, ret);
    return Flow::kNormal;
  }
  case StmtKind::kFor: {
    const auto &f = static_cast<const ForStmt &>(s);
    for (Value &item : iterate(eval(*f.iter, env), f.iter->loc)) {
      assign(*f.target, std::move(item), env);
      Flow fl = execBlock(f.body, env, ret);
      if (fl == Flow::kBreak)
        break;
      if (fl == Flow::kReturn)
        return fl;
    }
    return Flow::kNormal;
  }
  case StmtKind::kWhile: {
    const auto &w = static_cast<const WhileStmt &>(s);
    while (truthy(eval(*w.cond, env), w.cond->loc)) {
      Flow fl = execBlock(w.body, env, ret);
      if (fl == Flow::kBreak)
        break;
      if (fl == Flow::kReturn)
        return fl;
    }
    return Flow::kNormal;
  }
  case StmtKind::kBreak: return Flow::kBreak;
  case StmtKind::kContinue: return Flow::kContinue;
  case StmtKind::kWith: {
    const auto &w = static_cast<const WithStmt &>(s);
    ThreadState &t = ts();
    StackGuard g1(t.nameScopes);
    StackGuard g2(t.devices);
    StackGuard g3(t.controlDeps);
    StackGuard g4(t.colocations);
    std::vector<std::shared_ptr<ContextObject>> entered;
    for (const auto &item : w.items) {
      Value v = eval(*item.expr, env);
      auto ctx = v.objectAs<ContextObject>();
      if (!ctx)
        throwError(Code::kTypeError,
                   "'with' needs a scope such as device(...) or name_scope(...), got " +
                       v.typeName(),
                   item.loc);
      Value bound = ctx->enter(*this, item.loc);
      entered.push_back(ctx);
      if (!item.asName.empty())
        env->set(item.asName, bound);
    }
    Flow fl = Flow::kNormal;
    try {
      fl = execBlock(w.body, env, ret);
    } catch (LangError &e) {
      bool swallowed = false;
      for (auto it = entered.rbegin(); it != entered.rend(); ++it)
        swallowed = (*it)->exitWithError(*this, e) || swallowed;
      if (!swallowed)
        throw;
      return Flow::kNormal;
    }
    for (auto it = entered.rbegin(); it != entered.rend(); ++it)
      (*it)->exit(*this);
    return fl;
  }
  case StmtKind::kSession: {
    if (opts.mode == EvalMode::kCompile && !ts().inTest)
      return Flow::kNormal;
    runSessionBlock(static_cast<const SessionStmt &>(s), env);
    return Flow::kNormal;
  }
  case StmtKind::kTry: {
    const auto &t = static_cast<const TryStmt &>(s);
    try {
      return execBlock(t.body, env, ret);
    } catch (LangError &e) {
      if (e.testFailure)
        throw;
      for (const auto &c : t.catches) {
        if (c.kind != "any") {
          auto code = codeFromName(c.kind);
          if (!code)
            throwError(Code::kValueError, "unknown error kind '" + c.kind + "'", c.loc);
          if (*code != e.status.code())
            continue;
        }
        if (!c.asName.empty())
          env->set(c.asName, Value::object(std::make_shared<ErrorObject>(e.status)));
        return execBlock(c.body, env, ret);
      }
      throw;
    }
  }
  case StmtKind::kImport: {
    const auto &i = static_cast<const ImportStmt &>(s);
    auto imported = importFile(i.path, i.loc);
    for (const auto &[name, v] : imported->vars())
      env->set(name, v);
    return Flow::kNormal;
  }
  case StmtKind::kTest: {
    const auto &t = static_cast<const TestStmt &>(s);
    if (opts.mode == EvalMode::kTest && !ts().inTest)
      tests.push_back(TestCase{t.name, t.body, t.loc});
    return Flow::kNormal;
  }
  case StmtKind::kFixture: {
    const auto &f = static_cast<const FixtureStmt &>(s);
    auto [it, fresh] = fixtures.try_emplace(f.name, FixtureDef{f.body, env, f.loc});
    if (!fresh && it->second.loc.str() != f.loc.str())
      throwError(Code::kValueError,
                 "fixture '" + f.name + "' is already defined at " + it->second.loc.str(), f.loc);
    return Flow::kNormal;
  }
  case StmtKind::kUse: {
    const auto &u = static_cast<const UseStmt &>(s);
    for (size_t i = 0; i < u.names.size(); ++i)
      useFixture(u.names[i], u.locs[i], env);
    return Flow::kNormal;
  }
  case StmtKind::kTeardown: {
    const auto &t = static_cast<const TeardownStmt &>(s);
    if (!ts().inTest)
      throwError(Code::kValueError, "teardown is allowed only in a fixture or a test", t.loc);
    ts().teardowns.emplace_back(t.body, env);
    return Flow::kNormal;
  }
  }
  return Flow::kNormal;
}

void EvaluatorImpl::useFixture(const std::string &name, const SourceLoc &loc,
                               const std::shared_ptr<Env> &into) {
  ThreadState &t = ts();
  if (!t.inTest)
    throwError(Code::kValueError, "use is allowed only in a test or a fixture", loc);
  auto it = fixtures.find(name);
  if (it == fixtures.end()) {
    std::string known;
    for (const auto &[n, f] : fixtures)
      known += (known.empty() ? "" : ", ") + n;
    throwError(Code::kNotFound,
               "no fixture named '" + name + "'" +
                   (known.empty() ? std::string(" (none is defined)") : " (defined: " + known + ")"),
               loc);
  }
  if (t.usedFixtures.count(name))
    return;
  for (size_t i = 0; i < t.fixtureStack.size(); ++i)
    if (t.fixtureStack[i] == name) {
      std::string cycle;
      for (size_t j = i; j < t.fixtureStack.size(); ++j)
        cycle += t.fixtureStack[j] + " -> ";
      throwError(Code::kValueError, "fixtures use each other in a cycle: " + cycle + name, loc);
    }
  // The body runs in its own scope over the one it was defined in (so it
  // sees its own file's names), then hands its bindings to the user.
  const FixtureDef &def = it->second;
  auto scope = std::make_shared<Env>(def.closure);
  t.fixtureStack.push_back(name);
  Value ret;
  Flow flow;
  try {
    flow = execBlock(*def.body, scope, ret);
  } catch (...) {
    t.fixtureStack.pop_back();
    throw;
  }
  t.fixtureStack.pop_back();
  if (flow != Flow::kNormal)
    throwError(Code::kValueError, "a fixture body cannot return, break or continue", def.loc);
  t.usedFixtures.insert(name);
  for (const auto &[n, v] : scope->vars())
    into->set(n, v);
}

Value EvaluatorImpl::callFunction(const Function &f, CallArgs &args) {
  ThreadState &t = ts();
  if (t.callDepth >= kMaxCallDepth)
    throwError(Code::kRuntimeError,
               "maximum call depth exceeded in '" + f.name + "' (limit " +
                   std::to_string(kMaxCallDepth) + ")",
               args.loc);
  auto env = std::make_shared<Env>(f.closure);
  const auto &params = *f.params;
  if (args.positional.size() > params.size())
    throwError(Code::kTypeError,
               f.name + "() takes " + std::to_string(params.size()) +
                   " arguments but " + std::to_string(args.positional.size()) +
                   " were given",
               args.loc);
  std::vector<bool> bound(params.size(), false);
  for (size_t i = 0; i < args.positional.size(); ++i) {
    env->set(params[i].name, args.positional[i]);
    bound[i] = true;
  }
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    const auto &[name, v] = args.keywords[k];
    size_t i = 0;
    while (i < params.size() && params[i].name != name)
      ++i;
    if (i == params.size())
      throwError(Code::kTypeError,
                 f.name + "() got an unexpected keyword argument '" + name + "'",
                 args.keywordLocs[k]);
    if (bound[i])
      throwError(Code::kTypeError,
                 f.name + "() got multiple values for argument '" + name + "'",
                 args.keywordLocs[k]);
    env->set(name, v);
    bound[i] = true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (bound[i])
      continue;
    if (!params[i].defaultValue)
      throwError(Code::kTypeError,
                 f.name + "() missing required argument '" + params[i].name + "'",
                 args.loc);
    env->set(params[i].name, eval(*params[i].defaultValue, f.closure));
  }
  ++t.callDepth;
  Value ret;
  try {
    Flow fl = execBlock(*f.body, env, ret);
    if (fl != Flow::kReturn)
      ret = Value::none();
  } catch (...) {
    --t.callDepth;
    throw;
  }
  --t.callDepth;
  return ret;
}

} // namespace sluice::frontend
