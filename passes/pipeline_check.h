// passes/pipeline_check.h: static checks of input pipelines: queues that
// are dequeued but never filled, readers whose filename queue nothing
// fills. Each finding is a located warning (an error under --Werror).
#pragma once

#include <memory>
#include <vector>

#include "ir/graph.h"
#include "passes/pass.h"

namespace sluice::passes {

/// The findings for `graph`, each a Status (code failed_precondition)
/// carrying the node and location it is about. Queues with a shared_name
/// are skipped: another graph or process may fill them.
std::vector<Status> checkPipelines(const ir::Graph &graph);

/// The pass form: appends the findings to PassContext::warnings.
std::unique_ptr<Pass> createPipelineCheckPass();

} // namespace sluice::passes
