// RUN: %check_clang_tidy %s 'libtorch-*' %t -- -config="{CheckOptions: {libtorch-unchecked-index.ReportParameters: true}}" -- %mock_torch -ftemplate-depth=1024

// ReportParameters: the unchecked-index findings here are unchecked
// parameters, which the default (evidence only) does not report.

// Deeply nested templates and their instantiations. Code in instantiated
// templates is analysed once per instantiation, at the written place.
#include <torch/torch.h>

// A module at the end of a 300-deep inheritance recursion.
template <int N> struct Deep : Deep<N - 1> {
  torch::Tensor pick(torch::Tensor x, torch::Tensor ids) {
    return Deep<N - 1>::pick(x, ids);
  }
};
template <> struct Deep<0> : torch::nn::Module {
  Deep() { mask = torch::ones({1}); }
  torch::Tensor pick(torch::Tensor x, torch::Tensor ids) {
    return x.index_select(0, ids);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids' reaches index_select on 'x' without a bounds check
  }
  torch::Tensor mask;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'mask' of module 'Deep<0>' is never registered
};
torch::Tensor useDeep(torch::Tensor x, torch::Tensor ids) {
  Deep<300> d;
  return d.pick(x, ids.clamp(0, x.size(0) - 1));
}

// A member whose type nests 64 templates around a tensor: not a tensor
// member, nothing to register.
template <typename T> struct Box { T value; };
#define BOX2(T) Box<Box<T>>
#define BOX8(T) BOX2(BOX2(BOX2(BOX2(T))))
#define BOX64(T) BOX8(BOX8(BOX8(BOX8(BOX8(BOX8(BOX8(BOX8(T))))))))
struct NestedImpl : torch::nn::Module {
  NestedImpl() { deep.value.value.value.value = {}; }
  BOX64(torch::Tensor) deep;
};

// Variadic recursion over index ops: each op is one finding.
template <typename T> T sumAll(T t) { return t; }
template <typename T, typename... R> T sumAll(T t, R... rest) { return t + sumAll(rest...); }
torch::Tensor gatherMany(torch::Tensor x, torch::Tensor a, torch::Tensor b) {
  return sumAll(x.index_select(0, a), x.index_select(0, b), x, x, x, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: index 'a' reaches index_select on 'x' without a bounds check
  // CHECK-MESSAGES: :[[@LINE-2]]:39: warning: index 'b' reaches index_select on 'x' without a bounds check
}

// A module template with a long argument pack, instantiated once.
template <typename... Ts> struct TupleImpl : torch::nn::Module {
  TupleImpl() { extra = torch::zeros({int64_t(sizeof...(Ts))}); }
  torch::Tensor extra;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'extra' of module 'TupleImpl' is never registered
};
TupleImpl<int, float, double, char, long, short, Box<int>, Box<Box<int>>> tuple;

// Recursive constexpr templates feeding a factory's size.
template <int N> struct Fib { static constexpr int value = Fib<N - 1>::value + Fib<N - 2>::value; };
template <> struct Fib<1> { static constexpr int value = 1; };
template <> struct Fib<0> { static constexpr int value = 0; };
struct FibImpl : torch::nn::Module {
  FibImpl() { table = register_buffer("table", torch::zeros({Fib<40>::value})); }
  torch::Tensor table;
};
