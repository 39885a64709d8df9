#pragma once
#include <torch/torch.h>

// A validator whose body is in another library: only GuardFunctions says
// what it does.
void validate_ids(const torch::Tensor &ids, int64_t rows);

torch::Tensor gather_validated(const torch::Tensor &table,
                               const torch::Tensor &ids);
torch::Tensor gather_plain(const torch::Tensor &table,
                           const torch::Tensor &ids);
