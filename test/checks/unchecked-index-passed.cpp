// RUN: %check_clang_tidy %s libtorch-unchecked-index %t -- -- %mock_torch

#include <torch/torch.h>

#include <sstream>
#include <string>
#include <vector>

// Ids from outside the program passed to a function that indexes with them
// unchecked: through the functions it calls, through a container of id
// lists, through a tensor they are written into. Reported at the call, with
// notes on the way to the index op. A function that checks the elements,
// one that does not index, and ids made by the program say nothing.

std::vector<int64_t> read_ids(const std::string &text) {
  std::vector<int64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    out.push_back(std::stoll(item));
  return out;
}

std::vector<std::vector<int64_t>> read_lists(const std::string &text) {
  std::vector<std::vector<int64_t>> lists;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line, ';'))
    lists.push_back(read_ids(line));
  return lists;
}

struct Table {
  torch::Tensor rows = torch::randn({100, 8});

  torch::Tensor gather_rows(const torch::Tensor &ids) const {
    return rows.index_select(0, ids.reshape({-1}));
  }

  // The lists are written into one tensor, row by row, and looked up.
  torch::Tensor gather_lists(const std::vector<std::vector<int64_t>> &lists) const {
    const auto n = static_cast<int64_t>(lists.size());
    auto ids = torch::empty({n, 4}, torch::kLong);
    for (int64_t b = 0; b < n; ++b)
      ids.index_put_({torch::tensor({b})}, torch::tensor(lists[b]));
    return gather_rows(ids);
  }

  torch::Tensor gather_one(const std::vector<int64_t> &ids) const {
    return gather_lists({ids});
  }

  // The elements are compared before the lookup: checked.
  torch::Tensor gather_checked(const std::vector<int64_t> &ids) const {
    for (int64_t id : ids)
      TORCH_CHECK(id >= 0 && id < rows.size(0), "id out of range");
    return gather_rows(torch::tensor(ids));
  }

  // The tensor is checked before it is passed on.
  torch::Tensor gather_guarded(const torch::Tensor &ids) const {
    TORCH_CHECK(ids.min().item<int64_t>() >= 0 &&
                ids.max().item<int64_t>() < rows.size(0));
    return gather_rows(ids);
  }

  // Uses the ids' count, not their values.
  torch::Tensor count(const std::vector<int64_t> &ids) const {
    return torch::ones({static_cast<int64_t>(ids.size())});
  }

  // Calls itself: listed once, no hang.
  torch::Tensor again(const torch::Tensor &ids, int64_t n) const {
    return n > 0 ? again(ids, n - 1) : gather_rows(ids);
  }
};

void from_the_command_line(const std::string &arg) {
  Table table;
  auto lists = read_lists(arg);
  table.gather_lists(lists);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'lists' holds values from outside the program and is passed to 'gather_lists', which reaches index_select on 'rows' with them without a bounds check; an index outside the table's rows is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-MESSAGES: :20:19: note: the values come from std::stoll here
  // CHECK-MESSAGES: :46:12: note: 'Table::gather_lists' calls 'Table::gather_rows' with them here
  // CHECK-MESSAGES: :37:12: note: they reach index_select on 'rows' here

  std::vector<std::vector<int64_t>> assigned;
  assigned = read_lists(arg);
  table.gather_lists(assigned);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'assigned' holds values from outside the program and is passed to 'gather_lists'

  auto ids = arg.empty() ? std::vector<int64_t>{1, 2} : read_ids(arg);
  table.gather_one(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'ids' holds values from outside the program and is passed to 'gather_one', which reaches index_select on 'rows' with them without a bounds check
  // CHECK-MESSAGES: :50:12: note: 'Table::gather_one' calls 'Table::gather_lists' with them here
  // CHECK-MESSAGES: :46:12: note: 'Table::gather_lists' calls 'Table::gather_rows' with them here

  table.again(torch::tensor(ids), 3);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'torch::tensor(ids)' holds values from outside the program and is passed to 'again'

  // Nothing to say.
  table.gather_checked(ids);
  table.gather_guarded(torch::tensor(ids));
  table.count(ids);
  std::vector<int64_t> made = {1, 2, 3};
  table.gather_one(made);
  table.gather_lists({made});
}
