#include "intel/sysfs_file.hpp"

#include <cerrno>
#include <charconv>

namespace gpuwatch::intel {
namespace {

constexpr std::size_t kSysfsBufferBytes = 4096;

template <typename T>
FileValue<T> parse_number(const std::string& path) {
  drm::FileBuffer<64> buf;
  drm::read_file(path, buf);
  if (!buf.ok()) return {std::nullopt, buf.error};
  std::string_view text = drm::trimmed(buf.text());
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end == text.data()) return {std::nullopt, EINVAL};
  return {value, 0};
}

}  // namespace

FileValue<std::string> read_text_file(const std::string& path) {
  drm::FileBuffer<kSysfsBufferBytes> buf;
  drm::read_file(path, buf);
  if (!buf.ok()) return {std::nullopt, buf.error};
  std::string_view text = buf.text();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.remove_suffix(1);
  return {std::string(text), 0};
}

FileValue<std::uint64_t> read_number_file(const std::string& path) { return parse_number<std::uint64_t>(path); }

FileValue<std::int64_t> read_signed_file(const std::string& path) { return parse_number<std::int64_t>(path); }

}  // namespace gpuwatch::intel
