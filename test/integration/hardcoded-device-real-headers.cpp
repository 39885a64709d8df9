// libtorch-hardcoded-device on the real LibTorch headers: the real
// torch::nn::Module, Cloneable, TensorOptions (`x.to(torch::kCUDA)` is
// `to(TensorOptions)` through an implicit conversion) and torch::Library.
// RUN: %check_clang_tidy %s libtorch-hardcoded-device %t -- -- %torch_includes

#include <torch/library.h>
#include <torch/torch.h>

struct BlockImpl : torch::nn::Cloneable<BlockImpl> {
  explicit BlockImpl(int64_t n) : n_(n) { reset(); }
  void reset() override {
    fc = register_module("fc", torch::nn::Linear(n_, n_));
    scale = register_buffer("scale", torch::ones({n_}).cuda());
    // CHECK-MESSAGES: :[[@LINE-1]]:56: warning: 'cuda' moves a tensor to the current CUDA device (cuda:0 unless a guard says otherwise) in 'BlockImpl::reset', where the module is built
    // CHECK-FIXES: scale = register_buffer("scale", torch::ones({n_}));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto h = fc(x).to(torch::kCUDA);
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'to' moves a tensor to a fixed device ('torch::kCUDA') in 'BlockImpl::forward'
    // CHECK-FIXES: auto h = fc(x).to(x.device());
    auto noise = torch::randn({n_}, torch::Device(torch::kCUDA, 0));
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'randn' creates a tensor on a fixed device ('torch::Device(torch::kCUDA, 0)') in 'BlockImpl::forward'
    // CHECK-FIXES: auto noise = torch::randn({n_}, x.device());
    auto mask = torch::ones({n_, n_}).triu(1);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'ones' creates a tensor on the CPU (no device given) in 'BlockImpl::forward', and 'matmul' combines it with 'x', which is on the module's device
    // CHECK-FIXES: auto mask = torch::ones({n_, n_}, x.device()).triu(1);
    auto out = x.matmul(mask) + h + noise * scale;
    // Not reported: the input's device and options, a 0-dim scalar, the CPU
    // for output.
    auto bias = torch::zeros({n_}, x.options()) + torch::ones({n_}, x.device());
    // A scalar through an op (torch::tensor(double) takes a
    // TensorDataContainer): 0-dim, fine on the CPU.
    auto c = torch::sqrt(torch::tensor(2.0 / 3.14159265358979323846));
    out = out * c;
    return (out + bias + torch::scalar_tensor(0.5)).to(torch::kCPU);
  }
  int64_t n_;
  torch::nn::Linear fc{nullptr};
  torch::Tensor scale;
};
TORCH_MODULE(Block);

// A kernel registration names a dispatch key, not a tensor's device.
torch::Tensor mul_cuda(const torch::Tensor &a, const torch::Tensor &b);
TORCH_LIBRARY_IMPL(myops, CUDA, m) { m.impl("mul", &mul_cuda); }
void registerMul(torch::Library &m) {
  m.impl("mul", torch::dispatch(c10::DispatchKey::CUDA, &mul_cuda));
}

// Outside a module the program chooses where to run.
void run() {
  Block block(4);
  block->to(torch::kCUDA);
  auto y = block->forward(torch::randn({2, 4}).to(torch::kCUDA));
}
