// frontend/eval/cluster_objects.h: cluster_spec(...) values and the `task`
// value (which task of the cluster this graph is built for).
#pragma once

#include "frontend/eval/interp.h"
#include "tflib/cluster/tf_config.h"

namespace sluice::frontend {

/// TF's tf.train.ClusterSpec.
class ClusterSpecObject : public Object {
public:
  explicit ClusterSpecObject(rt::ClusterSpec c) : spec(std::move(c)) {}
  std::string typeName() const override { return "cluster_spec"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  std::string repr() const override;
  bool equalsObject(const Object &o) const override;
  bool truthy() const override { return !spec.empty(); }
  rt::ClusterSpec spec;
};

/// `task` (from --task/--cluster or TF_CONFIG) and parse_tf_config's
/// result: TF's RunConfig task fields.
class TaskObject : public Object {
public:
  explicit TaskObject(tflib::TaskConfig c) : config(std::move(c)) {}
  std::string typeName() const override { return "task"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  std::string repr() const override {
    return "<task " + config.type + ":" + std::to_string(config.index) + ">";
  }
  tflib::TaskConfig config;
};

/// A ClusterSpec from a language value: a dict of job -> list of
/// addresses or dict of index -> address, a cluster_spec, or none.
rt::ClusterSpec toClusterSpec(EvaluatorImpl &ev, const Value &v, const SourceLoc &loc);

} // namespace sluice::frontend
