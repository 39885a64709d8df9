#pragma once
#include <torch/torch.h>

// Defined in devices.cpp.
torch::Device training_device();
torch::Device export_device();
