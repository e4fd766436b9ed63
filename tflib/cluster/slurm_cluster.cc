// tflib/cluster/slurm_cluster.cc
#include "tflib/cluster/slurm_cluster.h"

#include <charconv>

namespace sluice::tflib {

namespace {

bool parseInt(std::string_view s, int &out) {
  if (s.empty() || s.size() > 9)
    return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && out >= 0;
}

// Splits at commas outside brackets.
std::vector<std::string> splitTopLevel(const std::string &s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '[')
      ++depth;
    else if (c == ']')
      --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

} // namespace

Expected<SlurmOptions> parseSlurmSpec(const std::string &spec) {
  SlurmOptions o;
  if (spec == "slurm")
    return o;
  if (spec.rfind("slurm:", 0) != 0)
    return invalidArgument("expected slurm or slurm:JOB=N,...; got '" + spec + "'");
  std::string rest = spec.substr(6);
  size_t start = 0;
  while (start <= rest.size()) {
    size_t comma = rest.find(',', start);
    std::string item = rest.substr(start, comma == std::string::npos ? std::string::npos
                                                                     : comma - start);
    auto eq = item.find('=');
    int n = 0;
    if (eq == std::string::npos || eq == 0 || !parseInt(std::string_view(item).substr(eq + 1), n))
      return invalidArgument("'" + item + "' in '" + spec + "' is not JOB=COUNT");
    std::string name = item.substr(0, eq);
    if (name == "port_base") {
      if (n <= 0 || n > 65535)
        return invalidArgument("port_base must be a port number, got " + std::to_string(n));
      o.portBase = n;
    } else {
      for (const auto &[j, c] : o.jobs)
        if (j == name)
          return invalidArgument("job '" + name + "' is given twice in '" + spec + "'");
      o.jobs.emplace_back(name, n);
    }
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return o;
}

Expected<std::vector<std::string>> expandHostlist(const std::string &list) {
  std::vector<std::string> hosts;
  for (const std::string &item : splitTopLevel(list)) {
    if (item.empty())
      return invalidArgument("an empty host in the hostlist '" + list + "'");
    auto open = item.find('[');
    if (open == std::string::npos) {
      hosts.push_back(item);
      continue;
    }
    auto close = item.find(']', open);
    if (close == std::string::npos || item.find('[', open + 1) != std::string::npos)
      return invalidArgument("cannot read the hostlist entry '" + item + "'");
    std::string prefix = item.substr(0, open), suffix = item.substr(close + 1);
    std::string ranges = item.substr(open + 1, close - open - 1);
    size_t start = 0;
    for (;;) {
      size_t comma = ranges.find(',', start);
      std::string r = ranges.substr(start, comma == std::string::npos ? std::string::npos
                                                                      : comma - start);
      auto dash = r.find('-');
      std::string lo = r.substr(0, dash), hi = dash == std::string::npos ? lo : r.substr(dash + 1);
      int a = 0, b = 0;
      if (!parseInt(lo, a) || !parseInt(hi, b) || b < a || b - a > 100000)
        return invalidArgument("cannot read the range '" + r + "' in '" + item + "'");
      // Zero padding follows the lower bound's width ("01-10").
      size_t width = lo.size();
      for (int k = a; k <= b; ++k) {
        std::string digits = std::to_string(k);
        if (digits.size() < width)
          digits.insert(0, width - digits.size(), '0');
        hosts.push_back(prefix + digits + suffix);
      }
      if (comma == std::string::npos)
        break;
      start = comma + 1;
    }
  }
  return hosts;
}

Expected<std::vector<int>> expandTasksPerNode(const std::string &counts) {
  std::vector<int> out;
  for (const std::string &item : splitTopLevel(counts)) {
    auto paren = item.find("(x");
    int n = 0, times = 1;
    bool ok = paren == std::string::npos
                  ? parseInt(item, n)
                  : parseInt(std::string_view(item).substr(0, paren), n) && item.back() == ')' &&
                        parseInt(std::string_view(item).substr(paren + 2,
                                                               item.size() - paren - 3),
                                 times);
    if (!ok || times > 100000)
      return invalidArgument("cannot read '" + item + "' in the tasks per node '" + counts + "'");
    out.insert(out.end(), static_cast<size_t>(times), n);
  }
  return out;
}

Expected<TaskConfig> slurmTaskConfig(const std::map<std::string, std::string> &env,
                                     const SlurmOptions &opts) {
  auto get = [&](std::initializer_list<const char *> names) -> Expected<std::string> {
    for (const char *n : names)
      if (auto it = env.find(n); it != env.end() && !it->second.empty())
        return it->second;
    return invalidArgument(std::string("not in a Slurm job: ") + *names.begin() +
                           " is not set");
  };
  SLUICE_ASSIGN_OR_RETURN(std::string procid, get({"SLURM_PROCID"}));
  SLUICE_ASSIGN_OR_RETURN(std::string ntasks, get({"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"}));
  SLUICE_ASSIGN_OR_RETURN(std::string nodes, get({"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST"}));
  SLUICE_ASSIGN_OR_RETURN(std::string perNode,
                          get({"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"}));
  int rank = 0, total = 0;
  if (!parseInt(procid, rank))
    return invalidArgument("SLURM_PROCID is not a task rank: '" + procid + "'");
  if (!parseInt(ntasks, total) || total == 0)
    return invalidArgument("SLURM_NTASKS is not a task count: '" + ntasks + "'");
  SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> hosts, expandHostlist(nodes));
  SLUICE_ASSIGN_OR_RETURN(std::vector<int> counts, expandTasksPerNode(perNode));
  if (counts.size() != hosts.size())
    return invalidArgument("the tasks per node (" + perNode + ") name " +
                           std::to_string(counts.size()) + " nodes, the node list (" + nodes +
                           ") " + std::to_string(hosts.size()));
  // Rank r runs on the node whose block of tasks holds it (Slurm's block
  // distribution, which TF's resolver assumes too).
  std::vector<std::string> addresses;
  for (size_t node = 0; node < hosts.size(); ++node)
    for (int k = 0; k < counts[node]; ++k) {
      if (opts.portBase + k > 65535)
        return invalidArgument("port_base " + std::to_string(opts.portBase) + " + " +
                               std::to_string(k) + " is not a port");
      addresses.push_back(hosts[node] + ":" + std::to_string(opts.portBase + k));
    }
  if (static_cast<int>(addresses.size()) != total)
    return invalidArgument("the nodes hold " + std::to_string(addresses.size()) +
                           " tasks but SLURM_NTASKS is " + std::to_string(total));
  if (rank >= total)
    return invalidArgument("SLURM_PROCID " + std::to_string(rank) + " is not below " +
                           std::to_string(total) + " tasks");
  std::vector<std::pair<std::string, int>> jobs = opts.jobs;
  if (jobs.empty())
    jobs.emplace_back("worker", total);
  int asked = 0;
  for (const auto &[j, n] : jobs)
    asked += n;
  if (asked != total)
    return invalidArgument("the jobs ask for " + std::to_string(asked) +
                           " tasks but the Slurm step has " + std::to_string(total));
  ClusterSpec cluster;
  std::string type;
  int index = 0, next = 0;
  for (const auto &[j, n] : jobs) {
    std::vector<std::string> mine(addresses.begin() + next, addresses.begin() + next + n);
    if (rank >= next && rank < next + n) {
      type = j;
      index = rank - next;
    }
    if (n > 0)
      cluster.addJob(j, mine);
    next += n;
  }
  return taskConfigFor(cluster, type, index, "local");
}

} // namespace sluice::tflib
