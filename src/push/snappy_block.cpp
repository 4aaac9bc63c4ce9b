#include "push/snappy_block.hpp"

#include <snappy.h>

namespace gpuwatch::push {

std::string snappy_compress(std::string_view raw) {
  std::string out;
  snappy::Compress(raw.data(), raw.size(), &out);
  return out;
}

std::optional<std::string> snappy_uncompress(std::string_view compressed) {
  std::string out;
  if (!snappy::Uncompress(compressed.data(), compressed.size(), &out)) return std::nullopt;
  return out;
}

}  // namespace gpuwatch::push
