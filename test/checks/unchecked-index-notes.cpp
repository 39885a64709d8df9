// RUN: %check_clang_tidy %s libtorch-unchecked-index %t -- -- %mock_torch

#include <torch/torch.h>

// Each warning has a note at the evidence: where the unchecked index comes
// from, or where a literal id and the table's size are written. The fix-its
// show as notes too: the #include (once per file) and the inserted check.

torch::Tensor load_ids();
torch::Tensor global_ids;

torch::Tensor parameter(torch::nn::Embedding emb, torch::Tensor ids) {
  return emb(ids);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: index 'ids' reaches Embedding 'emb' without a bounds check; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES: :[[@LINE-3]]:65: note: 'ids' is a parameter: its values come from the caller
}

torch::Tensor loader(torch::Tensor table) {
  auto ids = load_ids();
  return table.index_select(0, ids);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: index 'ids' reaches index_select on 'table' without a bounds check; an index outside [0, table.size(0)) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES: :[[@LINE-3]]:14: note: the index comes from a call to 'load_ids', which does not produce bounded indices
}

torch::Tensor computed(torch::Tensor table, torch::Tensor logits) {
  auto ids = logits.argmax(1) + 1;
  return table.take(ids);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: index 'ids' reaches take on 'table'
  // CHECK-NOTES: :[[@LINE-3]]:14: note: the index is computed by '+' here, which can leave the table's range
}

torch::Tensor global(torch::nn::Embedding emb) {
  return emb(global_ids);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: index 'global_ids' reaches Embedding 'emb'
  // CHECK-NOTES: :10:15: note: 'global_ids' is a global variable: its values are set outside this function
}

torch::Tensor batch(torch::Tensor logits, torch::data::Example<> &b) {
  return torch::nn::functional::nll_loss(logits, b.target);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: target 'b.target' reaches nll_loss without a bounds check; a class id outside [0, logits.size(1)) is a device-side assert on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES: :[[@LINE-2]]:50: note: 'b.target' is a field of a data batch: its values come from the dataset
}

struct CacheImpl : torch::nn::Module {
  torch::Tensor lookup(torch::nn::Embedding emb) { return emb(last_); }
  // CHECK-NOTES: :[[@LINE-1]]:59: warning: index 'last_' reaches Embedding 'emb'
  // CHECK-NOTES: :[[@LINE+2]]:17: note: 'last_' is a data member: its values are set outside this function
  // CHECK-FIXES: {{^}}  torch::Tensor lookup(torch::nn::Embedding emb) { TORCHTIDY_CHECK_INDEX(last_, emb->options.num_embeddings()); return emb(last_); }{{$}}
  torch::Tensor last_;
};

torch::Tensor literal() {
  torch::nn::Embedding emb(100, 64);
  return emb(torch::tensor({50, 99, 100}));
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: id 100 is out of range for an embedding with 100 rows [libtorch-unchecked-index]
  // CHECK-NOTES: :[[@LINE-2]]:37: note: id 100 is written here
  // CHECK-NOTES: :[[@LINE-4]]:24: note: the embedding is created here
}
