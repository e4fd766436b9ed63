// tests/frontend/parser_test.cc: every construct of the language parses into the expected AST.
#include "tests/frontend/parse_helpers.h"

namespace sluice::frontend::testing {
namespace {

TEST(ParserLiterals, Numbers) {
  EXPECT_EQ(expr("42"), "42");
  EXPECT_EQ(expr("0x1F"), "31");
  EXPECT_EQ(expr("18446744073709551615"), "18446744073709551615");
  EXPECT_EQ(expr("1.0"), "f1.0");
  EXPECT_EQ(expr("1e-3"), "f1e-3");
  EXPECT_EQ(expr(".5"), "f.5");
  EXPECT_EQ(expr("1."), "f1.");
  EXPECT_EQ(expr("2.5E+10"), "f2.5E+10");
  auto r = parse("x = 1.5e3");
  auto *a = static_cast<const AssignStmt *>(r->module->body[0].get());
  auto *f = static_cast<const FloatExpr *>(a->value.get());
  EXPECT_DOUBLE_EQ(f->value, 1500.0);
}

TEST(ParserLiterals, StringsAndConstants) {
  EXPECT_EQ(expr(R"("a\"b\\c\n\r\t\x41")"), "\"a\"b\\c\n\r\tA\"");
  EXPECT_EQ(expr(R"(r"a\nb\d")"), R"("a\nb\d")");
  EXPECT_EQ(expr(R"("")"), R"("")");
  EXPECT_EQ(expr("true"), "true");
  EXPECT_EQ(expr("false"), "false");
  EXPECT_EQ(expr("none"), "none");
  EXPECT_EQ(expr("\"\\x00\"").size(), 3u); // an embedded NUL survives
}

TEST(ParserExpressions, Precedence) {
  EXPECT_EQ(expr("1 + 2 * 3"), "(+ 1 (* 2 3))");
  EXPECT_EQ(expr("1 - 2 - 3"), "(- (- 1 2) 3)");
  EXPECT_EQ(expr("a / b // c % d @ e"), "(@ (% (// (/ a b) c) d) e)");
  EXPECT_EQ(expr("2 ** 3 ** 2"), "(** 2 (** 3 2))");
  EXPECT_EQ(expr("-2 ** 2"), "(neg (** 2 2))");
  EXPECT_EQ(expr("2 ** -1"), "(** 2 (neg 1))");
  EXPECT_EQ(expr("a ** -b ** c"), "(** a (neg (** b c)))");
  EXPECT_EQ(expr("--+x"), "(neg (neg (pos x)))");
  EXPECT_EQ(expr("-x * y"), "(* (neg x) y)");
  EXPECT_EQ(expr("a or b and not c"), "(or a (and b (not c)))");
  EXPECT_EQ(expr("not a == b"), "(not (== a b))");
  EXPECT_EQ(expr("not not a"), "(not (not a))");
  EXPECT_EQ(expr("a < b + 1"), "(< a (+ b 1))");
  EXPECT_EQ(expr("a == b != c"), "(!= (== a b) c)");
  EXPECT_EQ(expr("a <= b"), "(<= a b)");
  EXPECT_EQ(expr("a >= b"), "(>= a b)");
  EXPECT_EQ(expr("a > b"), "(> a b)");
  EXPECT_EQ(expr("x in xs"), "(in x xs)");
  EXPECT_EQ(expr("x not in xs"), "(not-in x xs)");
  EXPECT_EQ(expr("(1 + 2) * 3"), "(* (+ 1 2) 3)");
}

TEST(ParserExpressions, Postfix) {
  EXPECT_EQ(expr("f()"), "(call f)");
  EXPECT_EQ(expr("f(1, x: 2,)"), "(call f 1 x=2)");
  EXPECT_EQ(expr("q.enqueue(x).name"), "(. (call (. q enqueue) x) name)");
  EXPECT_EQ(expr("d[\"k\"]"), "(index d \"k\")");
  EXPECT_EQ(expr("x[a:b]"), "(index x (slice a b _))");
  EXPECT_EQ(expr("x[a:b:c]"), "(index x (slice a b c))");
  EXPECT_EQ(expr("x[:]"), "(index x (slice _ _ _))");
  EXPECT_EQ(expr("x[::2]"), "(index x (slice _ _ 2))");
  EXPECT_EQ(expr("x[1:]"), "(index x (slice 1 _ _))");
  EXPECT_EQ(expr("x[:, 1]"), "(index x (slice _ _ _) 1)");
  EXPECT_EQ(expr("x[1, 2:]"), "(index x 1 (slice 2 _ _))");
  EXPECT_EQ(expr("f(a)(b)[0]"), "(index (call (call f a) b) 0)");
  EXPECT_EQ(expr("-x.y"), "(neg (. x y))");
  EXPECT_EQ(expr("expect_error"), "expect_error");
  EXPECT_EQ(expr("h.expect_error"), "(. h expect_error)");
}

TEST(ParserExpressions, Displays) {
  EXPECT_EQ(expr("[]"), "[]");
  EXPECT_EQ(expr("[1, 2, 3,]"), "[1 2 3]");
  EXPECT_EQ(expr("[[1], [2]]"), "[[1] [2]]");
  EXPECT_EQ(expr("()"), "(tuple)");
  EXPECT_EQ(expr("(a,)"), "(tuple a)");
  EXPECT_EQ(expr("(a, b)"), "(tuple a b)");
  EXPECT_EQ(expr("(a)"), "a");
  EXPECT_EQ(expr("{}"), "(dict)");
  EXPECT_EQ(expr("{\"a\": 1, b: [2],}"), "(dict \"a\":1 b:[2])");
  EXPECT_EQ(expr("{\n  \"ps\": [\"a:1\",\n         \"b:2\"],\n  \"worker\": 3,\n}"),
            "(dict \"ps\":[\"a:1\" \"b:2\"] \"worker\":3)");
  EXPECT_EQ(expr("{\n}"), "(dict)");
  EXPECT_EQ(expr("{a:\n 1\n ,\n b: 2}"), "(dict a:1 b:2)");
}

TEST(ParserExpressions, Comprehensions) {
  EXPECT_EQ(expr("[f(i) for i in range(5) if i > 0]"),
            "(comp (call f i) (for i (call range 5) (if (> i 0))))");
  EXPECT_EQ(expr("[x + y for x in xs for y in ys if x if y]"),
            "(comp (+ x y) (for x xs) (for y ys (if x) (if y)))");
  EXPECT_EQ(expr("[a for a, b in pairs]"), "(comp a (for (tuple a b) pairs))");
  EXPECT_EQ(expr("[[i for i in r] for r in rows]"),
            "(comp (comp i (for i r)) (for r rows))");
}

TEST(ParserExpressions, SpawnAndExpectError) {
  EXPECT_EQ(parseOk("h = spawn { x = 1\n y }"), "{(= h (spawn {(= x 1); y}))}");
  EXPECT_EQ(parseOk("h = spawn(name: \"feeder\") {\n  run(op)\n}"),
            "{(= h (spawn name=\"feeder\" {(call run op)}))}");
  EXPECT_EQ(parseOk("expect_error(value_error, \"bad\") {\n  f(1)\n}"),
            "{(call expect_error value_error \"bad\" {(call f 1)})}");
  EXPECT_EQ(parseOk("expect_error(any, [\"a\", \"b\"]) { }"),
            "{(call expect_error any [\"a\" \"b\"] {})}");
  // Without a block it is a plain call; other calls never take a block.
  EXPECT_EQ(parseOk("expect_error(x)"), "{(call expect_error x)}");
  EXPECT_EQ(parseOk("if f(x) { y }"), "{(if (call f x) {y})}");
}

TEST(ParserStatements, Assignments) {
  EXPECT_EQ(parseOk("x = 1"), "{(= x 1)}");
  EXPECT_EQ(parseOk("a, b = f()"), "{(= (tuple a b) (call f))}");
  EXPECT_EQ(parseOk("(a, b) = t"), "{(= (tuple a b) t)}");
  EXPECT_EQ(parseOk("[a, b] = t"), "{(= [a b] t)}");
  EXPECT_EQ(parseOk("a, = t"), "{(= (tuple a) t)}");
  EXPECT_EQ(parseOk("x = 1, 2"), "{(= x (tuple 1 2))}");
  EXPECT_EQ(parseOk("d[\"k\"] = v"), "{(= (index d \"k\") v)}");
  EXPECT_EQ(parseOk("o.f = v"), "{(= (. o f) v)}");
  EXPECT_EQ(parseOk("x += 1; y -= 2; z *= 3; w /= 4"),
            "{(+= x 1); (-= y 2); (*= z 3); (/= w 4)}");
  EXPECT_EQ(parseOk("d[i] += 1"), "{(+= (index d i) 1)}");
}

TEST(ParserStatements, FunctionsAndControlFlow) {
  EXPECT_EQ(parseOk("fn f(a, b: 2) {\n  return a + b\n}"),
            "{(fn f (a b=2) {(return (+ a b))})}");
  EXPECT_EQ(parseOk("fn g() { return }"), "{(fn g () {(return)})}");
  EXPECT_EQ(parseOk("fn g(a,) { return a, b }"), "{(fn g (a) {(return (tuple a b))})}");
  EXPECT_EQ(parseOk("if a { x } else if b { y } else if c { z } else { w }"),
            "{(if a {x} elif b {y} elif c {z} else {w})}");
  EXPECT_EQ(parseOk("if a {\n x\n}\nelse {\n y\n}"), "{(if a {x} else {y})}");
  EXPECT_EQ(parseOk("if a { x }\ny"), "{(if a {x}); y}");
  EXPECT_EQ(parseOk("for x in xs { print(x) }"), "{(for x xs {(call print x)})}");
  EXPECT_EQ(parseOk("for a, b in pairs { }"), "{(for (tuple a b) pairs {})}");
  EXPECT_EQ(parseOk("while true { break\n continue }"), "{(while true {break; continue})}");
}

TEST(ParserStatements, BlocksWithSessionsTryImportTest) {
  EXPECT_EQ(parseOk("with device(\"/cpu:0\"), name_scope(\"a\") as s { x }"),
            "{(with (call device \"/cpu:0\") (call name_scope \"a\") as s {x})}");
  EXPECT_EQ(parseOk("session { run(x) }"), "{(session {(call run x)})}");
  EXPECT_EQ(parseOk("session(config: c) { }"), "{(session config=c {})}");
  EXPECT_EQ(parseOk("session(target: t) as sess { sess.close() }"),
            "{(session target=t as sess {(call (. sess close))})}");
  EXPECT_EQ(parseOk("session as sess { }"), "{(session as sess {})}");
  EXPECT_EQ(parseOk("try { f() } catch out_of_range as e { g(e) } catch any { }"),
            "{(try {(call f)} (catch out_of_range as e {(call g e)}) (catch any {}))}");
  EXPECT_EQ(parseOk("try {\n f()\n}\ncatch cancelled {\n}"),
            "{(try {(call f)} (catch cancelled {}))}");
  EXPECT_EQ(parseOk("import \"common.sluice\""), "{(import \"common.sluice\")}");
  EXPECT_EQ(parseOk("test \"adds\" {\n expect_eq(1 + 1, 2)\n}"),
            "{(test \"adds\" {(call expect_eq (+ 1 1) 2)})}");
  EXPECT_EQ(parseOk("fixture csv {\n use dir, q\n teardown { close() }\n}"),
            "{(fixture csv {(use dir q); (teardown {(call close)})})}");
}

TEST(ParserStatements, NewlinesAndComments) {
  EXPECT_EQ(parseOk("# comment\n\nx = 1 # trailing\n\n\ny = 2\n"), "{(= x 1); (= y 2)}");
  EXPECT_EQ(parseOk("x = f(1,\n      2)\ny = [1,\n 2]"), "{(= x (call f 1 2)); (= y [1 2])}");
  EXPECT_EQ(parseOk("x = 1;; y = 2;"), "{(= x 1); (= y 2)}");
  EXPECT_EQ(parseOk("f(spawn {\n a\n b\n})"), "{(call f (spawn {a; b}))}");
  EXPECT_EQ(parseOk("x = 1\r\ny = 2\r\n"), "{(= x 1); (= y 2)}");
  EXPECT_EQ(parseOk(""), "{}");
  EXPECT_EQ(parseOk("\n\n# only a comment"), "{}");
}

TEST(ParserLocations, FirstTokenOneBased) {
  auto r = parse("x = 1\n  y = f(a,\n    b: 2)\n\tz");
  ASSERT_FALSE(r->diags.hasErrors()) << r->printed();
  const Block &b = r->module->body;
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0]->loc.line, 1);
  EXPECT_EQ(b[0]->loc.col, 1);
  EXPECT_EQ(*b[0]->loc.file, "t.sluice");
  auto *a = static_cast<const AssignStmt *>(b[1].get());
  EXPECT_EQ(a->loc.line, 2);
  EXPECT_EQ(a->loc.col, 3);
  auto *call = static_cast<const CallExpr *>(a->value.get());
  EXPECT_EQ(call->loc.line, 2);
  EXPECT_EQ(call->loc.col, 7);
  ASSERT_EQ(call->args.size(), 2u);
  EXPECT_EQ(call->args[1].loc.line, 3);
  EXPECT_EQ(call->args[1].loc.col, 5);
  EXPECT_EQ(call->args[1].value->loc.col, 8);
  EXPECT_EQ(b[2]->loc.line, 4);
  EXPECT_EQ(b[2]->loc.col, 2);
  auto r2 = parse("y = -a + b");
  auto *bin = static_cast<const BinaryExpr *>(
      static_cast<const AssignStmt *>(r2->module->body[0].get())->value.get());
  EXPECT_EQ(bin->loc.col, 5);
  EXPECT_EQ(bin->lhs->loc.col, 5);
  EXPECT_EQ(bin->rhs->loc.col, 10);
}

