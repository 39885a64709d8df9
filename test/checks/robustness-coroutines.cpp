// RUN: %check_clang_tidy -std=c++20 %s 'libtorch-*' %t -- -config="{CheckOptions: {libtorch-unchecked-index.ReportParameters: true}}" -- %mock_torch

// ReportParameters: the unchecked-index findings here are unchecked
// parameters, which the default (evidence only) does not report.

// C++20 coroutines: the checks see through co_yield and co_return, and the
// promise type's members are no module members.
#include <torch/torch.h>
#include <coroutine>

// A minimal coroutine type, enough for co_yield and co_return.
struct TensorTask {
  struct promise_type {
    torch::Tensor value;
    TensorTask get_return_object() {
      return {std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    std::suspend_always yield_value(torch::Tensor t) {
      value = t;
      return {};
    }
    void return_value(torch::Tensor t) { value = t; }
    void unhandled_exception() {}
  };
  std::coroutine_handle<promise_type> handle;
};

TensorTask pickLater(torch::Tensor x, torch::Tensor ids) {
  co_yield x.index_select(0, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids' reaches index_select on 'x' without a bounds check
  co_return x.index_select(0, ids.clamp(0, x.size(0) - 1));
}

TensorTask crossLater() {
  auto x = torch::zeros({8}, torch::kCUDA);
  auto idx = torch::arange(4);
  co_await std::suspend_never{};
  co_return x.index_select(0, idx);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: index tensor 'idx' is on the CPU but 'x' is on CUDA
}

struct CoroImpl : torch::nn::Module {
  CoroImpl() { mask = torch::ones({2}); }
  TensorTask run(torch::Tensor ids) { co_return mask.index_select(0, ids); }
  // CHECK-MESSAGES: :[[@LINE-1]]:49: warning: index 'ids' reaches index_select on 'mask' without a bounds check
  torch::Tensor mask;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'mask' of module 'CoroImpl' is never registered
};

// A dataset's get() that is itself a coroutine would not compile (it must
// return an Example); one that calls a coroutine is analysed as usual.
struct CoroData : torch::data::datasets::Dataset<CoroData> {
  torch::data::Example<> get(size_t i) override {
    auto task = pickLater(x_, torch::arange(1));
    return {task.handle.promise().value.cuda(), x_[i]};
    // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'cuda' moves a tensor to the GPU in 'CoroData::get'
  }
  c10::optional<size_t> size() const override { return 1; }
  torch::Tensor x_;
};
