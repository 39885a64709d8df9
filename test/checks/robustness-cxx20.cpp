// RUN: %check_clang_tidy -std=c++20 %s 'libtorch-*' %t -- -config="{CheckOptions: {libtorch-unchecked-index.ReportParameters: true}}" -- %mock_torch

// ReportParameters: the unchecked-index findings here are unchecked
// parameters, which the default (evidence only) does not report.

// C++20: concepts, requires-clauses, abbreviated templates, designated
// initialisers, consteval, <=>, range-for with an init statement.
#include <torch/torch.h>
#include <concepts>

template <typename T>
concept Indexable = requires(T t, torch::Tensor i) {
  { t.index_select(0, i) } -> std::same_as<torch::Tensor>;
};

// A constrained template, analysed in its instantiation.
template <Indexable T> torch::Tensor pickConstrained(T x, torch::Tensor ids) {
  return x.index_select(0, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: index 'ids' reaches index_select on 'x' without a bounds check
}
torch::Tensor usePick(torch::Tensor x, torch::Tensor ids) { return pickConstrained(x, ids); }

// An abbreviated template that is never instantiated.
auto pickAbbreviated(Indexable auto x, torch::Tensor ids) { return x.index_select(0, ids); }

template <typename T>
  requires std::integral<T>
torch::Tensor pickRequires(torch::Tensor x, T id) {
  return x.index_select(0, torch::full({1}, id, torch::kLong));
}

struct Config {
  int width = 4;
  bool cuda = false;
  torch::Tensor init;
};

// Designated initialisers of a plain struct that holds a tensor: the
// struct is no module member to register; the plain tensor member is.
struct DesignatedImpl : torch::nn::Module {
  explicit DesignatedImpl(Config c = {.width = 8, .cuda = true}) {
    cfg = Config{.width = c.width, .init = torch::ones({c.width})};
    scale = torch::ones({c.width});
    head = register_module("head", torch::nn::Linear(c.width, 1));
  }
  Config cfg;
  torch::Tensor scale;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'scale' of module 'DesignatedImpl' is never registered
  torch::nn::Linear head{nullptr};
};

consteval int rows() { return 10; }
void modern(torch::Tensor ids) {
  torch::nn::Embedding emb(rows(), 4);
  auto cmp = (1 <=> 2);
  (void)cmp;
  if (ids.max().item<int64_t>() < rows() && ids.min().item<int64_t>() >= 0)
    emb(ids);
  auto x = torch::zeros({8}, torch::kCUDA);
  for (auto idx = torch::arange(4); [[maybe_unused]] int i : {1, 2})
    x.index_select(0, idx);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: index tensor 'idx' is on the CPU but 'x' is on CUDA
}
