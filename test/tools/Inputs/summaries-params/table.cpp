#include "table.h"

Table::Table(int64_t n) : rows(torch::randn({n, 8})) {}

torch::Tensor Table::lookup(const torch::Tensor &ids) const {
  return rows.index_select(0, ids.reshape({-1}));
}

torch::Tensor
Table::lookup_batches(const std::vector<std::vector<int64_t>> &batches) const {
  const auto n = static_cast<int64_t>(batches.size());
  const auto len = static_cast<int64_t>(batches.front().size());
  auto ids = torch::empty({n, len}, torch::kLong);
  for (int64_t b = 0; b < n; ++b)
    ids.index_put_({torch::tensor({b})}, torch::tensor(batches[b]));
  return lookup(ids);
}

torch::Tensor Table::lookup_checked(const std::vector<int64_t> &ids) const {
  for (int64_t id : ids)
    TORCH_CHECK(id >= 0 && id < rows.size(0), "id out of range");
  return lookup(torch::tensor(ids));
}

torch::Tensor Table::count(const torch::Tensor &ids) const {
  return torch::ones({ids.size(0)});
}

torch::Tensor embed_all(torch::nn::Embedding &emb,
                        const std::vector<int64_t> &ids) {
  return emb(torch::tensor(ids));
}
