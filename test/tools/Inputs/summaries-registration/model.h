#pragma once
#include <torch/torch.h>

// The constructor is in model.cpp and calls build_layers(), which is in
// layers.cpp: no file alone holds all the building code.
struct NetImpl : torch::nn::Module {
  explicit NetImpl(int64_t n);
  void build_layers();
  torch::Tensor forward(torch::Tensor x);
  torch::Tensor mask;
  torch::Tensor table;
  torch::nn::Linear fc{nullptr};
  torch::nn::Linear out{nullptr};
};

// Everything registered, in the two files.
struct CleanImpl : torch::nn::Module {
  CleanImpl();
  void build_layers();
  torch::Tensor bias;
  torch::nn::Linear fc{nullptr};
};

// Its only tensor is moved to the input's device at every use: harmless
// unregistered (forward, in model.cpp, says so in its summary).
struct MovedImpl : torch::nn::Module {
  MovedImpl();
  torch::Tensor forward(torch::Tensor x);
  torch::Tensor shift;
};
