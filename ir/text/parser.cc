// ir/text/parser.cc: a recursive-descent reader of .sir text. The grammar is
// flat (a node per line, values at most two levels deep), so no input can
// drive the parser into deep recursion.
#include "ir/text/parser.h"

#include <algorithm>
#include <map>

#include "ir/op_registry.h"
#include "ir/text/attr_parser.h"
#include "ir/text/lexer.h"

namespace sluice::ir {

using detail::Cursor;
using detail::Tok;
using detail::Token;

namespace {

// Control inputs naming a node defined further down (only in graphs with
// cycles) are added once every node exists.
struct DeferredControls {
  NodeId node;
  std::vector<Token> refs;
};

struct PrintedOutput {
  DType dtype;
  Shape shape;
  Token at;
};

class GraphParser {
public:
  GraphParser(const std::vector<Token> &toks,
              std::shared_ptr<const std::string> file)
      : cur_(toks, std::move(file)) {}

  Expected<std::unique_ptr<Graph>> run() {
    auto graph = std::make_unique<Graph>();
    g_ = graph.get();
    for (;;) {
      while (cur_.peek().kind == Tok::kNewline)
        cur_.next();
      if (cur_.peek().kind == Tok::kEof)
        break;
      if (cur_.isIdent("func")) {
        SLUICE_TRY(parseFunction(*graph));
        continue;
      }
      SLUICE_TRY(parseNode());
      if (cur_.peek().kind != Tok::kNewline && cur_.peek().kind != Tok::kEof)
        return cur_.expected("a clause (@, assigned, colocate, loc) or end "
                             "of line");
    }
    SLUICE_TRY(resolveDeferred());
    return graph;
  }

private:
  Status resolveDeferred() {
    for (const DeferredControls &d : deferred_) {
      for (const Token &t : d.refs) {
        const Node *c = g_->findNode(t.text);
        if (!c)
          return cur_.errorAt(t, "unknown node '%" + t.text + "'");
        g_->addControlInput(d.node, c->id());
      }
    }
    deferred_.clear();
    return Status::ok();
  }

  // func "name" {
  //   <nodes>
  //   return %a:0, %b:1
  // }
  Status parseFunction(Graph &top) {
    Token funcTok = cur_.next();
    SLUICE_ASSIGN_OR_RETURN(Token nameTok,
                            cur_.expectKind(Tok::kString, "a function name string"));
    if (top.functions().find(nameTok.text))
      return cur_.errorAt(nameTok, "duplicate function '" + nameTok.text + "'");
    SLUICE_TRY(cur_.expect('{'));
    auto body = std::make_shared<Graph>();
    Graph *outer = g_;
    auto outerDeferred = std::move(deferred_);
    deferred_.clear();
    g_ = body.get();
    auto def = std::make_shared<FunctionDef>();
    def->name = nameTok.text;
    def->loc = cur_.locOf(funcTok);
    Status st = [&]() -> Status {
      for (;;) {
        while (cur_.peek().kind == Tok::kNewline)
          cur_.next();
        if (cur_.isIdent("return"))
          break;
        if (cur_.isIdent("func"))
          return cur_.errorAt(cur_.peek(), "functions cannot be nested");
        if (cur_.peek().kind == Tok::kEof || cur_.isPunct('}'))
          return cur_.expected("'return' ending function '" + nameTok.text + "'");
        SLUICE_TRY(parseNode());
        if (cur_.peek().kind != Tok::kNewline)
          return cur_.expected("a clause (@, assigned, colocate, loc) or end of line");
      }
      cur_.next(); // return
      while (cur_.peek().kind == Tok::kValueRef) {
        Token ref = cur_.next();
        SLUICE_TRY(cur_.expect(':'));
        SLUICE_ASSIGN_OR_RETURN(AttrValue index, detail::parseAttrValue(cur_, AttrType::kInt));
        const Node *src = g_->findNode(ref.text);
        if (!src)
          return cur_.errorAt(ref, "unknown node '%" + ref.text + "'");
        int64_t i = std::get<int64_t>(index);
        if (i < 0 || i >= src->numOutputs())
          return cur_.errorAt(ref, "'%" + ref.text + "' has no output " + std::to_string(i));
        def->rets.push_back(Output{src->id(), static_cast<int>(i)});
        if (!cur_.accept(','))
          break;
      }
      while (cur_.peek().kind == Tok::kNewline)
        cur_.next();
      SLUICE_TRY(cur_.expect('}'));
      return resolveDeferred();
    }();
    g_ = outer;
    deferred_ = std::move(outerDeferred);
    SLUICE_TRY(st);
    std::vector<std::pair<int64_t, NodeId>> args;
    for (NodeId id = 0; id < body->numNodes(); ++id)
      if (body->node(id).opName() == "function_arg")
        args.emplace_back(body->node(id).attr<int64_t>("index"), id);
    std::sort(args.begin(), args.end());
    for (auto &[index, id] : args)
      def->args.push_back(id);
    def->body = std::move(body);
    Status added = top.functions().add(def);
    if (!added.isOk())
      return cur_.errorAt(nameTok, added.message());
    return Status::ok();
  }

