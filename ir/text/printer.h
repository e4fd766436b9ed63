// ir/text/printer.h: the textual IR (.sir), one line per node.
#pragma once

#include <string>

#include "ir/graph.h"

namespace sluice::ir {

/// Prints `g` as deterministic text that parseGraph reads back to an equal
/// graph (printing that graph again gives the same bytes). Format:
///
///   # sluice ir v1
///   %x = placeholder() {dtype = f32, shape = shape[2, ?]} : (f32 [2, ?])
///   @"/job:worker" loc("a.sluice":3:5) %y = add(%x:0, %x:0) ^%init {T = f32} :
///   (f32 [2, ?]) assigned "/job:worker/task:0/device:CPU:0"
///
/// Per node: `%name = op(inputs) ^controls {attrs} : (output types)`, then
/// optional clauses `@"requested device"`, `assigned "device"`,
/// `colocate ["node", ...]`, `loc("file":line:col)`. Names that are not
/// [A-Za-z0-9_./-]+ are quoted (`%"a b"`). Attrs print with formatAttr; an
/// attr that its OpDef does not declare with that type is annotated
/// (`_class: list(string) = [...]`). Nodes print in id order when that is
/// a topological order, else in topological order.
std::string printGraph(const Graph &g);

/// One node's line, without the newline.
std::string printNode(const Graph &g, const Node &n);

} // namespace sluice::ir
