// driver/repl_support.cc: the REPL's helpers that need no session: the
// bracket balance of its input and completion candidates.
#include "driver/detail/repl_support.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "driver/library_docs.h"
#include "frontend/eval/interp.h"
#include "ir/op_registry.h"

namespace sluice::driver::detail {

using namespace sluice::frontend;

namespace {

const char *const kCommands[] = {"help", "run",   "ops",  "doc",  "graph", "dot",
                                 "placement", "load", "reset", "type", "time", "quit"};

const char *const kKeywords[] = {
    "if",   "else", "for",  "in",   "while", "fn",    "return", "break",  "continue",
    "with", "session", "try", "catch", "as", "import", "test", "fixture", "use", "teardown", "spawn", "true",
    "false", "none", "and", "or", "not"};

// Attribute and method names that objects, tensors and host values answer;
// completion keeps those a value really has (getAttr has no side effects).
const char *const kAttrNames[] = {
    "accumulator_ref", "add_summary", "all_model_checkpoint_paths", "append", "apply_grad",
    "apply_gradients", "as_dict", "assign", "assign_add", "assign_sub", "batch", "cancel_op",
    "chief_init_op", "clear_stop", "close", "close_op", "cluster", "cluster_spec",
    "compute_gradients", "coord", "create_threads", "dequeue", "dequeue_many",
    "dequeue_up_to", "device", "device_index", "device_type", "dtype", "dtypes", "endswith",
    "enqueue", "enqueue_many", "enqueue_ops", "environment", "event_path",
    "exceptions_raised", "extend", "filter", "flush", "get", "get_chief_queue_runner",
    "get_init_tokens_op", "get_logdir", "get_name", "get_next", "get_slot",
    "get_slot_names", "global_step", "graph", "index", "initializer", "inputs", "insert",
    "is_alive", "is_chief", "is_closed", "items", "job", "job_tasks", "jobs", "join", "keys",
    "kind", "last_checkpoints", "local_step", "local_step_init_op", "location", "logdir",
    "lower", "make_initializable_iterator", "make_one_shot_iterator", "map", "master",
    "merge_from", "message", "minimize", "model_checkpoint_path", "name", "names", "ndim",
    "node", "num_accumulated", "num_ps_replicas", "num_records_produced", "num_tasks",
    "num_work_units_completed", "num_worker_replicas", "op", "output_shapes",
    "output_types", "outputs", "path", "pop", "prefetch", "queue", "queue_ref", "read",
    "read_up_to", "read_value", "reader_ref", "ready_for_local_init_op",
    "recover_last_checkpoints", "register_thread", "repeat", "replace", "replica",
    "replicas_to_aggregate", "request_stop", "reset", "restore", "run", "save", "save_path",
    "saver", "saver_def", "set_global_step", "shape", "shapes", "should_stop", "shuffle",
    "size", "skip", "split", "start", "startswith", "stop_on_exception", "strip",
    "supports_serialize", "take", "take_grad", "target", "task", "task_address",
    "task_indices", "to_string", "total_num_replicas", "type", "update", "upper", "value",
    "value_index", "values", "wait_for_stop", "write"};

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

} // namespace

std::vector<std::pair<char, size_t>> openBrackets(const std::string &text) {
  std::vector<std::pair<char, size_t>> open;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '#') {
      while (i < text.size() && text[i] != '\n')
        ++i;
    } else if (c == '"') {
      bool raw = i > 0 && text[i - 1] == 'r' && (i < 2 || !isIdentChar(text[i - 2]));
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\' && !raw)
          ++i;
    } else if (c == '(' || c == '[' || c == '{') {
      open.emplace_back(c, i);
    } else if (c == ')' || c == ']' || c == '}') {
      char want = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (!open.empty() && open.back().first == want)
        open.pop_back();
      else if (!open.empty())
        return {}; // mismatched: let the parser report it
    }
  }
  return open;
}

