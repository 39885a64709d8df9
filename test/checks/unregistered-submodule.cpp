// RUN: %check_clang_tidy %s libtorch-unregistered-submodule %t -- -- %mock_torch

#include <torch/torch.h>

// ---- Positives ------------------------------------------------------------

struct NetImpl : torch::nn::Module {
  NetImpl() {
    first = register_module("first", torch::nn::Linear(8, 16));
    second = torch::nn::Linear(16, 4);
    drop = torch::nn::Dropout(0.5);
  }
  torch::nn::Linear first{nullptr}, second{nullptr};
  // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: submodule 'second' of module 'NetImpl' is never registered; the optimizer, module->to(device), torch::save and eval() do not reach its parameters and state; assign it from register_module() [libtorch-unregistered-submodule]
  // An unregistered Dropout stays active in eval().
  torch::nn::Dropout drop{nullptr};
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: submodule 'drop' of module 'NetImpl' is never registered
};
// CHECK-FIXES: second = register_module("second", torch::nn::Linear(16, 4));
// CHECK-FIXES: drop = register_module("drop", torch::nn::Dropout(0.5));

// A user TORCH_MODULE holder, a shared_ptr to an Impl, a default-constructed
// holder, and containers.
struct BlockImpl : torch::nn::Module {
  BlockImpl() { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Block);

struct TowerImpl : torch::nn::Module {
  TowerImpl() : head(std::make_shared<torch::nn::LinearImpl>(4, 2)) {
    block = Block();
    for (int i = 0; i < 3; ++i)
      blocks.push_back(Block());
  }
  Block block{nullptr};
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: submodule 'block' of module 'TowerImpl' is never registered
  std::shared_ptr<torch::nn::LinearImpl> head;
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: submodule 'head' of module 'TowerImpl' is never registered
  std::vector<Block> blocks;
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: member 'blocks', a container of submodules, of module 'TowerImpl' is never registered; the optimizer, module->to(device), torch::save and eval() do not reach their parameters and state; assign them from register_module()
  torch::nn::Sequential body;
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: submodule 'body' of module 'TowerImpl' is never registered
  torch::Tensor forward(torch::Tensor x) { return body->forward(x); }
};
// CHECK-FIXES: block = register_module("block", Block());

// Through Cloneable and reset(), in a class template.
template <int N>
struct StackImpl : torch::nn::Cloneable<StackImpl<N>> {
  StackImpl() { reset(); }
  void reset() override { proj = torch::nn::Linear(N, N); }
  torch::nn::Linear proj{nullptr};
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: submodule 'proj' of module 'StackImpl' is never registered
};
// CHECK-FIXES: void reset() override { proj = this->register_module("proj", torch::nn::Linear(N, N)); }
template struct StackImpl<3>;

// ---- Negatives ------------------------------------------------------------

struct GoodImpl : torch::nn::Module {
  GoodImpl()
      : a(register_module("a", torch::nn::Linear(2, 2))),
        p(register_module("p", std::make_shared<torch::nn::LinearImpl>(2, 2))) {
    auto layer = torch::nn::Linear(2, 2);
    rnn = layer;
    register_module("rnn", layer);
    for (int i = 0; i < 2; ++i)
      layers.push_back(register_module("l" + std::to_string(i),
                                       torch::nn::Linear(2, 2)));
    for (int i = 0; i < 2; ++i)
      more.push_back(torch::nn::Linear(2, 2));
    for (auto &m : more)
      register_module("more", m);
    if (use_extra)
      extra = register_module("extra", torch::nn::Linear(2, 2));
    seq = register_module("seq", torch::nn::Sequential());
    register_module("kept", kept);
    // The assignment is the member: registered.
    register_module("assigned", assigned = torch::nn::Linear(2, 2));
    register_module("grouped", (grouped = torch::nn::Linear(2, 2)));
  }
  bool use_extra = false;
  torch::nn::Linear a{nullptr}, rnn{nullptr}, extra{nullptr};
  torch::nn::Linear assigned = nullptr, grouped = nullptr;
  std::shared_ptr<torch::nn::LinearImpl> p;
  std::vector<torch::nn::Linear> layers, more;
  torch::nn::Sequential seq{nullptr};
  torch::nn::Sequential kept;
  // Never constructed: an empty holder, an empty pointer, an empty vector.
  torch::nn::Linear unused{nullptr};
  std::shared_ptr<torch::nn::LinearImpl> none;
  std::vector<torch::nn::Linear> nothing;
  // Stateless modules are not reported by default.
  torch::nn::ReLU relu;
  torch::nn::MaxPool2d pool{nullptr};
};

struct PoolImpl : torch::nn::Module {
  PoolImpl() { pool = torch::nn::MaxPool2d(2); }
  torch::nn::MaxPool2d pool{nullptr};
};

// Assigned outside the building code only (set up later by the user).
struct LateImpl : torch::nn::Module {
  LateImpl() {}
  void attach() { head = torch::nn::Linear(2, 2); }
  torch::nn::Linear head{nullptr};
};

// Constructor in another translation unit.
struct ElsewhereImpl : torch::nn::Module {
  ElsewhereImpl();
  torch::nn::Linear fc{nullptr};
  torch::nn::Sequential seq;
};

// Not a module: holders in a plain class are not registration's business.
struct Trainer {
  Trainer() { model = torch::nn::Linear(2, 2); }
  torch::nn::Linear model{nullptr};
};

// ---- Held by value ----------------------------------------------------------

// A module of the user's held by value: register_module needs a shared_ptr
// or a holder, and none is ever made of it. No fix-it.
struct AttentionImpl : torch::nn::Module {
  explicit AttentionImpl(int64_t d) {
    proj = register_module("proj", torch::nn::Linear(d, d));
  }
  torch::nn::Linear proj{nullptr};
};
struct LayerImpl : torch::nn::Module {
  explicit LayerImpl(int64_t d) : attention(d) {}
  AttentionImpl attention;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: submodule 'attention' of module 'LayerImpl' is held by value and never registered; the optimizer, module->to(device), torch::save and eval() do not reach its parameters and state; register_module() takes a std::shared_ptr or a module holder: hold it as one (TORCH_MODULE) and assign it from register_module() [libtorch-unregistered-submodule]
  // CHECK-MESSAGES: :[[@LINE-3]]:35: note: 'attention' is initialised here, without registration
  torch::nn::LinearImpl out{4, 4};
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: submodule 'out' of module 'LayerImpl' is held by value and never registered
  // CHECK-MESSAGES: :[[@LINE-2]]:28: note: 'out' is initialised here, without registration
};

// Stateless by value: as harmless as a ReLU. In a plain class: not a module.
struct ScaleImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x * 2; }
};
struct ScaledImpl : torch::nn::Module {
  ScaledImpl() {}
  ScaleImpl scale;
};
struct Holder {
  Holder() : attention(4) {}
  AttentionImpl attention;
};

// Registered as a copy: std::make_shared<M>(m) shares m's holders and
// tensors, so the registered module's state is the member's.
struct CopiedImpl : torch::nn::Module {
  CopiedImpl() : attention(4) {
    register_module("attention", std::make_shared<AttentionImpl>(attention));
  }
  AttentionImpl attention;
};