  Status parseNode() {
    if (cur_.peek().kind != Tok::kValueRef)
      return cur_.expected("a node ('%name = op(...)')");
    Token nameTok = cur_.next();
    if (nameTok.text.empty())
      return cur_.errorAt(nameTok, "node name must not be empty");
    if (g_->isNameUsed(nameTok.text))
      return cur_.errorAt(nameTok,
                          "duplicate node name '" + nameTok.text + "'");
    SLUICE_TRY(cur_.expect('='));
    SLUICE_ASSIGN_OR_RETURN(Token opTok,
                            cur_.expectKind(Tok::kIdent, "an op name"));
    const OpDef *op = opRegistry().find(opTok.text);
    if (!op)
      return cur_.errorAt(opTok, "unknown op '" + opTok.text + "'");

    NodeSpec spec;
    spec.name = nameTok.text;
    spec.op = opTok.text;
    SLUICE_TRY(parseInputs(spec));
    std::vector<Token> controls;
    bool deferControls = false;
    while (cur_.accept('^')) {
      SLUICE_ASSIGN_OR_RETURN(
          Token c,
          cur_.expectKind(Tok::kValueRef, "a control input ('^%name')"));
      deferControls |= g_->findNode(c.text) == nullptr;
      controls.push_back(std::move(c));
    }
    if (!deferControls)
      for (const Token &c : controls)
        spec.controlInputs.push_back(g_->findNode(c.text)->id());

    AttrMap extraAttrs;
    if (cur_.accept('{'))
      SLUICE_TRY(parseAttrs(*op, spec, extraAttrs));

    Token outputsTok = cur_.peek();
    std::vector<PrintedOutput> outputs;
    SLUICE_TRY(parseOutputs(outputs));
    SLUICE_TRY(parseClauses(spec));
    SLUICE_TRY(checkOutputCounts(*op, spec, outputs.size(), outputsTok));

    SourceLoc sirLoc = cur_.locOf(nameTok);
    auto added = g_->addNode(std::move(spec));
    if (!added.hasValue()) {
      // Report where the node is in the .sir file; its source location is
      // data, not the place of this error.
      Status s = added.takeStatus();
      return Status(s.code(), s.message(), sirLoc, s.node());
    }
    Node *n = *added;
    SLUICE_TRY(matchOutputs(*n, outputs, outputsTok));
    for (auto &[name, value] : extraAttrs)
      n->setAttr(name, std::move(value));
    if (!assigned_.empty())
      n->setAssignedDevice(std::move(assigned_));
    if (deferControls)
      deferred_.push_back(DeferredControls{n->id(), std::move(controls)});
    return Status::ok();
  }

  Status parseInputs(NodeSpec &spec) {
    SLUICE_TRY(cur_.expect('('));
    if (cur_.accept(')'))
      return Status::ok();
    for (;;) {
      SLUICE_ASSIGN_OR_RETURN(
          Token ref,
          cur_.expectKind(Tok::kValueRef, "an input ('%name:index')"));
      SLUICE_TRY(cur_.expect(':'));
      Token indexTok = cur_.peek();
      SLUICE_ASSIGN_OR_RETURN(AttrValue index,
                              detail::parseAttrValue(cur_, AttrType::kInt));
      const Node *src = g_->findNode(ref.text);
      if (!src) {
        if (ref.text == spec.name)
          return cur_.errorAt(ref, "node '" + ref.text +
                                       "' cannot read its own output");
        return cur_.errorAt(ref, "unknown node '%" + ref.text + "'");
      }
      int64_t i = std::get<int64_t>(index);
      if (i < 0 || i >= src->numOutputs())
        return cur_.errorAt(
            indexTok, "node '" + ref.text + "' has " +
                          std::to_string(src->numOutputs()) + " output" +
                          (src->numOutputs() == 1 ? "" : "s") + ", so output " +
                          std::to_string(i) + " does not exist");
      spec.inputs.push_back(Output{src->id(), static_cast<int>(i)});
      if (cur_.accept(')'))
        return Status::ok();
      if (!cur_.accept(','))
        return cur_.expected("',' or ')'");
    }
  }

