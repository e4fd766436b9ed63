// runtime/distributed/channel.cc: reading TLS material.
#include "runtime/distributed/channel.h"

#include <fstream>
#include <sstream>

namespace sluice::dist {

namespace {

Expected<std::string> readPem(const std::string &path, const char *what) {
  if (path.empty())
    return std::string();
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return notFound(std::string("cannot read the TLS ") + what + " '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  if (s.find("-----BEGIN ") == std::string::npos)
    return invalidArgument(std::string("the TLS ") + what + " '" + path + "' is not a PEM file");
  return s;
}

} // namespace

Expected<TlsMaterial> loadTls(const std::string &certFile, const std::string &keyFile,
                              const std::string &caFile) {
  TlsMaterial m;
  SLUICE_ASSIGN_OR_RETURN(m.cert, readPem(certFile, "certificate"));
  SLUICE_ASSIGN_OR_RETURN(m.key, readPem(keyFile, "key"));
  SLUICE_ASSIGN_OR_RETURN(m.ca, readPem(caFile, "CA certificate"));
  if (m.cert.empty() != m.key.empty())
    return invalidArgument("TLS needs both a certificate (--tls-cert) and its key (--tls-key)");
  if (m.cert.empty() && !m.ca.empty())
    return invalidArgument("TLS with a CA (--tls-ca) needs this task's certificate and key "
                           "(--tls-cert, --tls-key)");
  return m;
}

} // namespace sluice::dist
