// RUN: %check_clang_tidy -check-suffixes=,DEFAULT %s libtorch-unchecked-index %t -- -- %mock_torch
// RUN: %check_clang_tidy -check-suffixes=,PARAMS %s libtorch-unchecked-index %t -- -config="{CheckOptions: {libtorch-unchecked-index.ReportParameters: true}}" -- %mock_torch

#include <torch/torch.h>

#include <string>
#include <vector>

// Each warning has notes at its evidence: where the index's values and the
// table's size come from, the check that does not protect it, the caller
// that passes it; with ReportParameters, where an unchecked index comes from.

torch::Tensor load_ids();
torch::Tensor global_ids;

// ---- Evidence, in both modes ----------------------------------------------

torch::Tensor literal() {
  torch::nn::Embedding emb(100, 64);
  return emb(torch::tensor({50, 99, 100}));
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: id 100 is out of range for an embedding with 100 rows; an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES: :[[@LINE-2]]:37: note: id 100 is written here
  // CHECK-NOTES: :[[@LINE-4]]:24: note: the embedding is created here
}

struct GptImpl : torch::nn::Module {
  GptImpl(int64_t block_size) : block_size_(block_size) {
    wpe = register_module("wpe", torch::nn::Embedding(block_size, 16));
  }
  torch::Tensor forward(torch::Tensor idx) {
    const int64_t T = idx.size(1);
    return wpe(torch::arange(T));
    // CHECK-NOTES: :[[@LINE-1]]:12: warning: index 'torch::arange(T)' goes up to T - 1, a length known only at run time, but Embedding 'wpe' has block_size_ rows and nothing bounds T by them; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
    // CHECK-NOTES: :[[@LINE-2]]:16: note: the index is made here from T
    // CHECK-NOTES: :[[@LINE-7]]:55: note: the table's block_size_ rows are set here
    // CHECK-NOTES: :[[@LINE+4]]:30: note: called here with a tensor whose length nothing bounds
  }
  torch::Tensor generate(torch::Tensor idx) {
    for (int i = 0; i < 8; ++i)
      idx = torch::cat({idx, forward(idx).argmax(-1)}, 1);
    return idx;
  }
  int64_t block_size_;
  torch::nn::Embedding wpe{nullptr};
};

// The sizes kept in a local first: the same length.
struct SizesImpl : torch::nn::Module {
  SizesImpl(int64_t block) : block_(block) {
    wpe = register_module("wpe", torch::nn::Embedding(block, 16));
  }
  torch::Tensor forward(torch::Tensor idx) {
    torch::IntArrayRef sizes = idx.sizes();
    const int64_t T = sizes[1];
    return wpe(torch::arange(T));
    // CHECK-NOTES: :[[@LINE-1]]:12: warning: index 'torch::arange(T)' goes up to T - 1, a length known only at run time, but Embedding 'wpe' has block_ rows and nothing bounds T by them; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
    // CHECK-NOTES: :[[@LINE-2]]:16: note: the index is made here from T
    // CHECK-NOTES: :[[@LINE-8]]:55: note: the table's block_ rows are set here
    // CHECK-NOTES: :[[@LINE+4]]:30: note: called here with a tensor whose length nothing bounds
  }
  torch::Tensor generate(torch::Tensor idx) {
    for (int i = 0; i < 8; ++i)
      idx = torch::cat({idx, forward(idx).argmax(-1)}, 1);
    return idx;
  }
  int64_t block_;
  torch::nn::Embedding wpe{nullptr};
};

torch::Tensor shifted(torch::Tensor table, int64_t n) {
  auto t = torch::randint(0, 10, {n});
  return table.index_select(0, t - 1);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: index 't - 1' can be -1, outside [0, table.size(0)) of index_select on 'table'; an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES: :[[@LINE-3]]:12: note: its values start at 0 here; the shift by -1 makes them start at -1
}

torch::Tensor parsed(torch::nn::Embedding emb,
                     const std::vector<std::string> &tokens) {
  std::vector<int64_t> values;
  for (const std::string &tok : tokens)
    values.push_back(std::stoll(tok));
  return emb(torch::tensor(values));
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: index 'torch::tensor(values)' holds values from outside the program and reaches Embedding 'emb' without a bounds check; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES: :[[@LINE-3]]:22: note: the values come from std::stoll here
}

// A helper that returns a vector it parses: its values come from outside.
std::vector<int64_t> parseAll(const std::vector<std::string> &tokens) {
  std::vector<int64_t> out;
  for (const std::string &tok : tokens)
    out.push_back(std::stoll(tok));
  return out;
}

// One that makes its values: none.
std::vector<int64_t> firstN(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(i % 10);
  return out;
}

torch::Tensor parsedByHelper(torch::nn::Embedding emb,
                             const std::vector<std::string> &tokens) {
  std::vector<int64_t> ids = parseAll(tokens);
  torch::Tensor made = emb(torch::tensor(firstN(5)));
  // CHECK-NOTES-PARAMS: :[[@LINE-1]]:24: warning: index 'torch::tensor(firstN(5))' reaches Embedding 'emb' without a bounds check; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES-PARAMS: :[[@LINE-2]]:28: note: the index is computed by 'tensor' here, which can leave the table's range
  return made + emb(torch::tensor(ids));
  // CHECK-NOTES: :[[@LINE-1]]:17: warning: index 'torch::tensor(ids)' holds values from outside the program and reaches Embedding 'emb' without a bounds check; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES: :[[@LINE-20]]:19: note: the values come from std::stoll here
}

