#!/usr/bin/env python3
"""make_large_tu.py BLOCKS: prints a translation unit on the mock LibTorch
headers made of BLOCKS blocks of 26 lines (3846 make 100,000 lines). Each block holds a
module with an unregistered buffer and an unregistered submodule, a function
with a negative literal index, one with a CPU index into a CUDA tensor, and a
dataset that moves its data to CUDA in get(): one finding of each libtorch
check per block, and code that must stay silent around them."""
import sys

BLOCK = """\
struct Block{n}Impl : torch::nn::Module {{
  Block{n}Impl() : fc(register_module("fc", torch::nn::Linear(4, 4))) {{
    w = register_parameter("w", torch::ones({{4}}));
    mask = torch::ones({{4}});
    head = torch::nn::Linear(4, 2);
  }}
  torch::nn::Linear fc{{nullptr}}, head{{nullptr}};
  torch::Tensor w, mask;
}};
torch::Tensor pick{n}(torch::Tensor x, torch::Tensor ids) {{
  auto checked = ids.clamp(0, x.size(0) - 1);
  auto y = x.index_select(0, checked);
  return y + x.index_select(0, torch::tensor({{-1}}));
}}
void place{n}() {{
  auto x = torch::zeros({{8}}, torch::kCUDA);
  auto idx = torch::arange(4);
  x.index_select(0, idx);
  x.index_select(0, idx.cuda());
}}
struct Data{n} : torch::data::datasets::Dataset<Data{n}> {{
  torch::data::Example<> get(size_t i) override {{ return {{x_[i].cuda(), y_[i]}}; }}
  c10::optional<size_t> size() const override {{ return 1; }}
  torch::Tensor x_, y_;
}};

"""

blocks = int(sys.argv[1])
print("#include <torch/torch.h>")
for n in range(max(1, blocks)):
    sys.stdout.write(BLOCK.format(n=n))
