// frontend/eval/golden_file.cc
#include "frontend/eval/golden_file.h"

#include <filesystem>
#include <sstream>

#include "ir/attr.h"
#include "ir/text/parser.h"
#include "backend/io/checkpoint.h"

namespace sluice::frontend {

namespace {

constexpr std::string_view kHeader = "tensor<";

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

bool isHeader(const std::string &line) {
  return line.compare(0, kHeader.size(), kHeader) == 0 && !line.empty() && line.back() == '>';
}

} // namespace

std::string goldenTensorText(const std::vector<ir::Tensor> &tensors) {
  std::string out;
  for (const ir::Tensor &t : tensors) {
    out += std::string(kHeader) + std::string(ir::dtypeName(t.dtype())) + " " +
           ir::dimsString(t.dims()) + ">\n";
    const int64_t n = t.numElements();
    const int64_t row = t.rank() == 0 ? 1 : t.dim(t.rank() - 1);
    for (int64_t i = 0; row > 0 && i < n; i += row) {
      for (int64_t j = 0; j < row; ++j)
        out += (j ? ", " : "") + ir::exactElementText(t, i + j);
      out += "\n";
    }
  }
  return out;
}

bool isTensorGolden(const std::string &text) {
  return text.compare(0, kHeader.size(), kHeader) == 0;
}

Expected<std::vector<ir::Tensor>> parseGoldenTensors(const std::string &text,
                                                     const std::string &path) {
  std::vector<std::string> ls = lines(text);
  std::vector<ir::Tensor> out;
  for (size_t i = 0; i < ls.size();) {
    if (ls[i].empty()) {
      ++i;
      continue;
    }
    const size_t headerLine = i;
    if (!isHeader(ls[i]))
      return Status(Code::kInvalidArgument,
                    path + ":" + std::to_string(i + 1) +
                        ": expected a tensor header such as tensor<f32 [2, 3]>, found '" +
                        ls[i] + "'");
    std::string literal = ls[i].substr(0, ls[i].size() - 1) + " {";
    bool first = true;
    for (++i; i < ls.size() && !isHeader(ls[i]); ++i) {
      if (ls[i].empty())
        continue;
      literal += (first ? "" : ", ") + ls[i];
      first = false;
    }
    literal += "}>";
    Expected<ir::AttrValue> v = ir::parseAttr(literal, ir::AttrType::kTensor);
    if (!v)
      return Status(Code::kInvalidArgument, path + ":" + std::to_string(headerLine + 1) +
                                                ": the tensor does not read back: " +
                                                v.status().message());
    out.push_back(std::get<ir::Tensor>(*v));
  }
  return out;
}

std::optional<std::string> describeTextDifference(const std::string &actual,
                                                  const std::string &expected) {
  if (actual == expected)
    return std::nullopt;
  std::vector<std::string> a = lines(actual), e = lines(expected);
  size_t i = 0;
  while (i < a.size() && i < e.size() && a[i] == e[i])
    ++i;
  std::string at = "  line " + std::to_string(i + 1) + ": ";
  if (i == a.size() && i == e.size())
    return at + "the texts differ only in their final newline";
  if (i == a.size())
    return at + "got the end, expected '" + e[i] + "'";
  if (i == e.size())
    return at + "got '" + a[i] + "', expected the end";
  return at + "got '" + a[i] + "'\n" + std::string(at.size() - 2, ' ') + "expected '" + e[i] +
         "'";
}

Status writeGoldenFile(const std::string &path, const std::string &text) {
  std::error_code ec;
  std::filesystem::path target(path);
  if (target.has_parent_path())
    std::filesystem::create_directories(target.parent_path(), ec);
  if (ec)
    return Status(Code::kNotFound, "cannot create the folder of " + path + ": " + ec.message());
  return backend::io::writeFileAtomically(path, text);
}

} // namespace sluice::frontend
