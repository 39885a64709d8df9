// RUN: %check_clang_tidy %s 'libtorch-*' %t -- -config="{CheckOptions: {libtorch-unchecked-index.ReportParameters: true}}" -- %mock_torch

// ReportParameters: the unchecked-index findings here are unchecked
// parameters, which the default (evidence only) does not report.

// Macros that expand to whole modules and to the ops the checks look at.
// Findings inside a macro are reported where the macro is used, with the
// "expanded from" notes; names that lie inside the macro body come from the
// declarations, and no fix-it is offered there (it would edit the macro).
#include <torch/torch.h>

// A macro that defines a module with an unregistered submodule and tensor,
// and an unchecked index in forward(): each use of it is a module of its
// own, with its own findings.
#define DEFINE_BLOCK(Name, Width)                                              \
  struct Name##Impl : torch::nn::Module {                                      \
    Name##Impl() {                                                             \
      fc = register_module("fc", torch::nn::Linear(Width, Width));             \
      head = torch::nn::Linear(Width, 1);                                      \
      scale = torch::ones({Width});                                            \
    }                                                                          \
    torch::Tensor forward(torch::Tensor x, torch::Tensor ids) {                \
      return fc(x).index_select(0, ids) * scale;                               \
    }                                                                          \
    torch::nn::Linear fc{nullptr}, head{nullptr};                              \
    torch::Tensor scale;                                                       \
  };                                                                           \
  TORCH_MODULE(Name);

// Three warnings share one location; clang-tidy versions order them
// differently, so they are matched in any order.
DEFINE_BLOCK(Small, 4)
// CHECK-MESSAGES-DAG: :[[@LINE-1]]:1: warning: index 'ids' reaches index_select on a tensor without a bounds check; an index outside [0, size(0)) is an illegal memory access on CUDA [libtorch-unchecked-index]
// CHECK-MESSAGES-DAG: :[[@LINE-2]]:1: warning: tensor member 'scale' of module 'SmallImpl' is never registered
// CHECK-MESSAGES-DAG: :[[@LINE-3]]:1: warning: submodule 'head' of module 'SmallImpl' is never registered
DEFINE_BLOCK(Large, 64)
// CHECK-MESSAGES-DAG: :[[@LINE-1]]:1: warning: index 'ids' reaches index_select on a tensor without a bounds check
// CHECK-MESSAGES-DAG: :[[@LINE-2]]:1: warning: tensor member 'scale' of module 'LargeImpl' is never registered
// CHECK-MESSAGES-DAG: :[[@LINE-3]]:1: warning: submodule 'head' of module 'LargeImpl' is never registered

// The same module with everything registered and the index checked.
#define DEFINE_GOOD_BLOCK(Name, Width)                                         \
  struct Name##Impl : torch::nn::Module {                                      \
    Name##Impl() {                                                             \
      fc = register_module("fc", torch::nn::Linear(Width, Width));             \
      scale = register_buffer("scale", torch::ones({Width}));                  \
    }                                                                          \
    torch::Tensor forward(torch::Tensor x, torch::Tensor ids) {                \
      TORCH_CHECK(ids.max().item<int64_t>() < Width);                          \
      return x.index_select(0, ids) * scale;                                   \
    }                                                                          \
    torch::nn::Linear fc{nullptr};                                             \
    torch::Tensor scale;                                                       \
  };                                                                           \
  TORCH_MODULE(Name);
DEFINE_GOOD_BLOCK(Good, 4)

// A member declared through a macro, in a hand-written module.
#define TENSOR_MEMBER(name) torch::Tensor name
struct HandImpl : torch::nn::Module {
  HandImpl() { init(); }
  void init() { bias = torch::zeros({2}); }
  TENSOR_MEMBER(bias);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'bias' of module 'HandImpl' is never registered
};

// Ops behind function-like and object-like macros.
#define INDEX(x, ids) (x).index_select(0, (ids))
torch::Tensor viaMacro(torch::Tensor x, torch::Tensor ids) { return INDEX(x, ids); }
// CHECK-MESSAGES: :[[@LINE-1]]:69: warning: index 'ids' reaches index_select on 'x' without a bounds check; an index outside [0, x.size(0)) is an illegal memory access on CUDA [libtorch-unchecked-index]

#define CUDA_ZEROS torch::zeros({8}, torch::kCUDA)
void crossViaMacro() {
  auto idx = torch::arange(4);
  CUDA_ZEROS.index_select(0, idx);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'idx' is on the CPU but the indexed tensor is on CUDA; 'index_select' throws "Expected all tensors to be on the same device" at run time; move both to one device [libtorch-cross-device-index]
}

// A dataset defined by a macro.
#define DEFINE_DATASET(Name)                                                   \
  struct Name : torch::data::datasets::Dataset<Name> {                         \
    torch::data::Example<> get(size_t i) override {                            \
      return {x_[i].cuda(), y_[i]};                                            \
    }                                                                          \
    c10::optional<size_t> size() const override { return 1; }                  \
    torch::Tensor x_, y_;                                                      \
  };
DEFINE_DATASET(MacroData)
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'cuda' moves a tensor to the GPU in 'MacroData::get'
