#include "ops.h"

torch::Tensor gather_validated(const torch::Tensor &table,
                               const torch::Tensor &ids) {
  validate_ids(ids, table.size(0));
  return table.index_select(0, ids);
}

torch::Tensor gather_plain(const torch::Tensor &table,
                           const torch::Tensor &ids) {
  return table.index_select(0, ids);
}
