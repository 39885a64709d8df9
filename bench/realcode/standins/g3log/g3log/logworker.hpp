// Stand-in for g3log's g3log/logworker.hpp.
#pragma once
#include "g3log/logmessage.hpp"
#include <memory>

namespace g3 {
template <class T> class SinkHandle {};
class LogWorker {
public:
  static std::unique_ptr<LogWorker> createLogWorker();
  template <class T, class DefaultMessageCall>
  std::unique_ptr<SinkHandle<T>> addSink(std::unique_ptr<T> sink,
                                         DefaultMessageCall call);
};
} // namespace g3
