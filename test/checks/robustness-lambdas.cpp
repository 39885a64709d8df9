// RUN: %check_clang_tidy %s 'libtorch-*' %t -- -config="{CheckOptions: {libtorch-unchecked-index.ReportParameters: true}}" -- %mock_torch

// ReportParameters: the unchecked-index findings here are unchecked
// parameters, which the default (evidence only) does not report.

// Lambdas: in building code, as index sinks, and in datasets.
#include <torch/torch.h>
#include <functional>

struct LambdaImpl : torch::nn::Module {
  LambdaImpl() {
    auto init = [this] { mask = torch::ones({4}); };
    init();
    [&] { fc = torch::nn::Linear(4, 4); }();
    // A helper lambda that returns the registration registers what it is
    // assigned to, like the registration itself.
    auto reg = [this](const char *n) { return register_buffer(n, torch::ones({2})); };
    kept = reg("kept");
  }
  torch::Tensor mask, kept;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'mask' of module 'LambdaImpl' is never registered
  torch::nn::Linear fc{nullptr};
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: submodule 'fc' of module 'LambdaImpl' is never registered
};

// So does a helper method.
struct HelperImpl : torch::nn::Module {
  HelperImpl() {
    table = makeBuffer("table", 8);
    half = maybe(true);
  }
  torch::Tensor makeBuffer(const char *name, int64_t n) {
    return register_buffer(name, torch::zeros({n}));
  }
  // Not every path registers: not a registration.
  torch::Tensor maybe(bool b) {
    if (b)
      return register_buffer("half", torch::zeros({1}));
    return torch::zeros({1});
  }
  torch::Tensor table, half;
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: tensor member 'half' of module 'HelperImpl' is never registered
};

torch::Tensor lambdas(torch::Tensor x, torch::Tensor ids) {
  auto pick = [&](torch::Tensor i) { return x.index_select(0, i); };
  // CHECK-MESSAGES: :[[@LINE-1]]:45: warning: index 'i' reaches index_select on 'x' without a bounds check
  auto guarded = [&](torch::Tensor i) {
    TORCH_CHECK(i.max().item<int64_t>() < x.size(0));
    return x.index_select(0, i);
  };
  // A generic lambda is a template: its calls are not analysed.
  auto generic = [](auto t, auto i) { return t.index_select(0, i); };
  std::function<torch::Tensor(torch::Tensor)> f = [x](torch::Tensor i) { return x.gather(0, i); };
  // CHECK-MESSAGES: :[[@LINE-1]]:81: warning: index 'i' reaches gather on 'x' without a bounds check
  return pick(ids) + guarded(ids) + generic(x, ids) + f(ids);
}

void lambdaDevice() {
  // A captured tensor's device is not followed into the lambda.
  auto x = torch::zeros({8}, torch::kCUDA);
  auto run = [&] {
    auto idx = torch::arange(4);
    return x.index_select(0, idx);
  };
  run();
  auto inner = [] {
    auto y = torch::zeros({8}, torch::kCUDA);
    auto idx = torch::arange(4);
    return y.index_select(0, idx);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index tensor 'idx' is on the CPU but 'y' is on CUDA
  };
  inner();
}

struct LambdaData : torch::data::datasets::Dataset<LambdaData> {
  torch::data::Example<> get(size_t i) override {
    auto move = [](torch::Tensor t) { return t.cuda(); };
    // CHECK-MESSAGES: :[[@LINE-1]]:48: warning: 'cuda' moves a tensor to the GPU in 'LambdaData::get'
    return {move(x_[i]), x_[i]};
  }
  c10::optional<size_t> size() const override { return 1; }
  torch::Tensor x_;
};
