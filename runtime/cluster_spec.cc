// runtime/cluster_spec.cc: cluster queries and JSON reading.
#include "runtime/cluster_spec.h"

#include <charconv>

#include <nlohmann/json.hpp>

namespace sluice::rt {

namespace {

using json = nlohmann::json;

Status noJob(const std::string &job) {
  return valueError("No such job in cluster: '" + job + "'");
}

Expected<ClusterSpec> clusterFromJson(const json &j, const std::string &what) {
  ClusterSpec c;
  if (j.is_null())
    return c;
  if (!j.is_object())
    return invalidArgument(what + " must be an object of job name -> addresses");
  for (const auto &[job, tasks] : j.items()) {
    if (job.empty())
      return invalidArgument(what + ": a job name is empty");
    if (tasks.is_array()) {
      std::vector<std::string> addrs;
      for (const json &a : tasks) {
        if (!a.is_string())
          return invalidArgument(what + ": job '" + job + "' lists a non-string address " +
                                 a.dump());
        addrs.push_back(a.get<std::string>());
      }
      c.addJob(job, addrs);
    } else if (tasks.is_object()) {
      std::map<int, std::string> byIndex;
      for (const auto &[k, a] : tasks.items()) {
        auto i = parseTaskIndex(k);
        if (!i)
          return invalidArgument(what + ": job '" + job + "' has task index '" + k +
                                 "', which is not a non-negative integer");
        if (!a.is_string())
          return invalidArgument(what + ": job '" + job + "' task " + k +
                                 " has a non-string address " + a.dump());
        byIndex[*i] = a.get<std::string>();
      }
      c.addSparseJob(job, std::move(byIndex));
    } else {
      return invalidArgument(what + ": job '" + job +
                             "' must be a list of addresses or a dict of index -> address, got " +
                             tasks.dump());
    }
  }
  return c;
}

} // namespace

void ClusterSpec::addJob(const std::string &name, const std::vector<std::string> &addresses) {
  Job j;
  for (size_t i = 0; i < addresses.size(); ++i)
    j.tasks[static_cast<int>(i)] = addresses[i];
  jobs_[name] = std::move(j);
}

void ClusterSpec::addSparseJob(const std::string &name, std::map<int, std::string> tasks) {
  Job j;
  j.tasks = std::move(tasks);
  j.sparse = true;
  jobs_[name] = std::move(j);
}

std::vector<std::string> ClusterSpec::jobs() const {
  std::vector<std::string> out;
  for (const auto &[name, j] : jobs_)
    out.push_back(name);
  return out;
}

Expected<int> ClusterSpec::numTasks(const std::string &job) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end())
    return noJob(job);
  return static_cast<int>(it->second.tasks.size());
}

Expected<std::vector<int>> ClusterSpec::taskIndices(const std::string &job) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end())
    return noJob(job);
  std::vector<int> out;
  for (const auto &[i, a] : it->second.tasks)
    out.push_back(i);
  return out;
}

Expected<std::string> ClusterSpec::taskAddress(const std::string &job, int index) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end())
    return noJob(job);
  auto t = it->second.tasks.find(index);
  if (t == it->second.tasks.end())
    return valueError("No task with index " + std::to_string(index) + " in job '" + job + "'");
  return t->second;
}

Expected<std::vector<std::optional<std::string>>>
ClusterSpec::jobTasks(const std::string &job) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end())
    return noJob(job);
  std::vector<std::optional<std::string>> out;
  if (!it->second.tasks.empty())
    out.resize(static_cast<size_t>(it->second.tasks.rbegin()->first) + 1);
  for (const auto &[i, a] : it->second.tasks)
    out[static_cast<size_t>(i)] = a;
  return out;
}

bool ClusterSpec::operator==(const ClusterSpec &o) const {
  if (jobs_.size() != o.jobs_.size())
    return false;
  for (const auto &[name, j] : jobs_) {
    auto it = o.jobs_.find(name);
    if (it == o.jobs_.end() || it->second.tasks != j.tasks)
      return false;
  }
  return true;
}

std::vector<std::string> ClusterSpec::devices(int cpusPerTask) const {
  std::vector<std::string> out;
  for (const auto &[name, j] : jobs_)
    for (const auto &[i, a] : j.tasks)
      for (int c = 0; c < cpusPerTask; ++c)
        out.push_back("/job:" + name + "/replica:0/task:" + std::to_string(i) + "/device:CPU:" +
                      std::to_string(c));
  return out;
}

std::string clusterSpecToJson(const ClusterSpec &c) {
  json j = json::object();
  for (const auto &[name, job] : c.jobMap()) {
    bool dense = job.tasks.empty() || job.tasks.rbegin()->first + 1 == int(job.tasks.size());
    if (dense) {
      json list = json::array();
      for (const auto &[i, a] : job.tasks)
        list.push_back(a);
      j[name] = list;
    } else {
      json byIndex = json::object();
      for (const auto &[i, a] : job.tasks)
        byIndex[std::to_string(i)] = a;
      j[name] = byIndex;
    }
  }
  return j.dump();
}

Expected<ClusterSpec> clusterSpecFromJson(std::string_view text, const std::string &what) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded())
    return invalidArgument(what + " is not valid JSON");
  return clusterFromJson(j, what);
}

std::optional<int> parseTaskIndex(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < 0)
    return std::nullopt;
  return v;
}

} // namespace sluice::rt
