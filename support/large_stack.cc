// support/large_stack.cc: runWithLargeStack on a pthread with a custom stack size.
#include "support/large_stack.h"

#include <pthread.h>

#include <exception>

namespace sluice {

namespace {
struct Job {
  std::function<void()> fn;
  std::exception_ptr error;
};

void *runJob(void *arg) {
  auto *job = static_cast<Job *>(arg);
  try {
    job->fn();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}
} // namespace

void runWithLargeStack(std::function<void()> fn, size_t bytes) {
  Job job{std::move(fn), nullptr};
  pthread_attr_t attr;
  bool started = false;
  pthread_t thread;
  if (pthread_attr_init(&attr) == 0) {
    if (pthread_attr_setstacksize(&attr, bytes) == 0 &&
        pthread_create(&thread, &attr, &runJob, &job) == 0)
      started = true;
    pthread_attr_destroy(&attr);
  }
  if (started)
    pthread_join(thread, nullptr);
  else
    runJob(&job);
  if (job.error)
    std::rethrow_exception(job.error);
}

} // namespace sluice
