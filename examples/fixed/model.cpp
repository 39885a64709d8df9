#include "model.h"

TowerImpl::TowerImpl(int64_t in, int64_t hidden) {
  fc1 = register_module("fc1", torch::nn::Linear(in, hidden));
  fc2 = register_module("fc2", torch::nn::Linear(hidden, 1));
  dropout = register_module("dropout", torch::nn::Dropout(0.2));
  relu = register_module("relu", torch::nn::ReLU());
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
  // One more row, the padding: its vector stays zero.
  item_emb = register_module(
      "item_emb", torch::nn::Embedding(
                      torch::nn::EmbeddingOptions(items + 1, dim).padding_idx(
                          items)));
  pos_emb = register_module("pos_emb", torch::nn::Embedding(max_history, dim));
  tower = register_module("tower", Tower(2 * dim, dim));
  item_prior = register_buffer("item_prior", torch::zeros({items}));
  temperature.push_back(register_buffer("temperature", torch::ones({1})));
}

torch::Tensor RecommenderImpl::forward(torch::Tensor user_ids,
                                       torch::Tensor item_ids) {
  // The ids come from the caller: check their range before the lookups.
  TORCH_CHECK(user_ids.min().item<int64_t>() >= 0 &&
                  user_ids.max().item<int64_t>() < users,
              "user id out of range");
  TORCH_CHECK(item_ids.min().item<int64_t>() >= 0 &&
                  item_ids.max().item<int64_t>() < items,
              "item id out of range");
  auto u = user_emb(user_ids);
  auto i = item_emb(item_ids);
  auto score = tower(torch::cat({u, i}, /*dim=*/1)).squeeze(1);
  return score + item_prior.index_select(0, item_ids) / temperature[0];
}

// Each user's items in a row, padded to the longest history with `padding`.
static torch::Tensor pad(const std::vector<std::vector<int64_t>> &seen,
                         int64_t padding) {
  int64_t longest = 0;
  for (const auto &items : seen)
    longest = std::max<int64_t>(longest, items.size());
  auto padded = torch::full({static_cast<int64_t>(seen.size()), longest},
                            padding, torch::kLong);
  for (size_t b = 0; b < seen.size(); ++b)
    for (size_t j = 0; j < seen[b].size(); ++j)
      padded[b][j] = seen[b][j];
  return padded;
}

torch::Tensor
RecommenderImpl::history(const std::vector<std::vector<int64_t>> &seen) {
  // Pad with the padding row, and keep the last max_history items. The ids
  // are made on the CPU: the tables are wherever the model was moved.
  const torch::Device device = item_emb->weight.device();
  auto padded = pad(seen, items).to(device);
  if (padded.size(1) > max_history)
    padded = padded.slice(1, -max_history);
  auto pos = torch::arange(padded.size(1),
                           torch::TensorOptions(torch::kLong).device(device));
  return (item_emb(padded) + pos_emb(pos)).mean(1);
}
