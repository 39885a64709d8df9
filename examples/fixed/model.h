// A tiny recommender: user and item embeddings, a scoring tower, and a
// popularity prior that should move with the model.
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
  RecommenderImpl(int64_t users, int64_t items, int64_t dim);
  void reset() override;
  torch::Tensor forward(torch::Tensor user_ids, torch::Tensor item_ids);

  int64_t users, items, dim;
  torch::nn::Embedding user_emb{nullptr}, item_emb{nullptr};
  Tower tower{nullptr};
  torch::Tensor item_prior;
  std::vector<torch::Tensor> temperature;
};
TORCH_MODULE(Recommender);
