// driver/partition_files.h: names and renders the files `sluice compile
// --emit partitions` writes, one textual IR file per device.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "passes/partition.h"

namespace sluice::driver {

/// A device name as a file-name stem: the leading '/' dropped and every
/// character other than [A-Za-z0-9_.-] made '_'
/// ("/job:ps/replica:0/task:0/device:CPU:0" -> "job_ps_replica_0_task_0_device_CPU_0").
std::string deviceFileStem(std::string_view device);

struct PartitionFile {
  std::string fileName; // stem + ".sir"; "_2", "_3"... added if stems collide
  std::string device;
  std::string text; // printGraph of the partition
  int nodes = 0, sends = 0, recvs = 0;
};

/// One file per partition, in device-name order.
std::vector<PartitionFile> partitionFiles(const passes::PartitionedGraph &split);

} // namespace sluice::driver
