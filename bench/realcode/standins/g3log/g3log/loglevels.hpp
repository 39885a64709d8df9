// Stand-in for g3log's g3log/loglevels.hpp (r12-connect4-deep-rl vendors
// g3log as a git submodule, absent from the snapshot): the levels the
// project names, as g3log declares them.
#pragma once
#include <string>

struct LEVELS {
  LEVELS(int id, const char *idtext) : value(id), text(idtext) {}
  int value;
  std::string text;
};

namespace g3 {
static const int kDebugValue = 100;
static const int kInfoValue = 300;
static const int kWarningValue = 500;
static const int kFatalValue = 1000;
namespace internal {
bool wasFatal(const LEVELS &level);
} // namespace internal
} // namespace g3

const LEVELS G3LOG_DEBUG{g3::kDebugValue, "DEBUG"}, INFO{g3::kInfoValue, "INFO"},
    WARNING{g3::kWarningValue, "WARNING"}, FATAL{g3::kFatalValue, "FATAL"};
#define DEBUG G3LOG_DEBUG
