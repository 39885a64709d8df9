// libtorch-unchecked-index on the real LibTorch headers: the real
// TORCH_CHECK (C10_UNLIKELY_OR_CONST, [[noreturn]] torchCheckFail), the real
// holders, options and functional API, torch::indexing::Slice, and the
// runtime shim's TORCHTIDY_CHECK_INDEX, both as the call it expands to in
// debug builds and as the unevaluated operand it becomes under NDEBUG. Both
// modes: the default (evidence) and ReportParameters.
// RUN: %check_clang_tidy -check-suffixes=,DEFAULT %s libtorch-unchecked-index %t -- -- %torch_includes -isystem %runtime_include
// RUN: %check_clang_tidy -check-suffixes=,NDEBUG %s libtorch-unchecked-index %t -- -- %torch_includes -isystem %runtime_include -DNDEBUG
// RUN: %check_clang_tidy -check-suffixes=,PARAMS %s libtorch-unchecked-index %t -- -config="{CheckOptions: {libtorch-unchecked-index.ReportParameters: true}}" -- %torch_includes -isystem %runtime_include

#include <torch/torch.h>
#include <torchtidy/check.h>

#include <string>
#include <vector>

namespace F = torch::nn::functional;
using torch::indexing::Slice;

// ---- Evidence ---------------------------------------------------------------

struct GptImpl : torch::nn::Module {
  GptImpl(int64_t vocab, int64_t block_size, int64_t dim)
      : block_size_(block_size) {
    wte = register_module("wte", torch::nn::Embedding(vocab, dim));
    wpe = register_module(
        "wpe", torch::nn::Embedding(torch::nn::EmbeddingOptions(block_size, dim)));
  }
  torch::Tensor forward(torch::Tensor idx) {
    const int64_t T = idx.size(1);
    auto pos = torch::arange(0, T, torch::dtype(torch::kLong));
    return wte(idx) + wpe(pos);
    // CHECK-MESSAGES-PARAMS: :[[@LINE-1]]:12: warning: index 'idx' reaches Embedding 'wte' without a bounds check
    // CHECK-MESSAGES: :[[@LINE-2]]:23: warning: index 'pos' goes up to T - 1, a length known only at run time, but Embedding 'wpe' has block_size_ rows and nothing bounds T by them; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
  }
  // Cropped to the context when longer: silent.
  torch::Tensor cropped(torch::Tensor idx) {
    if (idx.size(1) > block_size_)
      idx = idx.index({Slice(), Slice(-block_size_)});
    return wpe(torch::arange(idx.size(1), torch::kLong));
  }
  // Generation appends a token a step: the sequence grows past the context,
  // the evidence that forward's length is not bounded (without a caller in
  // the file, only ReportParameters reports forward).
  torch::Tensor generate(torch::Tensor idx, int64_t steps) {
    for (int64_t i = 0; i < steps; ++i) {
      auto next = forward(idx).argmax(-1) + cropped(idx).argmax(-1);
      idx = torch::cat({idx, next}, 1);
    }
    return idx;
  }
  int64_t block_size_;
  torch::nn::Embedding wte{nullptr}, wpe{nullptr};
};

torch::Tensor literal() {
  torch::nn::Embedding emb(100, 64);
  return emb(torch::tensor({50, 99, 100}, torch::kLong));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: id 100 is out of range for an embedding with 100 rows
}

torch::Tensor padded(torch::nn::Embedding emb, int64_t n) {
  auto ids = torch::full({n}, -1, torch::kLong);
  return emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: id -1 is out of range for an embedding
}

torch::Tensor shifted(torch::Tensor alphas, int64_t steps) {
  auto t = torch::randint(0, steps, {8}, torch::kLong);
  return alphas.gather(0, t - 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: index 't - 1' can be -1, outside [0, alphas.size(0)) of gather on 'alphas'
}

torch::Tensor parsed(torch::nn::Embedding emb,
                     const std::vector<std::string> &tokens) {
  std::vector<int64_t> ids;
  for (const auto &tok : tokens)
    ids.push_back(std::stol(tok));
  return emb(torch::tensor(ids));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: index 'torch::tensor(ids)' holds values from outside the program
}

torch::Tensor lateGuard(torch::Tensor x, torch::Tensor ids) {
  auto out = x.gather(1, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: the bounds check of index 'ids' does not protect this use in gather on 'x': it comes after the use
  TORCHTIDY_CHECK_INDEX(ids, x.size(1));
  return out;
}

// ---- No evidence: only with ReportParameters -------------------------------

torch::Tensor unchecked(torch::nn::Embedding emb, torch::Tensor ids) {
  return emb(ids);
  // CHECK-MESSAGES-PARAMS: :[[@LINE-1]]:10: warning: index 'ids' reaches Embedding 'emb' without a bounds check; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-FIXES-PARAMS: {{^}}  TORCHTIDY_CHECK_INDEX(ids, emb->options.num_embeddings());{{$}}
}

torch::Tensor indexOps(torch::Tensor x, torch::Tensor ids,
                       torch::data::Example<> &batch) {
  auto a = x.index_select(0, ids);
  // CHECK-MESSAGES-PARAMS: :[[@LINE-1]]:12: warning: index 'ids' reaches index_select on 'x'
  auto b = F::cross_entropy(x, batch.target);
  // CHECK-MESSAGES-PARAMS: :[[@LINE-1]]:12: warning: target 'batch.target' reaches cross_entropy
  auto c = F::detail::embedding(ids, x, c10::nullopt, c10::nullopt, 2.0, false,
                                false);
  // CHECK-MESSAGES-PARAMS: :[[@LINE-2]]:12: warning: index 'ids' reaches embedding of 'x'
  return a + b + c;
}

// ---- Guarded or in range: silent in both modes -----------------------------

torch::Tensor torchCheck(torch::nn::Embedding emb, torch::Tensor ids) {
  TORCH_CHECK(ids.min().item<int64_t>() >= 0 &&
                  ids.max().item<int64_t>() < emb->options.num_embeddings(),
              "id out of range");
  return emb(ids);
}

torch::Tensor internalAssert(torch::Tensor weight, torch::Tensor ids) {
  TORCH_INTERNAL_ASSERT((ids < weight.size(0)).all().item<bool>());
  return torch::embedding(weight, ids);
}

torch::Tensor shim(torch::nn::EmbeddingBag bag, torch::Tensor ids) {
  TORCHTIDY_CHECK_INDEX(ids, bag->options.num_embeddings());
  return bag(ids);
}

torch::Tensor producers(torch::nn::Embedding emb, torch::Tensor logits) {
  auto order = logits.argsort(/*dim=*/-1, /*descending=*/false);
  return emb(logits.argmax(1)) + emb(std::get<1>(logits.topk(3))) +
         emb(torch::randint(0, 10, {4})) +
         emb(order.split_with_sizes({1, 2}, -1).at(1)) +
         emb(order.index({Slice(), Slice(0, 2)}));
}
