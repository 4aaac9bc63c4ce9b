#include "host/host_name.hpp"

#include <unistd.h>

namespace gpuwatch::host {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

}  // namespace gpuwatch::host