namespace {

void addIf(std::set<std::string> &to, const std::string &cand, const std::string &prefix) {
  if (cand.compare(0, prefix.size(), prefix) == 0)
    to.insert(cand);
}

void scopeNames(EvaluatorImpl &ev, std::set<std::string> &to, const std::string &prefix) {
  for (Env *e = ev.globals.get(); e; e = e->parent().get())
    for (const auto &[name, v] : e->vars())
      addIf(to, name, prefix);
  for (const char *k : kKeywords)
    addIf(to, k, prefix);
}

/// The value of `a.b.c` (names and attributes only: nothing is called).
std::optional<Value> dottedValue(EvaluatorImpl &ev, const std::string &chain) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : chain) {
    if (c == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  if (parts.empty() || parts[0].empty() || std::isdigit(static_cast<unsigned char>(parts[0][0])))
    return std::nullopt;
  Value *root = ev.globals->lookup(parts[0]);
  if (!root)
    return std::nullopt;
  Value v = *root;
  try {
    for (size_t i = 1; i < parts.size(); ++i)
      v = ev.getAttr(v, parts[i], {});
  } catch (LangError &) {
    return std::nullopt;
  }
  return v;
}

void attrNames(EvaluatorImpl &ev, std::set<std::string> &to, const Value &v,
               const std::string &prefix) {
  for (const char *attr : kAttrNames) {
    std::string name = attr;
    if (name.compare(0, prefix.size(), prefix) != 0)
      continue;
    try {
      ev.getAttr(v, name, {});
      to.insert(name);
    } catch (LangError &) {
    }
  }
}

/// Inside `op(..., ` the op's argument names, as `name:`.
void argNames(std::set<std::string> &to, const std::string &before,
              const std::string &prefix) {
  auto open = openBrackets(before);
  if (open.empty() || open.back().first != '(')
    return;
  size_t paren = open.back().second;
  size_t end = paren;
  while (end > 0 && before[end - 1] == ' ')
    --end;
  size_t b = end;
  while (b > 0 && isIdentChar(before[b - 1]))
    --b;
  if (b == end || (b > 0 && before[b - 1] == '.'))
    return;
  const ir::OpDef *op = ir::opRegistry().find(before.substr(b, end - b));
  if (!op)
    return;
  for (const auto &s : op->signature)
    addIf(to, s + ":", prefix);
  addIf(to, "name:", prefix);
}

} // namespace

ReplCompletion completeInput(EvaluatorImpl &ev, const std::string &pending,
                             const std::string &line, size_t cursor) {
  ReplCompletion c;
  cursor = std::min(cursor, line.size());
  size_t start = cursor;
  while (start > 0 && isIdentChar(line[start - 1]))
    --start;
  c.start = start;
  std::string prefix = line.substr(start, cursor - start);
  std::string before = pending + line.substr(0, start);
  std::set<std::string> found;
  size_t lead = line.find_first_not_of(" \t");
  if (pending.empty() && lead != std::string::npos && line[lead] == ':') {
    size_t colon = line.find(':');
    std::string cmdPart = line.substr(colon + 1, start - colon - 1);
    if (start == colon + 1) {
      for (const char *k : kCommands)
        addIf(found, k, prefix);
    } else if (cmdPart.rfind("doc", 0) == 0 || cmdPart.rfind("ops", 0) == 0) {
      for (const auto &op : ir::opRegistry().names())
        addIf(found, op, prefix);
      if (cmdPart.rfind("doc", 0) == 0)
        for (const LibraryDoc &d : libraryDocs())
          addIf(found, d.name, prefix);
    } else if (cmdPart.rfind("load", 0) == 0 || cmdPart.rfind("dot", 0) == 0) {
      c.files = true;
      return c;
    } else {
      scopeNames(ev, found, prefix);
    }
  } else if (start > 0 && line[start - 1] == '.') {
    size_t b = start - 1;
    while (b > 0 && (isIdentChar(line[b - 1]) || line[b - 1] == '.'))
      --b;
    if (auto v = dottedValue(ev, line.substr(b, start - 1 - b)))
      attrNames(ev, found, *v, prefix);
  } else {
    argNames(found, before, prefix);
    scopeNames(ev, found, prefix);
  }
  c.candidates.assign(found.begin(), found.end());
  return c;
}

} // namespace sluice::driver::detail
