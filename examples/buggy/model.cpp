#include "model.h"

TowerImpl::TowerImpl(int64_t in, int64_t hidden) {
  fc1 = register_module("fc1", torch::nn::Linear(in, hidden));
  // Bug: never registered, so the optimizer never sees its weights and
  // module->to(device) leaves them on the CPU.
  fc2 = torch::nn::Linear(hidden, 1);
  // Bug: never registered, so eval() does not reach it and it keeps dropping
  // activations at inference time.
  dropout = torch::nn::Dropout(0.2);
}

torch::Tensor TowerImpl::forward(torch::Tensor x) {
  return fc2(dropout(relu(fc1(x))));
}

RecommenderImpl::RecommenderImpl(int64_t users, int64_t items, int64_t dim)
    : users(users), items(items), dim(dim) {
  reset();
}

void RecommenderImpl::reset() {
  user_emb = register_module("user_emb", torch::nn::Embedding(users, dim));
  item_emb = register_module("item_emb", torch::nn::Embedding(items, dim));
  tower = register_module("tower", Tower(2 * dim, dim));
  // Bug: a plain member, so recommender->to(torch::kCUDA) leaves it on the
  // CPU and forward() fails with "Expected all tensors to be on the same
  // device"; torch::save does not store it either.
  item_prior = torch::zeros({items});
  temperature.push_back(torch::ones({1}));
}

torch::Tensor RecommenderImpl::forward(torch::Tensor user_ids,
                                       torch::Tensor item_ids) {
  // Bug: the ids come from the caller and nothing checks them; an id past
  // the table is "CUDA error: an illegal memory access" far from here.
  auto u = user_emb(user_ids);
  auto i = item_emb(item_ids);
  auto score = tower(torch::cat({u, i}, /*dim=*/1)).squeeze(1);
  return score + item_prior.index_select(0, item_ids) / temperature[0];
}
