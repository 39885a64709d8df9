#include "reading.h"

#include <sstream>

// Ids read from text: whatever the text holds.
std::vector<int64_t> read_ids(const std::string &line) {
  std::vector<int64_t> ids;
  std::istringstream in(line);
  int64_t id = 0;
  while (in >> id)
    ids.push_back(id);
  return ids;
}

torch::Tensor load_ids(const std::vector<std::string> &tokens) {
  std::vector<int64_t> values;
  for (const std::string &tok : tokens)
    values.push_back(std::stoll(tok));
  return torch::tensor(values);
}

// Made by the program: nothing from outside.
torch::Tensor positions(int64_t n) { return torch::arange(n); }

std::vector<int64_t> counts(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(i);
  return out;
}
