// ir/grads/math_grads.cc: gradient rules of the elementwise math ops (TF's
// math_grad.py). Broadcast operands get their gradient summed back to
// their own shape.
#include "ir/gradients.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

using B = GradBuilder;

// z = f(x, y) with dz/dx = gx(dy), dz/dy = gy(dy), both then reduced to
// their operand's shape.
void binaryRule(B &b, Output gx, Output gy) {
  b.setInputGrad(0, b.sumToShapeOf(gx, b.input(0)));
  b.setInputGrad(1, b.sumToShapeOf(gy, b.input(1)));
}

} // namespace

void registerMathGradients(OpRegistry &reg) {
  reg.setGradient("add", [](B &b) {
    Output dy = *b.grad(0);
    binaryRule(b, dy, dy);
  });
  reg.setGradient("subtract", [](B &b) {
    Output dy = *b.grad(0);
    binaryRule(b, dy, b.op("negative", {dy}));
  });
  reg.setGradient("multiply", [](B &b) {
    Output dy = *b.grad(0);
    binaryRule(b, b.op("multiply", {dy, b.input(1)}, {}, "mul_x"),
               b.op("multiply", {b.input(0), dy}, {}, "mul_y"));
  });
  reg.setGradient("divide", [](B &b) {
    // d(x/y) = dy/y, -dy*x/y^2 (float dtypes only: ints do not carry one).
    Output dy = *b.grad(0), x = b.input(0), y = b.input(1);
    Output gy = b.op("negative",
                     {b.op("divide", {b.op("divide", {b.op("multiply", {dy, x}), y}), y})});
    binaryRule(b, b.op("divide", {dy, y}), gy);
  });
  reg.setGradient("pow", [](B &b) {
    // x^y: dx = dy * y * x^(y-1); dy = dy * z * log(x), 0 where x <= 0.
    Output dy = *b.grad(0), x = b.input(0), y = b.input(1), z = b.output(0);
    DType t = b.inputType(0);
    Output one = b.scalar(1, t), zero = b.scalar(0, t);
    Output gx = b.op("multiply",
                     {dy, b.op("multiply", {y, b.op("pow", {x, b.op("subtract", {y, one})})})});
    Output positive = b.op("greater", {x, zero});
    Output safeX = b.op("select", {positive, x, b.op("ones_like", {x})});
    Output logX = b.op("select", {positive, b.op("log", {safeX}), b.zerosLike(x)});
    binaryRule(b, gx, b.op("multiply", {dy, b.op("multiply", {z, logX})}));
  });
  for (const char *name : {"maximum", "minimum"}) {
    bool isMax = std::string(name) == "maximum";
    reg.setGradient(name, [isMax](B &b) {
      // The gradient goes to x where x wins (ties to x), else to y.
      Output dy = *b.grad(0), x = b.input(0), y = b.input(1);
      Output xWins = b.op(isMax ? "greater_equal" : "less_equal", {x, y});
      Output zeros = b.zerosLike(dy);
      binaryRule(b, b.op("select", {xWins, dy, zeros}, {}, "select_x"),
                 b.op("select", {xWins, zeros, dy}, {}, "select_y"));
    });
  }
  reg.setGradient("squared_difference", [](B &b) {
    Output dy = *b.grad(0);
    Output two = b.scalar(2, b.inputType(0));
    Output g = b.op("multiply", {dy, b.op("multiply", {two, b.op("subtract", {b.input(0), b.input(1)})})});
    binaryRule(b, g, b.op("negative", {g}));
  });

  reg.setGradient("negative", [](B &b) { b.setInputGrad(0, b.op("negative", {*b.grad(0)})); });
  reg.setGradient("abs", [](B &b) {
    b.setInputGrad(0, b.op("multiply", {*b.grad(0), b.op("sign", {b.input(0)})}));
  });
  reg.setGradient("square", [](B &b) {
    Output two = b.scalar(2, b.inputType(0));
    b.setInputGrad(0, b.op("multiply", {*b.grad(0), b.op("multiply", {two, b.input(0)})}));
  });
  reg.setGradient("sqrt", [](B &b) {
    // 0.5 / sqrt(x), from the output.
    Output half = b.scalar(0.5, b.inputType(0));
    b.setInputGrad(0, b.op("divide", {b.op("multiply", {*b.grad(0), half}), b.output(0)}));
  });
  reg.setGradient("rsqrt", [](B &b) {
    // -0.5 * x^-1.5 = -0.5 * y^3.
    Output y = b.output(0);
    Output y3 = b.op("multiply", {y, b.op("square", {y})});
    Output k = b.scalar(-0.5, b.inputType(0));
    b.setInputGrad(0, b.op("multiply", {*b.grad(0), b.op("multiply", {k, y3})}));
  });
  reg.setGradient("exp", [](B &b) {
    b.setInputGrad(0, b.op("multiply", {*b.grad(0), b.output(0)}));
  });
  reg.setGradient("log", [](B &b) {
    b.setInputGrad(0, b.op("divide", {*b.grad(0), b.input(0)}));
  });
  reg.setGradient("sigmoid", [](B &b) {
    b.setInputGrad(0, b.op("sigmoid_grad", {b.output(0), *b.grad(0)}));
  });
  reg.setGradient("tanh", [](B &b) {
    b.setInputGrad(0, b.op("tanh_grad", {b.output(0), *b.grad(0)}));
  });
  reg.setGradient("relu", [](B &b) {
    b.setInputGrad(0, b.op("relu_grad", {*b.grad(0), b.output(0)}));
  });
  reg.setGradient("cast", [](B &b) {
    // Between float types the gradient casts back; ints carry none.
    DType src = b.inputType(0);
    if (isFloating(src))
      b.setInputGrad(0, b.op("cast", {*b.grad(0)}, {{"dtype", src}}));
  });
  reg.setGradient("add_n", [](B &b) {
    for (int i = 0; i < b.numInputs(); ++i)
      b.setInputGrad(i, *b.grad(0));
  });
  reg.setGradient("select", [](B &b) {
    // The condition gets none; each branch where it was chosen.
    Output dy = *b.grad(0), c = b.input(0);
    Output zeros = b.zerosLike(dy);
    b.setInputGrad(1, b.op("select", {c, dy, zeros}, {}, "select_x"));
    b.setInputGrad(2, b.op("select", {c, zeros, dy}, {}, "select_y"));
  });
  // Piecewise constant: zero almost everywhere, TF's None.
  for (const char *name : {"sign", "floor", "ceil", "round", "floor_div", "mod", "equal",
                           "not_equal", "less", "less_equal", "greater", "greater_equal",
                           "logical_and", "logical_or", "logical_not", "argmax", "argmin",
                           "where"})
    reg.setNotDifferentiable(name);
}

} // namespace sluice::ir
