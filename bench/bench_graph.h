// bench/bench_graph.h: graphs built op by op for the benchmarks; a
// benchmark whose graph does not build says why and exits.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace sluice::bench {

inline ir::Output addOp(ir::Graph &g, const std::string &op, std::vector<ir::Output> inputs,
                        ir::AttrMap attrs = {}) {
  ir::NodeSpec spec;
  spec.name = g.uniqueName(op);
  spec.op = op;
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  auto n = g.addNode(std::move(spec));
  if (!n.hasValue()) {
    std::fprintf(stderr, "%s\n", n.status().toString().c_str());
    std::exit(1);
  }
  return {(*n)->id(), 0};
}

inline ir::Output scalarF32(ir::Graph &g, float v) {
  return addOp(g, "constant", {},
               {{"value", ir::Tensor::scalar<float>(v)}, {"dtype", ir::DType::kF32}});
}

} // namespace sluice::bench
