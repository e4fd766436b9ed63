// frontend/source_file.cc: bounded reads of graph files.
#include "frontend/source_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>

namespace sluice::frontend {

Expected<std::string> readSourceStream(std::istream &in, const std::string &name) {
  std::string text;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (static_cast<int64_t>(text.size()) > kMaxSourceBytes)
      return Status(Code::kResourceExhausted,
                    "'" + name + "' is larger than the " + std::to_string(kMaxSourceBytes >> 20) +
                        " MiB a graph file may be");
  }
  if (in.bad())
    return Status(Code::kDataLoss, "cannot read '" + name + "': " + std::strerror(errno));
  return text;
}

Expected<std::string> readSourceFile(const std::string &path) {
  if (size_t nul = path.find('\0'); nul != std::string::npos)
    return invalidArgument("the path '" + path.substr(0, nul) +
                           "\\x00...' contains a NUL byte, which no file name may");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return invalidArgument("'" + path + "' is a directory, not a graph file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return notFound("cannot read '" + path + "': " + std::strerror(errno));
  return readSourceStream(in, path);
}

} // namespace sluice::frontend