torch::Tensor notProtected(torch::nn::Embedding emb, torch::Tensor ids,
                           bool strict) {
  if (strict)
    TORCH_CHECK(ids.max().item<int64_t>() < 100);
  return emb(ids);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: the bounds check of index 'ids' does not protect this use in Embedding 'emb': it is not on every path to the use; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES: :[[@LINE-3]]:5: note: the check is here
}

torch::Tensor lookup(torch::nn::Embedding emb, torch::Tensor ids) {
  return emb(ids);
}
torch::Tensor caller(torch::nn::Embedding emb) {
  return lookup(emb, torch::full({4}, -1));
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: id -1 passed to 'lookup' is out of range for an embedding; an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES: :[[@LINE-2]]:39: note: -1 is written into the index here
  // CHECK-NOTES: :[[@LINE-6]]:10: note: it reaches Embedding 'emb' here
}

// ---- ReportParameters: where the unchecked index comes from ---------------

torch::Tensor parameter(torch::nn::Embedding emb, torch::Tensor ids) {
  return emb(ids);
  // CHECK-NOTES-PARAMS: :[[@LINE-1]]:10: warning: index 'ids' reaches Embedding 'emb' without a bounds check; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES-PARAMS: :[[@LINE-3]]:65: note: 'ids' is a parameter: its values come from the caller
}

torch::Tensor loader(torch::Tensor table) {
  auto ids = load_ids();
  return table.index_select(0, ids);
  // CHECK-NOTES-PARAMS: :[[@LINE-1]]:10: warning: index 'ids' reaches index_select on 'table' without a bounds check; an index outside [0, table.size(0)) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES-PARAMS: :[[@LINE-3]]:14: note: the index comes from a call to 'load_ids', which does not produce bounded indices
}

torch::Tensor computed(torch::Tensor table, torch::Tensor logits) {
  auto ids = logits.argmax(1) + 1;
  return table.take(ids);
  // CHECK-NOTES-PARAMS: :[[@LINE-1]]:10: warning: index 'ids' reaches take on 'table'
  // CHECK-NOTES-PARAMS: :[[@LINE-3]]:14: note: the index is computed by '+' here, which can leave the table's range
}

torch::Tensor global(torch::nn::Embedding emb) {
  return emb(global_ids);
  // CHECK-NOTES-PARAMS: :[[@LINE-1]]:10: warning: index 'global_ids' reaches Embedding 'emb'
  // CHECK-NOTES-PARAMS: :14:15: note: 'global_ids' is a global variable: its values are set outside this function
}

torch::Tensor batch(torch::Tensor logits, torch::data::Example<> &b) {
  return torch::nn::functional::nll_loss(logits, /*target=*/b.target);
  // CHECK-NOTES-PARAMS: :[[@LINE-1]]:10: warning: target 'b.target' reaches nll_loss without a bounds check; a class id outside [0, logits.size(1)) is a device-side assert on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES-PARAMS: :[[@LINE-2]]:61: note: 'b.target' is a field of a data batch: its values come from the dataset
}

struct CacheImpl : torch::nn::Module {
  torch::Tensor lookup(torch::nn::Embedding emb) { return emb(last_); }
  // CHECK-NOTES-PARAMS: :[[@LINE-1]]:59: warning: index 'last_' reaches Embedding 'emb'
  // CHECK-NOTES-PARAMS: :[[@LINE+2]]:17: note: 'last_' is a data member: its values are set outside this function
  // CHECK-FIXES-PARAMS: {{^}}  torch::Tensor lookup(torch::nn::Embedding emb) { TORCHTIDY_CHECK_INDEX(last_, emb->options.num_embeddings()); return emb(last_); }{{$}}
  torch::Tensor last_;
};

// Quoted code keeps no comments, and a member access on an expression puts
// it in parentheses.
torch::Tensor quoting(torch::Tensor a, torch::Tensor b, torch::Tensor ids) {
  return (a * b).gather(/*dim=*/1, ids);
  // CHECK-NOTES-PARAMS: :[[@LINE-1]]:10: warning: index 'ids' reaches gather on '(a * b)' without a bounds check; an index outside [0, (a * b).size(1)) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES-PARAMS: :[[@LINE-3]]:71: note: 'ids' is a parameter: its values come from the caller
}
torch::Tensor quotingFree(torch::Tensor a, torch::Tensor b, torch::Tensor ids) {
  return torch::gather(a * b, 1, ids);
  // CHECK-NOTES-PARAMS: :[[@LINE-1]]:10: warning: index 'ids' reaches gather on 'a * b' without a bounds check; an index outside [0, (a * b).size(1)) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-NOTES-PARAMS: :[[@LINE-3]]:75: note: 'ids' is a parameter: its values come from the caller
}
