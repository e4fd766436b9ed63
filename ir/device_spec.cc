// ir/device_spec.cc: device-name parsing, printing and merging.
#include "ir/device_spec.h"

#include <cctype>
#include <charconv>
#include <vector>

namespace sluice::ir {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

std::optional<int> parseIndex(std::string_view s) {
  int v = 0;
  if (s.empty())
    return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0)
    return std::nullopt;
  return v;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char &c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

Status bad(std::string_view spec, std::string why) {
  return valueError("invalid device '" + std::string(spec) + "': " + why);
}

} // namespace

Expected<DeviceSpec> DeviceSpec::parse(std::string_view s) {
  DeviceSpec d;
  for (std::string_view piece : split(s, '/')) {
    if (piece.empty())
      continue;
    std::vector<std::string_view> ly = split(piece, ':');
    std::string key = std::string(ly[0]);
    auto setType = [&](std::string type) -> Status {
      if (d.deviceType && *d.deviceType != type)
        return bad(s, "Cannot specify multiple device types");
      d.deviceType = std::move(type);
      return Status::ok();
    };
    if (ly.size() == 2 && key == "job") {
      if (ly[1].empty())
        return bad(s, "empty job name");
      d.job = std::string(ly[1]);
    } else if (ly.size() == 2 && (key == "replica" || key == "task")) {
      auto v = parseIndex(ly[1]);
      if (!v)
        return bad(s, "'" + std::string(ly[1]) + "' is not a valid " + key + " index");
      (key == "replica" ? d.replica : d.task) = *v;
    } else if ((ly.size() == 3 || ly.size() == 2) && key == "device") {
      SLUICE_TRY(setType(upper(ly[1])));
      if (ly.size() == 3 && ly[2] != "*") {
        auto v = parseIndex(ly[2]);
        if (!v)
          return bad(s, "'" + std::string(ly[2]) + "' is not a valid device index");
        d.deviceIndex = *v;
      }
    } else if ((ly.size() == 1 || ly.size() == 2) &&
               (upper(key) == "CPU" || upper(key) == "GPU")) {
      SLUICE_TRY(setType(upper(key)));
      if (ly.size() == 2 && ly[1] != "*") {
        auto v = parseIndex(ly[1]);
        if (!v)
          return bad(s, "'" + std::string(ly[1]) + "' is not a valid device index");
        d.deviceIndex = *v;
      }
    } else {
      return bad(s, "Unknown attribute: '" + std::string(piece) + "'");
    }
  }
  return d;
}

std::string DeviceSpec::toString() const {
  std::string out;
  if (job)
    out += "/job:" + *job;
  if (replica)
    out += "/replica:" + std::to_string(*replica);
  if (task)
    out += "/task:" + std::to_string(*task);
  if (deviceType)
    out += "/device:" + *deviceType + ":" +
           (deviceIndex ? std::to_string(*deviceIndex) : std::string("*"));
  return out;
}

void DeviceSpec::mergeFrom(const DeviceSpec &o) {
  if (o.job)
    job = o.job;
  if (o.replica)
    replica = o.replica;
  if (o.task)
    task = o.task;
  if (o.deviceType)
    deviceType = o.deviceType;
  if (o.deviceIndex)
    deviceIndex = o.deviceIndex;
}

Expected<std::string> canonicalDevice(std::string_view s) {
  SLUICE_ASSIGN_OR_RETURN(DeviceSpec d, DeviceSpec::parse(s));
  return d.toString();
}

std::string taskOf(std::string_view device) {
  auto d = DeviceSpec::parse(device);
  if (!d.hasValue() || !d->job)
    return "";
  return "/job:" + *d->job + "/replica:" + std::to_string(d->replica.value_or(0)) +
         "/task:" + std::to_string(d->task.value_or(0));
}

} // namespace sluice::ir
