#include "table.h"

#include <sstream>
#include <string>
#include <vector>

static std::vector<int64_t> parse_ids(const std::string &text) {
  std::vector<int64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    out.push_back(std::stoll(item));
  return out;
}

int main(int argc, char **argv) {
  Table table(100);
  torch::nn::Embedding emb(100, 8);
  auto ids = parse_ids(argv[1]);
  table.lookup_batches({ids});
  table.lookup(torch::tensor(ids));
  embed_all(emb, ids);
  table.lookup_checked(ids);
  table.count(torch::tensor(ids));
  std::vector<int64_t> made = {1, 2, 3};
  table.lookup(torch::tensor(made));
  return argc;
}
