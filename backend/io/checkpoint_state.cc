// backend/io/checkpoint_state.cc: the `checkpoint` state file: a small
// reader and writer of CheckpointState's protobuf text format, and TF's
// path rules around it.
#include "backend/io/checkpoint_state.h"

#include <cctype>
#include <filesystem>

#include "backend/io/buffered_file.h"
#include "backend/io/checkpoint.h"

namespace sluice::backend::io {

namespace fs = std::filesystem;

namespace {

bool isAbsolute(const std::string &p) { return !p.empty() && p[0] == '/'; }

/// os.path.relpath(p, start): both made absolute against the working
/// directory, then compared lexically.
std::string relPath(const std::string &p, const std::string &start) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec).lexically_normal();
  fs::path b = fs::absolute(start.empty() ? "." : start, ec).lexically_normal();
  fs::path r = a.lexically_relative(b);
  return r.empty() ? p : r.string();
}

std::string normalized(const std::string &p) {
  std::error_code ec;
  return fs::absolute(p, ec).lexically_normal().string();
}

/// A tokenizer for the text format's subset that CheckpointState uses:
/// identifiers, ':', quoted strings (C escapes, adjacent ones joined),
/// numbers, and '#' comments.
class TextScanner {
public:
  explicit TextScanner(std::string_view t) : t_(t) {}
  void skipSpace() {
    while (i_ < t_.size()) {
      if (std::isspace(static_cast<unsigned char>(t_[i_]))) {
        ++i_;
      } else if (t_[i_] == '#') {
        while (i_ < t_.size() && t_[i_] != '\n')
          ++i_;
      } else {
        break;
      }
    }
  }
  bool atEnd() {
    skipSpace();
    return i_ >= t_.size();
  }
  size_t line() const {
    size_t n = 1;
    for (size_t k = 0; k < i_ && k < t_.size(); ++k)
      n += t_[k] == '\n';
    return n;
  }
  bool identifier(std::string *out) {
    skipSpace();
    size_t start = i_;
    while (i_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[i_])) || t_[i_] == '_'))
      ++i_;
    *out = std::string(t_.substr(start, i_ - start));
    return !out->empty();
  }
  bool consume(char c) {
    skipSpace();
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  /// One or more adjacent quoted strings.
  bool string(std::string *out) {
    out->clear();
    bool any = false;
    for (;;) {
      skipSpace();
      if (i_ >= t_.size() || (t_[i_] != '"' && t_[i_] != '\''))
        return any;
      char quote = t_[i_++];
      for (;;) {
        if (i_ >= t_.size() || t_[i_] == '\n')
          return false;
        char c = t_[i_++];
        if (c == quote)
          break;
        if (c != '\\') {
          out->push_back(c);
          continue;
        }
        if (i_ >= t_.size())
          return false;
        char e = t_[i_++];
        switch (e) {
        case 'n': out->push_back('\n'); break;
        case 't': out->push_back('\t'); break;
        case 'r': out->push_back('\r'); break;
        case 'a': out->push_back('\a'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'v': out->push_back('\v'); break;
        case '\\': case '\'': case '"': case '?': out->push_back(e); break;
        case 'x': {
          int v = 0, n = 0;
          while (n < 2 && i_ < t_.size() && std::isxdigit(static_cast<unsigned char>(t_[i_]))) {
            char h = t_[i_++];
            v = v * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
            ++n;
          }
          if (n == 0)
            return false;
          out->push_back(static_cast<char>(v));
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0', n = 1;
            while (n < 3 && i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '7') {
              v = v * 8 + (t_[i_++] - '0');
              ++n;
            }
            out->push_back(static_cast<char>(v));
            break;
          }
          return false;
        }
      }
      any = true;
    }
  }
  bool number() {
    skipSpace();
    size_t start = i_;
    while (i_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[i_])) || t_[i_] == '.' ||
                              t_[i_] == '-' || t_[i_] == '+'))
      ++i_;
    std::string s(t_.substr(start, i_ - start));
    if (s.empty())
      return false;
    char *end = nullptr;
    std::strtod(s.c_str(), &end);
    return end && *end == '\0';
  }

private:
  std::string_view t_;
  size_t i_ = 0;
};

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20 || c >= 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\%03o", c);
        out += buf;
      } else {
        out.push_back(static_cast<char>(c));
      }
    }
  }
  return out + "\"";
}

} // namespace

