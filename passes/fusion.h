// passes/fusion.h: the fusion pass: groups connected elementwise ops into
// clusters, each replaced by one `fused` node whose body is a graph
// function (run by backend/cpu/fused_kernels.cc or backend/jit/).
#pragma once

#include <string>
#include <string_view>

#include "passes/pass.h"

namespace sluice::passes {

/// "fusion" (in the pipeline with PipelineOptions::fuse). A cluster holds two
/// or more connected fusible ops (elementwise math, comparisons, logical
/// ops, cast, select, add_n, broadcast_to, and at most one reduction
/// (reduce_sum/mean/max/min of f32, f64, i32, i64) as its last op, when
/// nothing else reads the value it reduces; nothing joins after it) on one
/// device, with fully known
/// static shapes, no control inputs, no fed outputs and nothing stateful;
/// it is never formed where contracting it would make a cycle (through
/// data or control edges, or through other clusters). Each member value
/// read outside the cluster, or fetched, is an output of the fused node;
/// control uses of members wait on the fused node. The replaced nodes lose
/// their consumers; the next prune drops them.
std::unique_ptr<Pass> createFusionPass();

/// Whether `n` may join a cluster (the op and dtype rules above; shapes,
/// feeds and devices are checked by the pass).
bool isFusibleOp(const ir::Node &n);

/// The op-and-dtype half of isFusibleOp, without a node: whether a node of
/// `op` whose outputs are `t` may join a cluster (the op reference lists
/// the dtypes for which it holds).
bool isFusibleOpType(std::string_view op, ir::DType t);

/// `--emit fused`: one comment block per fused node of `g` (its function,
/// device, the nodes it replaced, its inputs and outputs with shapes),
/// so the text stays valid .sir when followed by the graph.
std::string describeClusters(const ir::Graph &g);

} // namespace sluice::passes
