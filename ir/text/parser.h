// ir/text/parser.h: reads the textual IR (.sir) written by printGraph.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ir/attr.h"
#include "ir/graph.h"
#include "support/status.h"

namespace sluice::ir {

/// Rebuilds a graph from .sir text through Graph::addNode, so dtypes and
/// static shapes are re-inferred and validated. A printed dtype must equal
/// the inferred one; a printed shape must be compatible with the inferred
/// one and is kept (a pass may have refined it). Every error is an
/// invalid_argument Status located at `fileName:line:col`.
Expected<std::unique_ptr<Graph>> parseGraph(std::string_view text,
                                            const std::string &fileName);

/// Reads one attribute value of `type` in formatAttr's syntax, e.g.
/// parseAttr("shape[2, ?]", AttrType::kShape). Errors are located in
/// "<attr>:1:col".
Expected<AttrValue> parseAttr(std::string_view text, AttrType type);

} // namespace sluice::ir