  // Declared attrs go to addNode; undeclared ones must carry a type
  // annotation and are set on the node afterwards.
  Status parseAttrs(const OpDef &op, NodeSpec &spec, AttrMap &extra) {
    if (cur_.accept('}'))
      return Status::ok();
    for (;;) {
      Token nameTok = cur_.peek();
      if (nameTok.kind != Tok::kIdent && nameTok.kind != Tok::kString)
        return cur_.expected("an attribute name");
      cur_.next();
      const std::string &name = nameTok.text;
      if (spec.attrs.count(name) || extra.count(name))
        return cur_.errorAt(nameTok, "duplicate attribute '" + name + "'");
      const AttrDef *def = op.findAttr(name);
      std::optional<AttrType> type;
      if (cur_.accept(':')) {
        SLUICE_ASSIGN_OR_RETURN(type, detail::parseAttrType(cur_));
      }
      if (def && type && *type != def->type)
        return cur_.errorAt(nameTok, "attribute '" + name + "' of " + op.name +
                                         " is declared " +
                                         std::string(attrTypeName(def->type)) +
                                         ", not " +
                                         std::string(attrTypeName(*type)));
      if (!def && !type)
        return cur_.errorAt(nameTok, "op " + op.name + " has no attribute '" +
                                         name +
                                         "' (an extra attribute needs "
                                         "its type, as in '" +
                                         name + ": int = 1')");
      SLUICE_TRY(cur_.expect('='));
      SLUICE_ASSIGN_OR_RETURN(
          AttrValue value,
          detail::parseAttrValue(cur_, type ? *type : def->type));
      (def ? spec.attrs : extra)[name] = std::move(value);
      if (cur_.accept('}'))
        return Status::ok();
      if (!cur_.accept(','))
        return cur_.expected("',' or '}'");
    }
  }

  Status parseOutputs(std::vector<PrintedOutput> &outputs) {
    SLUICE_TRY(cur_.expect(':'));
    SLUICE_TRY(cur_.expect('('));
    if (cur_.accept(')'))
      return Status::ok();
    for (;;) {
      Token at = cur_.peek();
      SLUICE_ASSIGN_OR_RETURN(DType dtype, detail::parseDType(cur_));
      SLUICE_ASSIGN_OR_RETURN(Shape shape, detail::parseShapeBody(cur_));
      outputs.push_back(PrintedOutput{dtype, std::move(shape), std::move(at)});
      if (cur_.accept(')'))
        return Status::ok();
      if (!cur_.accept(','))
        return cur_.expected("',' or ')'");
    }
  }

  Expected<std::string> clauseString(const Token &kw, bool &seen) {
    if (seen)
      return cur_.errorAt(kw, "duplicate '" + kw.text + "' clause");
    seen = true;
    SLUICE_ASSIGN_OR_RETURN(Token s, cur_.expectKind(Tok::kString, "a string"));
    return std::move(s.text);
  }

  Status parseClauses(NodeSpec &spec) {
    bool seenReq = false, seenAssigned = false, seenColoc = false,
         seenLoc = false;
    assigned_.clear();
    for (;;) {
      Token kw = cur_.peek();
      if (cur_.accept('@')) {
        SLUICE_ASSIGN_OR_RETURN(spec.requestedDevice,
                                clauseString(kw, seenReq));
      } else if (cur_.isIdent("assigned")) {
        cur_.next();
        SLUICE_ASSIGN_OR_RETURN(assigned_, clauseString(kw, seenAssigned));
      } else if (cur_.isIdent("colocate")) {
        cur_.next();
        if (seenColoc)
          return cur_.errorAt(kw, "duplicate 'colocate' clause");
        seenColoc = true;
        SLUICE_ASSIGN_OR_RETURN(
            AttrValue names,
            detail::parseAttrValue(cur_, AttrType::kStringList));
        spec.colocateWith =
            std::get<std::vector<std::string>>(std::move(names));
      } else if (cur_.isIdent("loc")) {
        cur_.next();
        if (seenLoc)
          return cur_.errorAt(kw, "duplicate 'loc' clause");
        seenLoc = true;
        SLUICE_ASSIGN_OR_RETURN(spec.loc, parseLoc());
      } else {
        return Status::ok();
      }
    }
  }

