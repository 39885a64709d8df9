#include "devices.h"
#include "jobs.h"

#include <cstdio>

// Constructed with the device pick_device() returns, a CUDA device on some
// path; run() works on it in jobs.cpp, and the handler goes on.
int smooth_all(int rounds) {
  Smoother s(pick_device(), 16);
  int failed = 0;
  for (int i = 0; i < rounds; ++i) {
    try {
      s.run();
    } catch (const c10::Error &e) {
      std::fprintf(stderr, "round failed: %s\n", e.what());
      ++failed;
    }
  }
  return failed;
}

// The same from a job a worker would run: the try block is the lambda's,
// the object the function's.
void smooth_in_job() {
  const torch::Device device = pick_device();
  Smoother s(device, 8);
  auto job = [&] {
    try {
      s.run();
    } catch (...) {
      std::fprintf(stderr, "job failed\n");
    }
  };
  job();
}

// A construction that allocates on a CUDA device, in the try block.
void make_arena() {
  try {
    Arena a(torch::Device(torch::kCUDA, 0), 1024);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "no arena: %s\n", e.what());
  }
}

// Not reported: the CPU, a device the caller passes, a method that does no
// CUDA work, and a member a method can change.
void on_cpu() {
  Smoother s(torch::kCPU, 4);
  try {
    s.run();
  } catch (const c10::Error &) {
  }
}
void given(torch::Device device) {
  Smoother s(device, 4);
  try {
    s.run();
  } catch (const c10::Error &) {
  }
}
void quiet() {
  Smoother s(pick_device(), 4);
  try {
    s.report();
  } catch (const c10::Error &) {
  }
}
void moved() {
  Mover m(pick_device());
  try {
    m.run();
  } catch (const c10::Error &) {
  }
}
