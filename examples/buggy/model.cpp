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

RecommenderImpl::RecommenderImpl(int64_t users, int64_t items, int64_t dim,
                                 int64_t max_history)
    : users(users), items(items), dim(dim), max_history(max_history) {
  reset();
}

void RecommenderImpl::reset() {
  user_emb = register_module("user_emb", torch::nn::Embedding(users, dim));
  item_emb = register_module("item_emb", torch::nn::Embedding(items, dim));
  pos_emb = register_module("pos_emb", torch::nn::Embedding(max_history, dim));
  tower = register_module("tower", Tower(2 * dim, dim));
  // Bug: a plain member, so recommender->to(torch::kCUDA) leaves it on the
  // CPU and forward() fails with "Expected all tensors to be on the same
  // device"; torch::save does not store it either.
  item_prior = torch::zeros({items});
  temperature.push_back(torch::ones({1}));
}

torch::Tensor RecommenderImpl::forward(torch::Tensor user_ids,
                                       torch::Tensor item_ids) {
  auto u = user_emb(user_ids);
  auto i = item_emb(item_ids);
  auto score = tower(torch::cat({u, i}, /*dim=*/1)).squeeze(1);
  return score + item_prior.index_select(0, item_ids) / temperature[0];
}

// Each user's items in a row, padded to the longest history.
static torch::Tensor pad(const std::vector<std::vector<int64_t>> &seen) {
  int64_t longest = 0;
  for (const auto &items : seen)
    longest = std::max<int64_t>(longest, items.size());
  // Bugs: made on the CPU for tables on the model's device, and -1 marks the
  // padding but is no row of item_emb (an illegal memory access on CUDA).
  auto padded = torch::full({static_cast<int64_t>(seen.size()), longest}, -1,
                            torch::kLong);
  for (size_t b = 0; b < seen.size(); ++b)
    for (size_t j = 0; j < seen[b].size(); ++j)
      padded[b][j] = seen[b][j];
  return padded;
}

torch::Tensor
RecommenderImpl::history(const std::vector<std::vector<int64_t>> &seen) {
  auto padded = pad(seen);
  // Bugs: the positions go up to the longest history, past pos_emb's rows;
  // they and the ids are made on the CPU, the tables are on the model's device.
  auto pos = torch::arange(padded.size(1), torch::kLong);
  return (item_emb(padded) + pos_emb(pos)).mean(1);
}
