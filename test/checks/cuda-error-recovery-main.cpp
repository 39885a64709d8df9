// RUN: %check_clang_tidy %s libtorch-cuda-error-recovery %t -- -- %mock_torch

// Falling off the end of main returns from main: a handler after which main
// only prints up to its end ends the program. Anything else that can run
// after the handler (CUDA work, the user's code, another turn of a loop)
// keeps the finding.

#include <torch/torch.h>

#include <cstdio>

void train(torch::Tensor x);

int main() {
  auto x = torch::ones({2});
  // CUDA work follows the handler.
  try {
    x = x.cuda();
  } catch (const c10::Error &e) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of 'const c10::Error &' catches the CUDA errors of the work in its try block and carries on
    std::puts(e.what());
  }
  // The next turn of the loop does the work again.
  for (int i = 0; i < 3; ++i) {
    try {
      x = x.cuda();
    } catch (...) {
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: handler of '...' catches
      std::puts("retrying");
    }
  }
  // The handler calls the user's code.
  try {
    x = x.cuda();
  } catch (...) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of '...' catches
    train(x);
  }
  if (x.numel() > 1) {
    try {
      x = x.cuda();
    } catch (const std::exception &e) {
      // Only printing from here to the end of main: not reported.
      std::printf("failed: %s\n", e.what());
    }
    std::puts("done");
  }
  std::puts("bye");
  return 0;
}
