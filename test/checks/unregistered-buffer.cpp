// RUN: %check_clang_tidy %s libtorch-unregistered-buffer %t -- -- %mock_torch

#include <torch/torch.h>

// ---- Positives ------------------------------------------------------------

struct MaskedImpl : torch::nn::Module {
  MaskedImpl() {
    weight = register_parameter("weight", torch::randn({4, 4}));
    mask_ = torch::ones({4, 4});
  }
  torch::Tensor weight;
  torch::Tensor mask_;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'mask_' of module 'MaskedImpl' is never registered; module->to(device) leaves it behind and parameters(), buffers() and torch::save miss it; assign it from register_buffer() or register_parameter() [libtorch-unregistered-buffer]
};
// CHECK-FIXES: mask_ = register_buffer("mask", torch::ones({4, 4}));

// Through a user base, with an alias of the tensor type.
using Tensor = torch::Tensor;
struct Base : torch::nn::Module {};
struct DerivedImpl : Base {
  DerivedImpl() : scale(torch::ones({1})) {}
  Tensor scale;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor member 'scale' of module 'DerivedImpl' is never registered
};

// Through torch::nn::Cloneable, written in reset().
struct ClonedImpl : torch::nn::Cloneable<ClonedImpl> {
  explicit ClonedImpl(int n) : n(n) { reset(); }
  void reset() override { table = torch::zeros({n, 3}); }
  int n;
  torch::autograd::Variable table;
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: tensor member 'table' of module 'ClonedImpl' is never registered
};
// CHECK-FIXES: void reset() override { table = register_buffer("table", torch::zeros({n, 3})); }

// A default member initialiser, an optional tensor, a container.
struct InitImpl : torch::nn::Module {
  InitImpl() { opt = torch::zeros({1}); }
  torch::Tensor bias = torch::zeros({8});
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'bias' of module 'InitImpl' is never registered
  c10::optional<torch::Tensor> opt;
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: tensor member 'opt' of module 'InitImpl' is never registered
  // Never filled by the building code: nothing to register yet.
  std::vector<torch::Tensor> anchors;
};
// CHECK-FIXES: InitImpl() { opt = register_buffer("opt", torch::zeros({1})); }

struct FilledImpl : torch::nn::Module {
  FilledImpl() {
    for (int i = 0; i < 3; ++i)
      levels.push_back(torch::zeros({i}));
  }
  std::vector<torch::Tensor> levels;
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: member 'levels' of module 'FilledImpl' holds tensors that are never registered; module->to(device) leaves them behind and parameters(), buffers() and torch::save miss them; assign them from register_buffer() or register_parameter()
};

// In a class template: reported once, and the fix uses this->.
template <typename T>
struct TemplatedImpl : torch::nn::Cloneable<TemplatedImpl<T>> {
  TemplatedImpl() { reset(); }
  void reset() override {
    w = this->register_parameter("w", torch::randn({2}));
    running = torch::zeros({2});
  }
  torch::Tensor w, running;
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: tensor member 'running' of module 'TemplatedImpl' is never registered
};
// CHECK-FIXES: running = this->register_buffer("running", torch::zeros({2}));
template struct TemplatedImpl<int>;
template struct TemplatedImpl<float>;

// Written in a helper the constructor calls.
struct HelperImpl : torch::nn::Module {
  HelperImpl() { init(); }
  void init() { cache = torch::zeros({3}); }
  torch::Tensor cache;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'cache' of module 'HelperImpl' is never registered
};

// Assigned twice: a warning, but no single place to rewrite.
struct TwiceImpl : torch::nn::Module {
  explicit TwiceImpl(bool big) {
    if (big)
      t = torch::zeros({64});
    else
      t = torch::zeros({8});
  }
  torch::Tensor t;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 't' of module 'TwiceImpl' is never registered
};
// CHECK-FIXES: t = torch::zeros({64});
// CHECK-FIXES: t = torch::zeros({8});

// ---- Negatives ------------------------------------------------------------

struct RegisteredImpl : torch::nn::Module {
  RegisteredImpl()
      : a(register_buffer("a", torch::zeros({1}))),
        b(register_parameter("b", torch::zeros({1}))) {
    c = register_parameter("c", torch::randn({2})).set_requires_grad(false);
    d = torch::ones({2});
    register_buffer("d", d);
    auto shared = torch::ones({2});
    e = shared;
    register_buffer("e", shared);
    for (int i = 0; i < 2; ++i)
      f.push_back(register_buffer("f" + std::to_string(i), torch::zeros({1})));
    g.push_back(torch::zeros({1}));
    for (auto &t : g)
      register_buffer("g", t);
    if (n > 0)
      h = register_buffer("h", torch::zeros({1}));
    // The assignment is the member: registered.
    register_buffer("k", k = torch::zeros({1}));
  }
  int n = 1;
  torch::Tensor a, b, c, d, e;
  std::vector<torch::Tensor> f, g;
  torch::Tensor h, k;
  torch::Tensor in_class = register_buffer("in_class", torch::zeros({1}));
};

// A cache written only outside the building code.
struct CacheImpl : torch::nn::Module {
  CacheImpl() {}
  torch::Tensor forward(torch::Tensor x) {
    last_output = x;
    return x;
  }
  torch::Tensor last_output;
  torch::Tensor never_written;
};

// The constructor is defined in another translation unit: say nothing.
struct ElsewhereImpl : torch::nn::Module {
  ElsewhereImpl();
  void reset();
  torch::Tensor w;
};

// A helper the constructor calls is defined elsewhere: say nothing.
struct HelperElsewhereImpl : torch::nn::Module {
  HelperElsewhereImpl() {
    w = torch::zeros({1});
    finish();
  }
  void finish();
  torch::Tensor w;
};

// Not modules.
struct NotAModule {
  NotAModule() { t = torch::zeros({1}); }
  torch::Tensor t;
};
namespace other::nn {
struct Module {};
} // namespace other::nn
struct LookAlike : other::nn::Module {
  LookAlike() { t = torch::zeros({1}); }
  torch::Tensor t;
};

// A derived class registers its base's member.
struct PartBase : torch::nn::Module {
  torch::Tensor shared_weight;
};
struct PartDerived : PartBase {
  PartDerived() {
    shared_weight = register_parameter("w", torch::randn({2}));
  }
};

// Members that are not tensors, and tensor references/pointers.
struct OtherMembersImpl : torch::nn::Module {
  OtherMembersImpl(torch::Tensor &r) : ref(r) { ptr = &r; }
  torch::Tensor &ref;
  torch::Tensor *ptr;
  int count = 0;
};
