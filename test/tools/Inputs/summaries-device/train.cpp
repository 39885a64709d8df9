#include "devices.h"

#include <cstdio>
#include <vector>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x * 2; }
};
TORCH_MODULE(Net);

// Batches moved to the device devices.cpp picks, in a try block whose
// handler reports and goes on with the next batch.
int run_batches(const std::vector<torch::Tensor> &batches) {
  const torch::Device device = training_device();
  int failed = 0;
  for (const torch::Tensor &b : batches) {
    try {
      auto x = b.to(device);
    } catch (const c10::Error &e) {
      std::fprintf(stderr, "skipping a batch: %s\n", e.what());
      ++failed;
    }
  }
  return failed;
}

// A module moved there, and run in a try block.
Net make_net() {
  Net net;
  net->to(training_device());
  return net;
}
torch::Tensor infer(Net &net, const torch::Tensor &x) {
  try {
    return net->forward(x);
  } catch (...) {
    return torch::Tensor();
  }
}

// Exported on the CPU: no CUDA work here.
void export_batch(const torch::Tensor &b) {
  try {
    auto x = b.to(export_device());
  } catch (const c10::Error &) {
  }
}
