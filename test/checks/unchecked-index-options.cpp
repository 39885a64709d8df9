// RUN: %check_clang_tidy %s libtorch-unchecked-index %t -- -config="{CheckOptions: {libtorch-unchecked-index.CheckLossTargets: false, libtorch-unchecked-index.GuardFunctions: '::mylib::validate;check_ids', libtorch-unchecked-index.ReportParameters: true}}" \
// RUN:   -- %mock_torch

#include <torch/torch.h>

namespace F = torch::nn::functional;

// Declared only: their bodies are elsewhere, the option says they guard.
namespace mylib {
void validate(const torch::Tensor &ids, int64_t n);
void log(const torch::Tensor &ids);
} // namespace mylib
namespace other {
void validate(const torch::Tensor &ids, int64_t n);
void check_ids(const torch::Tensor &ids);
} // namespace other

// CheckLossTargets: false: targets of losses are not reported.
torch::Tensor loss(torch::Tensor logits, torch::Tensor labels) {
  return F::nll_loss(logits, labels) + F::cross_entropy(logits, labels);
}

torch::Tensor listedQualified(torch::nn::Embedding emb, torch::Tensor ids) {
  mylib::validate(ids, 100);
  return emb(ids);
}

torch::Tensor listedByPlainName(torch::nn::Embedding emb, torch::Tensor ids) {
  other::check_ids(ids);
  return emb(ids);
}

// A function of the same plain name in another namespace is not listed.
torch::Tensor sameNameElsewhere(torch::nn::Embedding emb, torch::Tensor ids) {
  other::validate(ids, 100);
  return emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: index 'ids' reaches Embedding 'emb' without a bounds check
}

torch::Tensor notListed(torch::nn::Embedding emb, torch::Tensor ids) {
  mylib::log(ids);
  return emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: index 'ids' reaches Embedding 'emb' without a bounds check
}

// Index ops are still checked.
torch::Tensor indexOp(torch::Tensor x, torch::Tensor ids) {
  return x.index_select(0, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: index 'ids' reaches index_select on 'x' without a bounds check
}
