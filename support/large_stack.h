// support/large_stack.h: runs a function on a thread with a large stack.
#pragma once

#include <cstddef>
#include <functional>

namespace sluice {

/// Runs `fn` on a new pthread whose stack is `bytes` large and waits for it.
/// Deeply recursive work (parsing, AST walks) uses it to survive deep but
/// legal inputs. An exception thrown by `fn` is rethrown in the caller. If a
/// thread cannot be created with that stack, `fn` runs on the caller's thread.
void runWithLargeStack(std::function<void()> fn, size_t bytes = size_t(512) << 20);

} // namespace sluice
