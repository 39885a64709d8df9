#pragma once
#include <torch/torch.h>

// Defined in devices.cpp.
torch::Device pick_device();
