#pragma once
#include <torch/torch.h>

#include <vector>

// Declared here, defined in table.cpp.
struct Table {
  torch::Tensor rows;
  explicit Table(int64_t n);
  torch::Tensor lookup(const torch::Tensor &ids) const;
  torch::Tensor lookup_batches(
      const std::vector<std::vector<int64_t>> &batches) const;
  torch::Tensor lookup_checked(const std::vector<int64_t> &ids) const;
  torch::Tensor count(const torch::Tensor &ids) const;
};
torch::Tensor embed_all(torch::nn::Embedding &emb,
                        const std::vector<int64_t> &ids);
