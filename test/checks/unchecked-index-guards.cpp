// RUN: %check_clang_tidy -check-suffixes=,DEFAULT %s libtorch-unchecked-index %t -- -- %mock_torch
// RUN: %check_clang_tidy -check-suffixes=,PARAMS %s libtorch-unchecked-index %t -- -config="{CheckOptions: {libtorch-unchecked-index.ReportParameters: true}}" -- %mock_torch

// Guards, in both modes (plain CHECK lines hold in both, -PARAMS lines with
// ReportParameters only). A bounds check that does not protect the use is
// evidence in both; an index with no check at all only with the option.

#include <torch/torch.h>
#include <torchtidy/check.h>

#include <cassert>
#include <stdexcept>

// The header is already included: the fix-it adds no second #include.
// CHECK-FIXES: #include <torchtidy/check.h>
// CHECK-FIXES-NOT: #include <torchtidy/check.h>

using torch::Tensor;

// ---- Each guard form, dominating the use: no warning ---------------------

Tensor torchCheck(torch::nn::Embedding emb, Tensor ids) {
  TORCH_CHECK(ids.max().item<int64_t>() < emb->options.num_embeddings(),
              "id out of range");
  return emb(ids);
}

Tensor torchCheckBoth(torch::nn::Embedding emb, Tensor ids) {
  TORCH_CHECK(ids.min().item<int64_t>() >= 0 &&
              ids.max().item<int64_t>() < emb->options.num_embeddings());
  auto out = emb(ids);
  return out + emb(ids);
}

Tensor internalAssert(torch::nn::Embedding emb, Tensor ids) {
  TORCH_INTERNAL_ASSERT((ids < 100).all().item<bool>());
  return emb(ids);
}

Tensor plainAssert(Tensor table, Tensor ids) {
  assert(ids.max().item<int64_t>() < table.size(0));
  return table.index_select(0, ids);
}

Tensor ifThrow(Tensor table, Tensor ids) {
  if (ids.min().item<int64_t>() < 0 ||
      ids.max().item<int64_t>() >= table.size(0))
    throw std::out_of_range("ids");
  return torch::embedding(table, ids);
}

Tensor ifReturn(Tensor table, Tensor ids) {
  if (ids.max().item<int64_t>() >= table.size(0)) {
    return {};
  }
  return table.take(ids);
}

Tensor insideTheCheckedBranch(Tensor table, Tensor ids) {
  if (ids.max().item<int64_t>() < table.size(0))
    return table.gather(0, ids);
  return {};
}

Tensor inLoop(torch::nn::Embedding emb, std::vector<Tensor> &all) {
  Tensor sum;
  for (Tensor ids : all) {
    if (ids.max().item<int64_t>() >= 100)
      continue;
    sum = emb(ids);
  }
  return sum;
}

Tensor shim(torch::nn::Embedding emb, Tensor ids) {
  TORCHTIDY_CHECK_INDEX(ids, emb->options.num_embeddings());
  return emb(ids.cuda());
}

Tensor shimOnMember(torch::nn::Embedding emb, torch::data::Example<> &batch) {
  TORCHTIDY_CHECK_INDEX(batch.target, 10);
  return torch::nll_loss(emb(torch::arange(4)), batch.target);
}

void validateIds(const Tensor &ids, int64_t n) {
  TORCH_CHECK(ids.max().item<int64_t>() < n, "id out of range");
}
void validateTwice(const Tensor &ids, int64_t n) { validateIds(ids, n); }

Tensor helperGuard(torch::nn::Embedding emb, Tensor ids) {
  validateIds(ids, emb->options.num_embeddings());
  return emb(ids);
}

Tensor nestedHelperGuard(torch::nn::Embedding emb, Tensor ids) {
  validateTwice(ids, emb->options.num_embeddings());
  return emb(ids);
}

Tensor guardedBeforeCopy(torch::nn::Embedding emb, Tensor ids) {
  TORCHTIDY_CHECK_INDEX(ids, 100);
  auto flat = ids.view({-1});
  return emb(flat);
}

// ---- Guards that do not protect: evidence in both modes -----------------

