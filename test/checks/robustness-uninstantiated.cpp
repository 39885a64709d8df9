// RUN: %check_clang_tidy %s 'libtorch-*' %t -- -- %mock_torch

// Dependent code in templates that are never instantiated. What does not
// depend on the template parameters is a finding as in any other code;
// dependent expressions are left alone: their meaning is not known yet.
#include <torch/torch.h>

template <typename T> struct GenericImpl : torch::nn::Module {
  GenericImpl() {
    buf = T::make();
    mask = torch::ones({1});
    sub = torch::nn::Linear(2, 2);
    this->kept = this->register_buffer("kept", torch::ones({1}));
  }
  T buf;
  torch::Tensor mask, kept;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'mask' of module 'GenericImpl' is never registered
  torch::nn::Linear sub{nullptr};
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: submodule 'sub' of module 'GenericImpl' is never registered
};

// A module whose base is a template parameter: registration goes through
// the dependent base.
template <typename Base> struct MixinImpl : Base {
  MixinImpl() { w = this->register_parameter("w", torch::ones({1})); }
  torch::Tensor w;
};

template <typename T> auto dependentIndex(T x, T ids) {
  return x.index_select(0, ids) + x.foo(ids.bar());
}

template <typename T> void dependentCross(T device) {
  auto x = torch::zeros({8}).to(device);
  auto idx = torch::arange(4);
  x.index_select(0, idx);
  typename T::type y = x.template get<T>();
}

template <typename D>
struct GenericData : torch::data::datasets::Dataset<GenericData<D>> {
  torch::data::Example<> get(size_t i) override { return {D::load(i).cuda(), x_}; }
  c10::optional<size_t> size() const override { return 1; }
  torch::Tensor x_;
};

// A member template of a module, never called.
struct HostImpl : torch::nn::Module {
  template <typename T> void set(T v) { later = v; }
  HostImpl() { later = register_buffer("later", torch::ones({1})); }
  torch::Tensor later;
};

// A generic lambda that is never called.
auto unusedGeneric = [](auto x, auto ids) { return x.index_select(0, ids); };
