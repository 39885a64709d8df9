// Stand-in for g3log's g3log/g3log.hpp: LOG(level) as g3log defines it, a
// LogCapture temporary whose destructor writes the message (and, for FATAL,
// ends the program: not visible to an analyzer, as in g3log itself).
#pragma once
#include "g3log/loglevels.hpp"
#include <sstream>

namespace g3 {
class LogWorker;
void initializeLogging(LogWorker *worker);
bool logLevel(const LEVELS &level);
} // namespace g3

struct LogCapture {
  LogCapture(const char *file, int line, const char *function,
             const LEVELS &level);
  ~LogCapture() noexcept(false);
  std::ostringstream &stream();
};

#define INTERNAL_LOG_MESSAGE(level) LogCapture(__FILE__, __LINE__, __func__, level)
#define LOG(level)                                                             \
  if (!g3::logLevel(level)) {                                                  \
  } else                                                                       \
    INTERNAL_LOG_MESSAGE(level).stream()