TEST(ParserModule, KeepsPathAndSource) {
  auto r = parse("x = 1", "dir/a.sluice");
  EXPECT_EQ(*r->module->path, "dir/a.sluice");
  EXPECT_EQ(*r->module->source, "x = 1");
}

TEST(ParserExample, SeedPipeline) {
  const char *src = R"(filename_queue = fifo_queue(capacity: 10, dtypes: [string], shapes: [[]])
filename = placeholder(string)
enqueue_filename = filename_queue.enqueue(filename)
close_filename_queue = filename_queue.close()

instance_queue = random_shuffle_queue(capacity: 10, min_after_dequeue: 2,
    dtypes: [f32, i32], shapes: [[2], []],
    name: "instance_q", shared_name: "shared_instance_q")
minibatch_instances, minibatch_targets = instance_queue.dequeue_up_to(2)

fn read_and_push_instance(filename_queue, instance_queue) {
    reader = text_line_reader(skip_header_lines: 1)
    key, value = reader.read(filename_queue)
    x1, x2, target = decode_csv(value, record_defaults: [[-1.0], [-1.0], [-1]])
    features = stack([x1, x2])
    return instance_queue.enqueue([features, target])
}
read_and_enqueue_ops = [read_and_push_instance(filename_queue, instance_queue) for i in range(5)]
runner = queue_runner(instance_queue, read_and_enqueue_ops)

session {
    run(enqueue_filename, feed: {filename: "my_test.csv"})
    run(close_filename_queue)
    coord = coordinator()
    threads = runner.create_threads(coord, start: true)
    try {
        while true { print(run([minibatch_instances, minibatch_targets])) }
    } catch out_of_range {
        print("No more training instances")
    }
}
)";
  auto r = parse(src);
  EXPECT_FALSE(r->diags.hasErrors()) << r->printed();
  ASSERT_EQ(r->module->body.size(), 10u);
  EXPECT_EQ(r->module->body[9]->kind, StmtKind::kSession);
  EXPECT_EQ(dump(r->module->body[6].get()),
            "(fn read_and_push_instance (filename_queue instance_queue) {"
            "(= reader (call text_line_reader skip_header_lines=1)); "
            "(= (tuple key value) (call (. reader read) filename_queue)); "
            "(= (tuple x1 x2 target) (call decode_csv value record_defaults=[[(neg f1.0)] "
            "[(neg f1.0)] [(neg 1)]])); "
            "(= features (call stack [x1 x2])); "
            "(return (call (. instance_queue enqueue) [features target]))})");
}

} // namespace
} // namespace sluice::frontend::testing
