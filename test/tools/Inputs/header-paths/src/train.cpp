#include "nn/block.h"

torch::Tensor train_step(Block &b, torch::Tensor x) { return b(x); }