std::string joinPath(const std::string &dir, const std::string &name) {
  if (isAbsolute(name) || dir.empty())
    return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::string checkpointStatePath(const std::string &dir, const std::string &latestFilename) {
  return joinPath(dir, latestFilename.empty() ? "checkpoint" : latestFilename);
}

Expected<CheckpointState> parseCheckpointState(std::string_view text) {
  CheckpointState s;
  TextScanner sc(text);
  while (!sc.atEnd()) {
    std::string field, value;
    auto err = [&](const std::string &what) {
      return invalidArgument(std::to_string(sc.line()) + ": " + what);
    };
    if (!sc.identifier(&field))
      return err("expected a field name");
    if (!sc.consume(':'))
      return err("expected ':' after '" + field + "'");
    if (field == "model_checkpoint_path" || field == "all_model_checkpoint_paths") {
      if (!sc.string(&value))
        return err("expected a quoted string for '" + field + "'");
      if (field == "model_checkpoint_path")
        s.modelCheckpointPath = value;
      else
        s.allModelCheckpointPaths.push_back(value);
    } else if (field == "all_model_checkpoint_timestamps" ||
               field == "last_preserved_timestamp") {
      if (!sc.number())
        return err("expected a number for '" + field + "'");
    } else {
      return err("message type \"tensorflow.CheckpointState\" has no field named \"" + field +
                 "\"");
    }
  }
  return s;
}

std::string formatCheckpointState(const CheckpointState &s) {
  std::string out = "model_checkpoint_path: " + quote(s.modelCheckpointPath) + "\n";
  for (const std::string &p : s.allModelCheckpointPaths)
    out += "all_model_checkpoint_paths: " + quote(p) + "\n";
  return out;
}

Expected<std::optional<CheckpointState>>
getCheckpointState(const std::string &dir, const std::string &latestFilename,
                   std::string *warning) {
  const std::string path = checkpointStatePath(dir, latestFilename);
  BufferedFile f;
  if (Status s = f.open(path); !s) {
    if (s.code() != Code::kNotFound && warning)
      *warning = s.message();
    return std::optional<CheckpointState>();
  }
  std::string text(static_cast<size_t>(f.size()), '\0');
  auto got = f.readAt(0, text.size(), text.data());
  if (!got.hasValue()) {
    if (warning)
      *warning = got.status().message();
    return std::optional<CheckpointState>();
  }
  text.resize(*got);
  auto parsed = parseCheckpointState(text);
  if (!parsed.hasValue()) {
    if (warning)
      *warning = "ParseError: " + path + ":" + parsed.status().message();
    return std::optional<CheckpointState>();
  }
  CheckpointState s = std::move(*parsed);
  if (s.modelCheckpointPath.empty())
    return valueError("Invalid checkpoint state loaded from " + dir);
  s.modelCheckpointPath = joinPath(dir, s.modelCheckpointPath);
  for (std::string &p : s.allModelCheckpointPaths)
    p = joinPath(dir, p);
  return std::optional<CheckpointState>(std::move(s));
}

std::optional<std::string> latestCheckpoint(const std::string &dir,
                                            const std::string &latestFilename,
                                            std::string *warning) {
  auto state = getCheckpointState(dir, latestFilename, warning);
  if (!state.hasValue()) {
    if (warning)
      *warning = state.status().message();
    return std::nullopt;
  }
  if (!*state)
    return std::nullopt;
  const std::string &p = (*state)->modelCheckpointPath;
  if (checkpointExists(p))
    return p;
  if (warning)
    *warning = "Couldn't match files for checkpoint " + p;
  return std::nullopt;
}

bool conflictsWithStateFile(const std::string &saveDir, const std::string &model,
                            const std::string &latestFilename) {
  return normalized(checkpointStatePath(saveDir, latestFilename)) == normalized(model);
}

Status updateCheckpointState(const std::string &saveDir, const std::string &model,
                             std::vector<std::string> all,
                             const std::string &latestFilename) {
  if (conflictsWithStateFile(saveDir, model, latestFilename))
    return runtimeError("Save path '" + model +
                        "' conflicts with path used for checkpoint state.  Please use a "
                        "different save path.");
  CheckpointState s;
  s.modelCheckpointPath = model;
  if (all.empty() || all.back() != model)
    all.push_back(model);
  s.allModelCheckpointPaths = std::move(all);
  // Relative paths are written relative to a relative save dir, so the
  // directory can move (TF's generate_checkpoint_state_proto).
  if (!isAbsolute(saveDir)) {
    if (!isAbsolute(s.modelCheckpointPath))
      s.modelCheckpointPath = relPath(s.modelCheckpointPath, saveDir);
    for (std::string &p : s.allModelCheckpointPaths)
      if (!isAbsolute(p))
        p = relPath(p, saveDir);
  }
  return writeFileAtomically(checkpointStatePath(saveDir, latestFilename),
                             formatCheckpointState(s));
}

} // namespace sluice::backend::io
