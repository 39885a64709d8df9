// Stand-in for g3log's g3log/logmessage.hpp: the message types a sink's
// callback takes.
#pragma once
#include "g3log/loglevels.hpp"
#include <string>

namespace g3 {
struct LogMessage {
  std::string message() const;
  std::string timestamp(const std::string &format = "%H:%M:%S") const;
  LEVELS _level{g3::kInfoValue, "INFO"};
};
struct LogMessageMover {
  LogMessage &get();
};
} // namespace g3
