// passes/cost_model.h: a static estimate of what one step of a placed graph
// costs: the bytes crossing each ordered pair of devices, the parameter
// bytes each task holds, the FLOPs each device computes, and warnings when
// the placement looks costly (`sluice compile --emit cost`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace sluice::passes {

/// A count whose unknown dims stay symbolic: a sum of terms c*?^k, where
/// each `?` is one unknown dimension and all of them are taken as the same
/// unknown (in TF1 graphs nearly always the batch size), plus how many
/// contributions have no static size at all (unknown rank, string, resource
/// or variant elements, or a size past 2^63), which the sum leaves out.
struct SymbolicCount {
  /// terms[k]: the coefficient of ?^k; terms[0] is the known part. No zero
  /// coefficients are stored.
  std::map<int, int64_t> terms;
  int unsized = 0;

  /// c*?^k (nothing for c == 0); unsized when c is negative.
  static SymbolicCount monomial(int64_t coefficient, int degree);
  static SymbolicCount unsizedOne();
  /// Adds term by term; a coefficient that would pass 2^63 is dropped and
  /// counted as unsized.
  SymbolicCount &operator+=(const SymbolicCount &o);
  int64_t known() const;
  /// Only a known part: no `?` terms and nothing unsized.
  bool isExact() const;
  /// "0", "31360", "3136*?", "40 + 3136*? + 16*?^2", "40 + unsized(2)".
  std::string str() const;
};

/// What crosses from one device to another per step.
struct DeviceTransfer {
  std::string from, to;
  /// Values moved: one per (tensor, destination device), as the partitioner
  /// makes one send/recv pair for each; a control edge counts as one
  /// value of 0 bytes (the partitioner sends an empty float tensor).
  int tensors = 0;
  SymbolicCount bytes;
};

/// The state one task holds.
struct TaskParameters {
  std::string task; // "/job:ps/replica:0/task:0"
  int variables = 0;
  SymbolicCount bytes;
};

struct DeviceCompute {
  std::string device;
  SymbolicCount flops;
};

struct CostReport {
  /// Ordered pairs that exchange anything, sorted by (from, to).
  std::vector<DeviceTransfer> transfers;
  /// Tasks holding variables, and every ps task (empty ones too), by name.
  std::vector<TaskParameters> parameters;
  /// Every device of the options and of the graph, by name.
  std::vector<DeviceCompute> compute;
  SymbolicCount totalBytes, totalParameters, totalFlops;
  /// Located findings (shown as warnings, errors under --Werror).
  std::vector<Status> warnings;
};

struct CostOptions {
  /// The device set the graph was placed on, so that idle devices and ps
  /// tasks holding nothing are reported (and counted by the ps balance
  /// warning) too.
  std::vector<std::string> devices;
};

/// The FLOPs the report counts for one node: matmul 2*M*N*K; elementwise
/// ops (arithmetic, comparisons, logic, unary math, cast, select) 1 per
/// output element, add_n N-1 per output element; reductions and
/// argmax/argmin 1 per input element; softmax and log_softmax 5 per element
/// (max, subtract, exp, sum, divide or log); assign_add/assign_sub 1 per
/// element; every other op 0.
SymbolicCount nodeFlops(const ir::Graph &g, const ir::Node &n);

/// Estimates one step of the placed graph `g` (every node run once).
/// Parameters are the nodes that output a resource and declare `shape` and
/// `dtype` attrs (variables): elements * dtype size, by assigned task.
/// Fails (invalid_argument naming the node) if a node has no assigned
/// device.
///
/// Warnings:
/// - ps imbalance: with at least 2 ps tasks, the busiest holds more than
///   half of the ps tasks' known parameter bytes and more than 1.5 times
///   the even share (so with 2 tasks, more than 75%); located at its
///   largest variable.
/// - transfer-bound step: the bytes crossing devices exceed the step's
///   FLOPs whatever the unknown dims are (term by term: every coefficient
///   of bytes - FLOPs is >= 0 and their sum is > 0; never when some FLOPs
///   are unsized); located at the first node that reads the largest
///   transfer. The whole step is compared, not each receiving device: a ps
///   task applying gradients always receives more bytes than it computes.
Expected<CostReport> estimateCost(const ir::Graph &g, const CostOptions &opts = {});

/// The report as aligned tables: transfers, parameters per task, FLOPs per
/// device, with a line explaining the notation when anything is symbolic.
std::string formatCostReport(const CostReport &r);

} // namespace sluice::passes
