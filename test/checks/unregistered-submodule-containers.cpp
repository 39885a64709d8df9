// RUN: %check_clang_tidy %s libtorch-unregistered-submodule %t -- -- %mock_torch

// Containers of submodules, dead members, and the user's own modules
// without state: what real code does with them.

#include <torch/torch.h>

#include <string>
#include <vector>

struct BlockImpl : torch::nn::Module {
  BlockImpl() { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Block);

// A free function has no module to register its blocks with.
std::vector<Block> makeBlocks(int n) {
  std::vector<Block> blocks;
  for (int i = 0; i < n; ++i)
    blocks.push_back(Block());
  return blocks;
}

struct FromFreeFunctionImpl : torch::nn::Module {
  FromFreeFunctionImpl() { blocks = makeBlocks(3); }
  torch::Tensor forward(torch::Tensor x) {
    for (auto &b : blocks)
      x = b(x);
    return x;
  }
  std::vector<Block> blocks;
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: member 'blocks', a container of submodules, of module 'FromFreeFunctionImpl' is never registered
};

// Each block registered into a local, then kept in the container.
struct RegisteredLocalImpl : torch::nn::Module {
  RegisteredLocalImpl() {
    for (int i = 0; i < 3; ++i) {
      auto b = register_module("block" + std::to_string(i), Block());
      blocks.push_back(b);
    }
  }
  std::vector<Block> blocks;
};

// Never constructed and never used: dead code, not an unregistered module.
struct LeftoverImpl : torch::nn::Module {
  LeftoverImpl() { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
  torch::nn::Linear unused{nullptr};
  torch::nn::Sequential features;
};

// The user's own modules: one without parameters, buffers, children or
// train/eval behaviour is as harmless as a ReLU (IncludeStateless reports
// it); one that tests is_training() is not.
struct CoordsImpl : torch::nn::Module {
  CoordsImpl(int channels, bool radius) : channels(channels), radius(radius) {}
  torch::Tensor forward(torch::Tensor x) { return torch::cat({x, x}, 1); }
  int channels;
  bool radius;
};
TORCH_MODULE(Coords);

struct NoiseImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return is_training() ? x * 2 : x; }
};
TORCH_MODULE(Noise);

// Declared only: what it holds is not known here, so nothing is said.
struct ElsewhereImpl : torch::nn::Module {
  ElsewhereImpl();
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Elsewhere);

struct UserModulesImpl : torch::nn::Module {
  UserModulesImpl() {
    coords = Coords(2, true);
    noise = Noise();
    other = Elsewhere();
  }
  torch::Tensor forward(torch::Tensor x) { return other(noise(coords(x))); }
  Coords coords{nullptr};
  Noise noise{nullptr};
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: submodule 'noise' of module 'UserModulesImpl' is never registered
  Elsewhere other{nullptr};
};
