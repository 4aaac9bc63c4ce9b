#pragma once
// Internal to src/amd: how the read groups' readers (amd_field_readers.cpp) read a card's files
// and write readings (one CardWriter per read_source call). Not part of the amd API.
#include <cerrno>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>

#include "amd/amd_card.hpp"
#include "amd/amd_errors.hpp"
#include "amd/sysfs_file.hpp"
#include "amd/sysfs_parse.hpp"
#include "core/field_table.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::amd::detail {

using core::FieldId;
using core::FieldReading;
using core::FieldValue;

inline int amd_arg(FieldId f) { return core::field_info(f).arg; }

// A number read from a file, or why there is none.
struct Number {
  std::optional<std::int64_t> value;
  core::ReadError error;
};

// Writes one read group's readings and keeps the worst error.
class CardWriter {
 public:
  CardWriter(const AmdCard& card, std::span<const FieldId> fields, core::DeviceSnapshot& device)
      : card_(card), fields_(fields), device_(device) {}

  std::span<const FieldId> fields() const { return fields_; }
  const AmdCard& card() const { return card_; }
  core::ReadError worst() const { return worst_; }

  void set(FieldId f, FieldValue v) {
    FieldReading& r = device_.get(f);
    r.value.emplace(std::move(v));
    r.status = core::FieldStatus::Ok;
    r.reason = core::ErrorReason::None;
    r.vendor_code = 0;
  }
  void fail(FieldId f, core::ReadError e) {
    device_.get(f) = FieldReading::absent(status_of(e), e);
    if (worst_.ok() || e.reason == core::ErrorReason::GpuLost) worst_ = e;
  }
  void unsupported(FieldId f) { fail(f, error_of_reason(core::ErrorReason::NotSupported)); }
  void fail_all(core::ReadError e) {
    for (auto f : fields_) fail(f, e);
  }
  void unsupported_all() {
    for (auto f : fields_) unsupported(f);
  }
  void not_read_all() {
    for (auto f : fields_) device_.get(f) = FieldReading::absent(core::FieldStatus::NotRead, {});
  }
  // A value, or its error.
  template <typename T>
  void set_or_fail(FieldId f, const std::optional<T>& value, core::ReadError error) {
    if (value) {
      set(f, FieldValue{*value});
    } else {
      fail(f, error);
    }
  }

  // The error of a failed read of FILE: a missing file of a card whose device folder has gone
  // too is a lost GPU, not an unsupported field.
  core::ReadError file_error(int err) const {
    if (err == ENOENT && !path_exists(card_.path(CardFile::Uevent))) return error_from_errno(ENODEV);
    return error_from_errno(err);
  }

  Number number(CardFile file) const {
    FileBuffer<64> buf;
    read_file(card_.path(file), buf);
    if (!buf.ok()) return {std::nullopt, file_error(buf.error)};
    const auto v = parse_integer(buf.text());
    if (!v) return {std::nullopt, error_from_errno(EBADMSG)};
    return {v, {}};
  }
  // The first of FILES that exists (the others missing: ENOENT), or the first one's error.
  Number first_number(std::initializer_list<CardFile> files) const {
    Number first;
    bool have_first = false;
    for (auto file : files) {
      Number n = number(file);
      if (n.value || n.error.vendor_code != core::kAmdCodeBase + ENOENT) return n;
      if (!have_first) first = n, have_first = true;
    }
    return first;
  }
  // A text attribute (trimmed), or its error; an empty one is not supported.
  std::optional<std::string> text(CardFile file, core::ReadError* error) const {
    FileBuffer<256> buf;
    read_file(card_.path(file), buf);
    if (!buf.ok()) {
      *error = file_error(buf.error);
      return std::nullopt;
    }
    const std::string_view t = trimmed(buf.text());
    if (t.empty()) {
      *error = error_of_reason(core::ErrorReason::NotSupported);
      return std::nullopt;
    }
    return std::string(t);
  }
  std::optional<GpuMetricsReading> metrics(core::ReadError* error) const {
    FileBuffer<1024> buf;
    read_file(card_.path(CardFile::GpuMetrics), buf);
    if (!buf.ok()) {
      *error = file_error(buf.error);
      return std::nullopt;
    }
    auto m = decode_gpu_metrics(buf.data, buf.size);
    if (!m) *error = error_from_errno(EBADMSG);
    return m;
  }

 private:
  const AmdCard& card_;
  std::span<const FieldId> fields_;
  core::DeviceSnapshot& device_;
  core::ReadError worst_;
};

}  // namespace gpuwatch::amd::detail
