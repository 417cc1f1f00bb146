// The program the call-graph tests sample: its time is in leaf(), called
// by middle_a() twice for each call by middle_b(), both from main(). Built
// with frame pointers (-O0 -fno-omit-frame-pointer), so that perf's
// frame-pointer call chains hold every frame.
//
//   tagop_callchain_fixture [MILLISECONDS]   (default 300)
//   tagop_callchain_fixture MILLISECONDS split
//     the same in three: this thread, a second thread, and a child process
//     (forked, not exec'd: the same name), for the reports by thread and
//     process.
//   tagop_callchain_fixture MILLISECONDS named
//     two threads, the second named "second" (pthread_setname_np).

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

volatile unsigned long sink;

extern "C" __attribute__((noinline)) unsigned long leaf(unsigned long x) {
  for (int i = 0; i < 2000; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

extern "C" __attribute__((noinline)) unsigned long middle_a(unsigned long x) { return leaf(x) + leaf(x + 1); }

extern "C" __attribute__((noinline)) unsigned long middle_b(unsigned long x) { return leaf(x); }

__attribute__((noinline)) void run(int milliseconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(milliseconds);
  unsigned long x = 1;
  while (std::chrono::steady_clock::now() < end) {
    x = middle_a(x);
    x = middle_b(x);
  }
  sink = x;
}

int main(int argc, char** argv) {
  const int milliseconds = argc > 1 ? std::atoi(argv[1]) : 300;
  if (argc > 2 && std::strcmp(argv[2], "named") == 0) {
    std::thread second([milliseconds] {
      ::pthread_setname_np(::pthread_self(), "second");
      run(milliseconds);
    });
    run(milliseconds);
    second.join();
    return 0;
  }
  if (argc > 2 && std::strcmp(argv[2], "split") == 0) {
    const pid_t child = ::fork();
    if (child == 0) {
      run(milliseconds);
      std::_Exit(0);
    }
    std::thread second(run, milliseconds);
    run(milliseconds);
    second.join();
    int status = 0;
    if (child > 0) ::waitpid(child, &status, 0);
    return 0;
  }
  // In main itself, not run(): the call-graph tests name main's chains.
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(milliseconds);
  unsigned long x = 1;
  while (std::chrono::steady_clock::now() < end) {
    x = middle_a(x);
    x = middle_b(x);
  }
  sink = x;
}
