// A tiny recommender: user and item embeddings, a scoring tower, a
// popularity prior that should move with the model, and an embedding of a
// user's recent items with their positions.
#pragma once

#include <torch/torch.h>

struct TowerImpl : torch::nn::Module {
  TowerImpl(int64_t in, int64_t hidden);
  torch::Tensor forward(torch::Tensor x);

  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::Dropout dropout{nullptr};
  torch::nn::ReLU relu{nullptr};
};
TORCH_MODULE(Tower);

struct RecommenderImpl : torch::nn::Cloneable<RecommenderImpl> {
  RecommenderImpl(int64_t users, int64_t items, int64_t dim,
                  int64_t max_history = 16);
  void reset() override;
  torch::Tensor forward(torch::Tensor user_ids, torch::Tensor item_ids);
  // A user's recent items, embedded with their positions and averaged.
  torch::Tensor history(const std::vector<std::vector<int64_t>> &seen);

  int64_t users, items, dim, max_history;
  torch::nn::Embedding user_emb{nullptr}, item_emb{nullptr}, pos_emb{nullptr};
  Tower tower{nullptr};
  torch::Tensor item_prior;
  std::vector<torch::Tensor> temperature;
};
TORCH_MODULE(Recommender);
