// driver/task_flags.cc: task resolution with TF's precedence (flags over
// TF_CONFIG over the local default) and the cluster's credentials.
#include "driver/task_flags.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "tflib/cluster/slurm_cluster.h"

namespace sluice::driver {

namespace {

bool parseIndex(const std::string &digits, int &index) {
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return false;
  index = std::stoi(digits);
  return true;
}

} // namespace

Expected<ClusterFile> loadClusterFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream text;
  if (!f || !(text << f.rdbuf()))
    return invalidArgument("cannot read '" + path + "'");
  std::string json = text.str();
  ClusterFile out;
  auto asConfig = tflib::parseTfConfig(json);
  if (json.find("\"cluster\"") != std::string::npos && asConfig.hasValue()) {
    out.cluster = asConfig->cluster;
    out.tfConfig = *asConfig;
    return out;
  }
  SLUICE_ASSIGN_OR_RETURN(out.cluster, rt::clusterSpecFromJson(json));
  return out;
}

std::optional<tflib::TaskConfig> resolveTask(const TaskFlags &flags, std::ostream &err, int &code) {
  std::string type = flags.job;
  std::optional<int> index;
  if (!flags.task.empty()) {
    // --task JOB:INDEX, or --task INDEX with --job.
    auto colon = flags.task.rfind(':');
    int i = 0;
    bool ok;
    if (colon == std::string::npos) {
      ok = !flags.job.empty() && parseIndex(flags.task, i);
    } else {
      std::string job = flags.task.substr(0, colon);
      ok = colon > 0 && parseIndex(flags.task.substr(colon + 1), i) &&
           (flags.job.empty() || flags.job == job);
      type = job;
    }
    if (!ok) {
      err << "sluice: error: --task: expected JOB:INDEX (e.g. worker:1), or INDEX with --job, got '"
          << flags.task << "'" << (flags.job.empty() ? "" : " with --job " + flags.job) << "\n";
      code = 2;
      return std::nullopt;
    }
    index = i;
  }
  auto fail = [&](const std::string &what, const Status &s) -> std::optional<tflib::TaskConfig> {
    err << "sluice: error: " << what << ": " << s.message() << "\n";
    code = 1;
    return std::nullopt;
  };
  std::string which = !flags.task.empty() ? "--task " + flags.task : "--job " + flags.job;
  if (flags.clusterFile == "slurm" || flags.clusterFile.rfind("slurm:", 0) == 0) {
    // Under srun: the step's environment gives the cluster and the task.
    auto opts = tflib::parseSlurmSpec(flags.clusterFile);
    if (!opts.hasValue())
      return fail("--cluster " + flags.clusterFile, opts.status());
    std::map<std::string, std::string> env;
    for (char **e = environ; *e; ++e) {
      std::string kv = *e;
      if (kv.rfind("SLURM_", 0) == 0)
        if (auto eq = kv.find('='); eq != std::string::npos)
          env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    auto t = tflib::slurmTaskConfig(env, *opts);
    if (!t.hasValue())
      return fail("--cluster " + flags.clusterFile, t.status());
    if (type.empty())
      return *t;
    auto chosen = tflib::taskConfigFor(t->cluster, type, index.value_or(0));
    if (!chosen.hasValue())
      return fail(which, chosen.status());
    return *chosen;
  }
  if (!flags.clusterFile.empty()) {
    auto file = loadClusterFile(flags.clusterFile);
    if (!file.hasValue())
      return fail("--cluster " + flags.clusterFile, file.status());
    // A whole TF_CONFIG names its task; --job/--task override it.
    if (file->tfConfig && type.empty())
      return *file->tfConfig;
    const rt::ClusterSpec &cluster = file->cluster;
    if (type.empty())
      return fail("--cluster " + flags.clusterFile,
                  invalidArgument("a cluster needs --task JOB:INDEX (or --job JOB --task INDEX) "
                                  "to say which task this is"));
    if (!index) {
      // As TF's Server: the index may be left out for a one-task job.
      auto n = cluster.taskIndices(type);
      if (n.hasValue() && n->size() == 1)
        index = n->front();
      else
        return fail(which, invalidArgument("job '" + type + "' has " +
                                           (n.hasValue() ? std::to_string(n->size()) : "no") +
                                           " tasks: say which with --task INDEX"));
    }
    auto t = tflib::taskConfigFor(cluster, type, *index);
    if (!t.hasValue())
      return fail(which, t.status());
    return *t;
  }
  if (!type.empty()) {
    auto t = tflib::taskConfigFor({}, type, index.value_or(0));
    if (!t.hasValue())
      return fail(which, t.status());
    return *t;
  }
  if (const char *env = std::getenv("TF_CONFIG")) {
    auto t = tflib::parseTfConfig(env);
    if (!t.hasValue())
      return fail("TF_CONFIG", t.status());
    return *t;
  }
  return tflib::TaskConfig{};
}

bool servesInCluster(const tflib::TaskConfig &task) {
  return !task.cluster.empty() && task.cluster.taskAddress(task.type, task.index).hasValue();
}

std::shared_ptr<dist::GrpcClusterHost> makeClusterHost(const ClusterFlags &flags,
                                                       std::ostream &err, int &code) {
  dist::ClusterHostOptions o;
  if (!flags.tokenFile.empty()) {
    std::ifstream f(flags.tokenFile, std::ios::binary);
    std::stringstream text;
    if (!f || !(text << f.rdbuf())) {
      err << "sluice: error: --cluster-token: cannot read '" << flags.tokenFile << "'\n";
      code = 1;
      return nullptr;
    }
    o.token = text.str();
  } else if (const char *env = std::getenv("SLUICE_CLUSTER_TOKEN")) {
    o.token = env;
  }
  // A token file usually ends in a newline the secret does not include.
  while (!o.token.empty() && (o.token.back() == '\n' || o.token.back() == '\r'))
    o.token.pop_back();
  if (!flags.tokenFile.empty() && o.token.empty()) {
    err << "sluice: error: --cluster-token: '" << flags.tokenFile << "' is empty\n";
    code = 1;
    return nullptr;
  }
  o.tlsCert = flags.tlsCert;
  o.tlsKey = flags.tlsKey;
  o.tlsCa = flags.tlsCa;
  o.cpusPerTask = flags.cpus;
  o.startupTimeoutMs = flags.waitForTasksSeconds * 1000;
  o.log = [](const std::string &line) { std::cerr << "sluice: " << line << "\n"; };
  auto h = dist::GrpcClusterHost::create(std::move(o));
  if (!h.hasValue()) {
    err << "sluice: error: " << h.status().message() << "\n";
    code = 1;
    return nullptr;
  }
  return std::move(*h);
}

std::shared_ptr<rt::ClusterHost> defaultClusterHost(std::ostream *log) {
  dist::ClusterHostOptions o;
  o.log = [log](const std::string &line) { (log ? *log : std::cerr) << line << "\n"; };
  auto h = dist::GrpcClusterHost::create(std::move(o));
  return h.hasValue() ? std::move(*h) : nullptr; // no TLS files: cannot fail
}

} // namespace sluice::driver