Tensor lateGuard(torch::nn::Embedding emb, Tensor ids) {
  auto out = emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: the bounds check of index 'ids' does not protect this use in Embedding 'emb': it comes after the use; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-FIXES: {{^}}Tensor lateGuard(torch::nn::Embedding emb, Tensor ids) {{[{]}}{{$}}
  // CHECK-FIXES-NEXT: {{^}}  TORCHTIDY_CHECK_INDEX(ids, emb->options.num_embeddings());{{$}}
  // CHECK-FIXES-NEXT: {{^}}  auto out = emb(ids);{{$}}
  TORCH_CHECK(ids.max().item<int64_t>() < 100);
  return out;
}

Tensor partialGuard(torch::nn::Embedding emb, Tensor ids, bool strict) {
  if (strict) {
    TORCH_CHECK(ids.max().item<int64_t>() < 100);
  }
  return emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the bounds check of index 'ids' does not protect this use in Embedding 'emb': it is not on every path to the use
}

Tensor reassignedAfterGuard(torch::nn::Embedding emb, Tensor ids,
                            Tensor raw) {
  TORCHTIDY_CHECK_INDEX(ids, 100);
  ids = raw;
  return emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the bounds check of index 'ids' does not protect this use in Embedding 'emb': the index is written again after it
}

Tensor changedInPlace(torch::nn::Embedding emb, Tensor ids) {
  TORCHTIDY_CHECK_INDEX(ids, 100);
  ids += ids;
  return emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the bounds check of index 'ids' does not protect this use in Embedding 'emb': the index is written again after it
}

Tensor reassignedOnOnePath(torch::nn::Embedding emb, Tensor ids, Tensor raw,
                           bool swap) {
  TORCHTIDY_CHECK_INDEX(ids, 100);
  if (swap)
    ids = raw;
  return emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the bounds check of index 'ids' does not protect this use in Embedding 'emb': the index is written again after it
}

Tensor guardInLoopAfterUse(torch::nn::Embedding emb, std::vector<Tensor> &all,
                           Tensor ids) {
  Tensor sum;
  for (size_t i = 0; i < all.size(); ++i) {
    sum = emb(ids);
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: the bounds check of index 'ids' does not protect this use in Embedding 'emb': it comes after the use
    TORCHTIDY_CHECK_INDEX(ids, 100);
  }
  return sum;
}

// An off-by-one bound lets the table's size itself through.
Tensor offByOne(Tensor ids) {
  torch::nn::Embedding emb(100, 8);
  TORCH_CHECK(ids.max().item<int64_t>() <= 100, "id out of range");
  return emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the bounds check of index 'ids' lets 100 through, but Embedding 'emb' has 100 rows: the last valid index is 100 - 1; an illegal memory access on CUDA
}

// ---- No bounds check on this index: only with ReportParameters ----------

Tensor wrongVariable(torch::nn::Embedding emb, Tensor ids, Tensor other) {
  TORCHTIDY_CHECK_INDEX(other, 100);
  TORCH_CHECK(other.max().item<int64_t>() < 100);
  return emb(ids);
  // CHECK-MESSAGES-PARAMS: :[[@LINE-1]]:10: warning: index 'ids' reaches Embedding 'emb' without a bounds check
}

Tensor notARangeTest(torch::nn::Embedding emb, Tensor ids) {
  TORCH_CHECK(ids.numel() > 0);
  if (!ids.defined())
    return {};
  return emb(ids);
  // CHECK-MESSAGES-PARAMS: :[[@LINE-1]]:10: warning: index 'ids' reaches Embedding 'emb' without a bounds check
}

void logIds(const Tensor &ids) {}
void checkSometimes(const Tensor &ids, bool on) {
  if (on) {
    TORCH_CHECK(ids.max().item<int64_t>() < 100);
  }
}

Tensor helperThatDoesNotGuard(torch::nn::Embedding emb, Tensor ids) {
  logIds(ids);
  checkSometimes(ids, true);
  return emb(ids);
  // CHECK-MESSAGES-PARAMS: :[[@LINE-1]]:10: warning: index 'ids' reaches Embedding 'emb' without a bounds check
}

Tensor helperOnOtherArgument(torch::nn::Embedding emb, Tensor ids,
                             Tensor other) {
  validateIds(other, 100);
  return emb(ids);
  // CHECK-MESSAGES-PARAMS: :[[@LINE-1]]:10: warning: index 'ids' reaches Embedding 'emb' without a bounds check
}

Tensor guardOnCopyNotOriginal(torch::nn::Embedding emb, Tensor ids) {
  auto flat = ids.view({-1});
  TORCHTIDY_CHECK_INDEX(flat, 100);
  return emb(ids);
  // CHECK-MESSAGES-PARAMS: :[[@LINE-1]]:10: warning: index 'ids' reaches Embedding 'emb' without a bounds check
}

// ---- Literal ids -----------------------------------------------------------

Tensor literalIds() {
  torch::nn::Embedding emb(100, 64);
  auto inRange = emb(torch::tensor({0, 50, 99}));
  auto ids = torch::tensor({50, 99, 100});
  auto out = emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: id 100 is out of range for an embedding with 100 rows; an illegal memory access on CUDA [libtorch-unchecked-index]
  auto bag = torch::nn::EmbeddingBag(torch::nn::EmbeddingBagOptions(10, 4));
  auto negative = bag(torch::tensor({-1, 3}));
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: id -1 is out of range for an embedding with 10 rows
  return inRange + out + negative;
}

struct LookupImpl : torch::nn::Module {
  LookupImpl() { table = register_module("table", torch::nn::Embedding(8, 2)); }
  Tensor forward() {
    auto in = table(torch::tensor({7}));
    return in + table(torch::tensor({8}));
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: id 8 is out of range for an embedding with 8 rows
  }
  torch::nn::Embedding table{nullptr};
};

// The size is not known: literal ids are trusted.
Tensor unknownSize(torch::nn::Embedding emb) {
  return emb(torch::tensor({100000}));
}
