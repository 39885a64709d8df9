#include "ops.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  std::vector<int64_t> ids;
  for (int i = 1; i < argc; ++i)
    ids.push_back(std::stoll(argv[i]));
  auto table = torch::randn({100, 8});
  gather_validated(table, torch::tensor(ids));
  gather_plain(table, torch::tensor(ids));
  return 0;
}
