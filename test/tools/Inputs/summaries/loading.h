#pragma once
#include <torch/torch.h>

// Declared here, defined in other files of the project.
torch::Tensor load_row(const torch::Tensor &table, int64_t i);
torch::Tensor on_gpu(torch::Tensor t);
torch::Tensor scale(torch::Tensor t, double factor);
