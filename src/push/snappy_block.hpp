#pragma once
// Snappy's block format (not the framed one), as remote-write requires; libsnappy only in here.
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch::push {

std::string snappy_compress(std::string_view raw);
// nullopt: not valid snappy block data.
std::optional<std::string> snappy_uncompress(std::string_view compressed);

}  // namespace gpuwatch::push
