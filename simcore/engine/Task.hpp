#pragma once
// Task<T>: a C++20 coroutine for logic that runs as engine events rather than in a SimGrid actor (the CCLO's
// micro-controller firmware; see Scheduler::spawn_task). A task starts when it is awaited and runs until it first
// waits or ends: if it ends at once, its awaiter goes on without suspending (a loop of such tasks does not grow the
// stack); if it waits, its awaiter waits too, and when the task ends it resumes its awaiter (symmetric transfer). A
// suspended chain of tasks is resumed by the kernel, in the kernel actor, when what it waits for happens: no
// context switch, no SimGrid call.
//
// GCC 12 pitfall met writing the firmware: a temporary with a destructor (a std::function, an object holding one)
// in an expression that awaits was destroyed twice (it freed the schedule executor's state under it, or made the
// firmware return to the kernel without waiting). So the arguments of awaited calls are trivially destructible
// (plain structs, FnRef below, references to named objects), and every co_await stands in its own statement or
// declaration, not in an if / while / switch condition or a conditional operator
// (python-free-tools/check-structure.sh checks nodes/ for these). A task is awaited where it is called
// (`co_await f(x)`), so the temporaries its reference arguments refer to outlive it.
//
// Frames come from a per-size free list (FramePool): a coroutine frame of a given function always has the same
// size, so after warm-up a call costs no malloc.

#include <coroutine>
#include <cstddef>
#include <exception>
#include <new>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace nafsim {

/// Recycles coroutine frames by size (16-byte classes up to 2 KiB; larger ones go to the heap).
class FramePool {
public:
  static void* allocate(std::size_t n)
  {
#if defined(__SANITIZE_ADDRESS__)
    return ::operator new(n); // sanitized builds: every frame its own block, so that a use after free is caught
#endif
    const std::size_t c = size_class(n);
    if (c < kClasses) {
      auto& list = pool().free[c];
      if (!list.empty()) {
        void* p = list.back();
        list.pop_back();
        return p;
      }
      return ::operator new((c + 1) * kGrain);
    }
    return ::operator new(n);
  }
  static void release(void* p, std::size_t n) noexcept
  {
#if defined(__SANITIZE_ADDRESS__)
    ::operator delete(p);
    return;
#endif
    const std::size_t c = size_class(n);
    if (c < kClasses) {
      try {
        pool().free[c].push_back(p);
        return;
      } catch (...) {
      }
    }
    ::operator delete(p);
  }

private:
  static constexpr std::size_t kGrain   = 16;
  static constexpr std::size_t kClasses = 128;
  static std::size_t size_class(std::size_t n) { return (n + kGrain - 1) / kGrain - 1; }
  struct Lists {
    std::vector<void*> free[kClasses];
    ~Lists()
    {
      for (auto& l : free)
        for (void* p : l)
          ::operator delete(p);
    }
  };
  static Lists& pool()
  {
    static thread_local Lists lists;
    return lists;
  }
};

/// A non-owning reference to a callable (no allocation, trivially destructible): the argument type of tasks
/// that take a function (`spin(match, [&] { return ...; })`); the callable, a temporary of the awaiting
/// expression, lives until the task ends.
template <class Sig> class FnRef;
template <class R, class... A> class FnRef<R(A...)> {
public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FnRef> && std::is_invocable_r_v<R, F&, A...>)
  FnRef(F&& f) // NOLINT: implicit, from the caller's callable
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f))))
      , fn_([](void* o, A... a) -> R { return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<A>(a)...); })
  {
  }
  R operator()(A... a) const { return fn_(obj_, std::forward<A>(a)...); }

private:
  void* obj_;
  R (*fn_)(void*, A...);
};

namespace detail {

struct PromiseBase {
  std::coroutine_handle<> continuation;
  std::exception_ptr error;
  bool inline_run = false; ///< running inside its awaiter's await_suspend (not resumed by the kernel)

  static void* operator new(std::size_t n) { return FramePool::allocate(n); }
  static void operator delete(void* p, std::size_t n) noexcept { FramePool::release(p, n); }

  std::suspend_always initial_suspend() noexcept { return {}; }
  struct FinalAwaiter {
    bool await_ready() const noexcept { return false; }
    template <class P> std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept
    {
      // Finished inside the awaiter's await_suspend: back there, which lets the awaiter go on without suspending.
      // Finished after a real wait (resumed by the kernel): resume the awaiter.
      auto& p = h.promise();
      if (p.inline_run || !p.continuation)
        return std::noop_coroutine();
      return p.continuation;
    }
    void await_resume() const noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { error = std::current_exception(); }
};

/// What a task hands its awaiter: a value, or nothing for Task<void>.
template <class T> struct ValuePromise : PromiseBase {
  std::optional<T> value;
  template <class U> void return_value(U&& v) { value.emplace(std::forward<U>(v)); }
  T take() { return std::move(*value); }
};
template <> struct ValuePromise<void> : PromiseBase {
  void return_void() noexcept {}
  void take() {}
};

} // namespace detail

template <class T = void> class [[nodiscard]] Task {
public:
  struct promise_type : detail::ValuePromise<T> {
    Task get_return_object() { return Task{std::coroutine_handle<promise_type>::from_promise(*this)}; }
  };

  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&&) = delete;
  ~Task()
  {
    if (h_)
      h_.destroy();
  }

  bool await_ready() const noexcept { return false; }
  /// Run the task until it first waits or ends; the awaiter suspends only if it waits. A task that ends at once
  /// thus returns to its awaiter by a plain return: a loop awaiting such tasks does not grow the stack, in any
  /// build (symmetric transfer is a tail call only when the compiler optimises: not under the sanitizers).
  bool await_suspend(std::coroutine_handle<> awaiter)
  {
    auto& p        = h_.promise();
    p.continuation = awaiter;
    p.inline_run   = true;
    h_.resume();
    p.inline_run = false;
    return !h_.done();
  }
  T await_resume()
  {
    auto& p = h_.promise();
    if (p.error)
      std::rethrow_exception(p.error);
    return p.take();
  }

private:
  explicit Task(std::coroutine_handle<promise_type> h) : h_(h) {}
  std::coroutine_handle<promise_type> h_;
};

} // namespace nafsim
