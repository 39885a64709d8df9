// libtorch-unchecked-index on the real LibTorch headers: the real
// TORCH_CHECK (C10_UNLIKELY_OR_CONST, [[noreturn]] torchCheckFail), the real
// holders and functional API, and the runtime shim's TORCHTIDY_CHECK_INDEX,
// both as the call it expands to in debug builds and as the unevaluated
// operand it becomes under NDEBUG.
// RUN: %check_clang_tidy %s libtorch-unchecked-index %t -- -- %torch_includes -isystem %runtime_include
// RUN: %check_clang_tidy -check-suffix=NDEBUG %s libtorch-unchecked-index %t -- -- %torch_includes -isystem %runtime_include -DNDEBUG

#include <torch/torch.h>
#include <torchtidy/check.h>

namespace F = torch::nn::functional;

torch::Tensor unchecked(torch::nn::Embedding emb, torch::Tensor ids) {
  return emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: index 'ids' reaches Embedding 'emb' without a bounds check; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-MESSAGES-NDEBUG: :[[@LINE-2]]:10: warning: index 'ids' reaches Embedding 'emb' without a bounds check
  // CHECK-FIXES: {{^}}  TORCHTIDY_CHECK_INDEX(ids, emb->options.num_embeddings());{{$}}
  // CHECK-FIXES-NDEBUG: {{^}}  TORCHTIDY_CHECK_INDEX(ids, emb->options.num_embeddings());{{$}}
}

torch::Tensor indexOps(torch::Tensor x, torch::Tensor ids,
                       torch::data::Example<> &batch) {
  auto a = x.index_select(0, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids' reaches index_select on 'x'
  // CHECK-MESSAGES-NDEBUG: :[[@LINE-2]]:12: warning: index 'ids' reaches index_select on 'x'
  auto b = F::cross_entropy(x, batch.target);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: target 'batch.target' reaches cross_entropy
  // CHECK-MESSAGES-NDEBUG: :[[@LINE-2]]:12: warning: target 'batch.target' reaches cross_entropy
  return a + b;
}

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
  return emb(logits.argmax(1)) + emb(std::get<1>(logits.topk(3))) +
         emb(torch::randint(0, 10, {4}));
}

torch::Tensor lateGuard(torch::Tensor x, torch::Tensor ids) {
  auto out = x.gather(1, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: index 'ids' reaches gather on 'x'
  // CHECK-MESSAGES-NDEBUG: :[[@LINE-2]]:14: warning: index 'ids' reaches gather on 'x'
  TORCHTIDY_CHECK_INDEX(ids, x.size(1));
  return out;
}

torch::Tensor literal() {
  torch::nn::Embedding emb(100, 64);
  return emb(torch::tensor({50, 99, 100}, torch::kLong));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: id 100 is out of range for an embedding with 100 rows
  // CHECK-MESSAGES-NDEBUG: :[[@LINE-2]]:10: warning: id 100 is out of range for an embedding with 100 rows
}