  // loc("file":line:col)
  Expected<SourceLoc> parseLoc() {
    SLUICE_TRY(cur_.expect('('));
    SLUICE_ASSIGN_OR_RETURN(Token file,
                            cur_.expectKind(Tok::kString, "a file name"));
    int pos[2];
    for (int k = 0; k < 2; ++k) {
      SLUICE_TRY(cur_.expect(':'));
      Token t = cur_.peek();
      SLUICE_ASSIGN_OR_RETURN(AttrValue v,
                              detail::parseAttrValue(cur_, AttrType::kInt));
      int64_t x = std::get<int64_t>(v);
      if (x < (k == 0 ? 1 : 0) || x > INT32_MAX)
        return cur_.errorAt(t, std::string(k == 0 ? "line" : "column") +
                                   " number " + std::to_string(x) +
                                   " is out of range");
      pos[k] = static_cast<int>(x);
    }
    SLUICE_TRY(cur_.expect(')'));
    auto &shared = files_[file.text];
    if (!shared)
      shared = std::make_shared<const std::string>(file.text);
    return SourceLoc{shared, pos[0], pos[1]};
  }

  // A count attr sizes an output list before the shape function runs;
  // bounding it by the listed outputs keeps a corrupt count from
  // allocating billions of outputs.
  Status checkOutputCounts(const OpDef &op, const NodeSpec &spec, size_t listed,
                           const Token &at) {
    for (const ArgDef &arg : op.outputs) {
      if (arg.numberAttr.empty())
        continue;
      auto it = spec.attrs.find(arg.numberAttr);
      if (it == spec.attrs.end() ||
          !std::holds_alternative<int64_t>(it->second))
        continue;
      int64_t n = std::get<int64_t>(it->second);
      if (n < 0 || static_cast<uint64_t>(n) > listed)
        return cur_.errorAt(at, "attribute '" + arg.numberAttr + "' = " +
                                    std::to_string(n) + " does not fit the " +
                                    std::to_string(listed) + " outputs listed");
    }
    return Status::ok();
  }

  Status matchOutputs(Node &n, const std::vector<PrintedOutput> &outputs,
                      const Token &at) {
    if (static_cast<int>(outputs.size()) != n.numOutputs())
      return cur_.errorAt(
          at, "node '" + n.name() + "' has " + std::to_string(n.numOutputs()) +
                  " output" + (n.numOutputs() == 1 ? "" : "s") +
                  " but the text lists " + std::to_string(outputs.size()));
    for (int i = 0; i < n.numOutputs(); ++i) {
      const PrintedOutput &p = outputs[i];
      if (p.dtype != n.outputType(i))
        return cur_.errorAt(
            p.at, "output " + std::to_string(i) + " of '" + n.name() +
                      "' has dtype " + std::string(dtypeName(n.outputType(i))) +
                      ", but the text says " + std::string(dtypeName(p.dtype)));
      if (!n.outputShape(i).isCompatibleWith(p.shape))
        return cur_.errorAt(
            p.at, "output " + std::to_string(i) + " of '" + n.name() +
                      "' has shape " + n.outputShape(i).str() +
                      ", incompatible with " + p.shape.str() + " in the text");
      n.setOutputShape(i, p.shape);
    }
    return Status::ok();
  }

  Cursor cur_;
  Graph *g_ = nullptr;
  std::string assigned_;
  std::vector<DeferredControls> deferred_;
  std::map<std::string, std::shared_ptr<const std::string>> files_;
};

} // namespace

Expected<std::unique_ptr<Graph>> parseGraph(std::string_view text,
                                            const std::string &fileName) {
  auto file = std::make_shared<const std::string>(fileName);
  SLUICE_ASSIGN_OR_RETURN(std::vector<Token> toks, detail::lexSir(text, file));
  return GraphParser(toks, file).run();
}

Expected<AttrValue> parseAttr(std::string_view text, AttrType type) {
  auto file = std::make_shared<const std::string>("<attr>");
  SLUICE_ASSIGN_OR_RETURN(std::vector<Token> toks, detail::lexSir(text, file));
  Cursor cur(toks, file);
  SLUICE_ASSIGN_OR_RETURN(AttrValue v, detail::parseAttrValue(cur, type));
  while (cur.peek().kind == Tok::kNewline)
    cur.next();
  if (cur.peek().kind != Tok::kEof)
    return cur.expected("end of the value");
  return v;
}

} // namespace sluice::ir
