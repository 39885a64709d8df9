// libtorch-cuda-error-recovery on the real LibTorch headers: the real
// c10::Error hierarchy (std::exception, OutOfMemoryError, IndexError), a
// TORCH_MODULE moved to CUDA, torch::cuda::synchronize.
// RUN: %check_clang_tidy %s libtorch-cuda-error-recovery %t -- -- %torch_includes

#include <torch/torch.h>

#include <iostream>
#include <string>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

std::string answer(Net &net, const torch::Tensor &x) {
  return std::to_string(net->forward(x).argmax().item<int64_t>());
}

// A server: one request's CUDA error becomes an HTTP error, and the loop
// goes on with a dead context.
void serve(Net &net, const std::vector<torch::Tensor> &requests) {
  for (const auto &x : requests) {
    std::string reply;
    try {
      reply = answer(net, x);
    } catch (const std::exception &e) {
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: handler of 'const std::exception &' catches the CUDA errors of the work in its try block and carries on
      reply = std::string("error: ") + e.what();
    }
    std::cout << reply << "\n";
  }
}

void train(torch::Tensor batch) {
  try {
    auto y = batch.to(torch::kCUDA) * 2;
    torch::cuda::synchronize();
  } catch (const c10::Error &e) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of 'const c10::Error &' catches the CUDA errors
    std::cerr << "skipping batch: " << e.what() << "\n";
  }
  // Not reported: out-of-memory first, then rethrow; an index error.
  try {
    auto y = batch.cuda();
  } catch (const c10::OutOfMemoryError &e) {
    std::cerr << "out of memory, smaller batch next time\n";
  } catch (const c10::Error &e) {
    std::cerr << e.what() << "\n";
    throw;
  }
  try {
    auto y = batch.cuda().index_select(0, torch::tensor({0}).cuda());
  } catch (const c10::IndexError &e) {
  }
}

int main() {
  torch::Device device = torch::cuda::is_available()
                             ? torch::Device(torch::kCUDA, 0)
                             : torch::Device(torch::kCPU);
  Net net;
  net->to(device);
  serve(net, {torch::randn({1, 4}, device)});
  try {
    train(torch::randn({8, 4}));
  } catch (const c10::Error &e) {
    std::cerr << e.what() << "\n";
    return 1; // ends the program
  }
}
