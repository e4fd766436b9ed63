// frontend/eval/golden_file.h: the files behind expect_golden. A tensor is
// kept as a header line `tensor<f32 [2, 3]>` and one line per row of its
// innermost dimension, elements in the IR's exact text (floats read back
// bit for bit), so a golden file reviews well in a diff and compares
// exactly. A list of tensors is one block after another. Any other value
// is kept as its printed text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/tensor.h"
#include "support/status.h"

namespace sluice::frontend {

std::string goldenTensorText(const std::vector<ir::Tensor> &tensors);

/// Whether a golden file's text holds tensors (starts with a header line).
bool isTensorGolden(const std::string &text);

/// Reads the blocks of a tensor golden; errors are invalid_argument and
/// name `path:line`.
Expected<std::vector<ir::Tensor>> parseGoldenTensors(const std::string &text,
                                                     const std::string &path);

/// Where two texts first differ, as indented lines; nullopt when equal.
std::optional<std::string> describeTextDifference(const std::string &actual,
                                                  const std::string &expected);

/// Writes a golden file atomically (an interrupted update never leaves
/// half of one), creating missing parent directories.
Status writeGoldenFile(const std::string &path, const std::string &text);

} // namespace sluice::frontend
