// bench/peers.cc: see peers.h.
#include "bench/peers.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#ifndef SLUICE_SOURCE_DIR
#define SLUICE_SOURCE_DIR "."
#endif

namespace sluice::bench {

namespace {

// The string value of "key": "..." in a one-line JSON object (the peers
// write no escapes in names and units).
std::string jsonString(const std::string &line, const std::string &key) {
  size_t at = line.find("\"" + key + "\": \"");
  if (at == std::string::npos)
    return "";
  at += key.size() + 5;
  size_t end = line.find('"', at);
  return end == std::string::npos ? "" : line.substr(at, end - at);
}

bool jsonNumber(const std::string &line, const std::string &key, double &out) {
  size_t at = line.find("\"" + key + "\": ");
  if (at == std::string::npos)
    return false;
  char *end = nullptr;
  out = std::strtod(line.c_str() + at + key.size() + 4, &end);
  return end != line.c_str() + at + key.size() + 4;
}

} // namespace

std::vector<PeerFigure> runPeerScript(const std::string &script, const std::string &args,
                                      std::string *why) {
  namespace fs = std::filesystem;
  const char *env = std::getenv("PEERS_DIR");
  fs::path dir = env && *env ? fs::path(env) : fs::path(SLUICE_SOURCE_DIR) / ".." / "shared" / "peers";
  std::vector<PeerFigure> out;
  if (!fs::exists(dir / script)) {
    *why = (dir / script).string() + " is not here";
    return out;
  }
  // The peers were measured with Debian's python (its numpy and torch),
  // which a python3 earlier on PATH (pyenv) may hide.
  const char *py = std::getenv("PEERS_PYTHON");
  std::string python = py && *py ? py : fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::string cmd = "cd '" + dir.string() + "' && " + python + " " + script + " " + args + " 2>&1";
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) {
    *why = "cannot run python3";
    return out;
  }
  std::vector<std::string> lines;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) {
    std::string line = buf;
    while (!line.empty() && line.back() == '\n')
      line.pop_back();
    lines.push_back(line);
  }
  int rc = pclose(p);
  for (const std::string &line : lines) {
    PeerFigure f;
    f.name = jsonString(line, "name");
    f.unit = jsonString(line, "unit");
    if (!f.name.empty() && jsonNumber(line, "median", f.median))
      out.push_back(f);
  }
  if (out.empty()) // the last line says why (a missing module, usually)
    *why = python + " " + script + " " + args + " exited " + std::to_string(rc) + ": " +
           (lines.empty() ? std::string("no output") : lines.back());
  return out;
}

std::string benchSlug(const std::string &name) {
  std::string s;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!s.empty() && s.back() != '_')
      s += '_';
  }
  while (!s.empty() && s.back() == '_')
    s.pop_back();
  return s.substr(0, 48);
}

} // namespace sluice::bench
