// backend/io/event_file.h: TensorBoard event files (TFRecord framing of
// Event protos, encoded by hand in protobuf wire format: the few fields
// scalar summaries need) and the plain metrics.jsonl written beside them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/io/record_iterator.h"
#include "support/status.h"

namespace sluice::backend::io {

/// One scalar of a Summary proto (Summary.Value{tag=1, simple_value=2}).
struct ScalarValue {
  std::string tag;
  float value = 0;
};

/// A serialized Summary{value=1} with one Value per scalar.
std::string encodeScalarSummary(const std::vector<ScalarValue> &values);
/// The scalars of a serialized Summary (values of other kinds are
/// skipped); invalid_argument for bytes that are not a Summary.
Expected<std::vector<ScalarValue>> decodeScalarSummary(std::string_view bytes);

/// The Event fields Sluice writes: wall_time=1, step=2, file_version=3,
/// summary=5.
struct Event {
  double wallTime = 0;
  int64_t step = 0;
  std::optional<std::string> fileVersion;
  std::optional<std::string> summary; // a serialized Summary
};
std::string encodeEvent(const Event &e);
Expected<Event> decodeEvent(std::string_view bytes);

/// TF's EventFileWriter plus Sluice's metrics.jsonl: writes
/// LOGDIR/events.out.tfevents.<secs>.<host>.<pid> (first record
/// file_version "brain.Event:2") and appends one JSON line per scalar to
/// LOGDIR/metrics.jsonl: {"step":S,"wall_time":T,"tag":"loss","value":V}
/// (null for a non-finite value). Each add reaches the files at once, so
/// a killed process loses nothing it added.
class SummaryFileWriter {
public:
  /// Creates `logdir` (and its parents) when missing.
  static Expected<std::unique_ptr<SummaryFileWriter>> open(const std::string &logdir);
  ~SummaryFileWriter();

  /// Writes an Event holding `summary` (a serialized Summary) at `step`.
  Status addSummary(std::string_view summary, int64_t step);
  Status close();
  const std::string &eventPath() const { return eventPath_; }
  const std::string &metricsPath() const { return metricsPath_; }

private:
  SummaryFileWriter() = default;
  std::string eventPath_, metricsPath_;
  TFRecordWriter events_;
  int metricsFd_ = -1;
};

} // namespace sluice::backend::io
