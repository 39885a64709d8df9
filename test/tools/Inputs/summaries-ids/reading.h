#pragma once
#include <torch/torch.h>

#include <string>
#include <vector>

// Declared here, defined in reading.cpp.
std::vector<int64_t> read_ids(const std::string &line);
torch::Tensor load_ids(const std::vector<std::string> &tokens);
torch::Tensor positions(int64_t n);
std::vector<int64_t> counts(int64_t n);
