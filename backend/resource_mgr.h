// backend/resource_mgr.h: stateful objects (variables, queues, readers)
// shared across steps, keyed by (container, name) as in TF.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "support/status.h"

namespace sluice::backend {

class Resource {
public:
  virtual ~Resource() = default;
  /// The kind name used in messages ("Variable", "FIFOQueue").
  virtual std::string kind() const = 0;
};

class ResourceMgr {
public:
  /// Finds (container, name) or creates it with `create`; an existing
  /// resource of another kind is invalid_argument.
  template <typename T>
  Expected<std::shared_ptr<T>>
  lookupOrCreate(const std::string &container, const std::string &name,
                 const std::function<Expected<std::shared_ptr<T>>()> &create) {
    std::lock_guard<std::mutex> lock(mu_);
    auto key = std::make_pair(container, name);
    auto it = resources_.find(key);
    if (it != resources_.end()) {
      auto typed = std::dynamic_pointer_cast<T>(it->second);
      if (!typed)
        return Status(Code::kInvalidArgument,
                      "resource '" + name + "' is a " + it->second->kind() +
                          ", not the kind this op needs");
      return typed;
    }
    auto made = create();
    if (!made.hasValue())
      return made.takeStatus();
    resources_[key] = *made;
    return *made;
  }

  template <typename T>
  std::shared_ptr<T> lookup(const std::string &container, const std::string &name) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resources_.find({container, name});
    return it == resources_.end() ? nullptr : std::dynamic_pointer_cast<T>(it->second);
  }

  /// Calls `f` on every resource (e.g. to close queues on shutdown).
  void forEach(const std::function<void(Resource &)> &f) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto &[k, r] : resources_)
      f(*r);
  }
  /// Drops every resource. They are destroyed outside the lock: a
  /// resource's destructor may join a thread (a prefetching iterator) that
  /// is still looking resources up.
  void clear() {
    std::map<std::pair<std::string, std::string>, std::shared_ptr<Resource>> doomed;
    {
      std::lock_guard<std::mutex> lock(mu_);
      doomed.swap(resources_);
    }
  }

private:
  std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Resource>> resources_;
};

} // namespace sluice::backend
