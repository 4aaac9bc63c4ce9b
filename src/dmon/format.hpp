#pragma once
// nvidia-smi dmon's scrolling table, as pure functions: which columns each `-s`
// group selects, the two header lines and one row per GPU and sample. Values are
// given already in dmon's display units (W, C, %, MHz, MB, MB/s, counts); an absent
// value prints as "-", exactly as nvidia-smi does.
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace gpuwatch::dmon {

enum class DmonColumn {
  PowerW, GpuTempC, MemTempC,                       // p
  SmPct, MemPct, EncPct, DecPct, JpgPct, OfaPct,    // u
  MemClockMhz, GpuClockMhz,                         // c
  PowerViolationPct, ThermalViolation,              // v
  FbUsedMb, Bar1UsedMb, CcProtectedMb,              // m
  SingleBitEcc, DoubleBitEcc, PcieReplays,          // e
  PcieRxMbps, PcieTxMbps,                           // t
};

struct DmonOptions {
  std::vector<DmonColumn> columns;  // from parse_dmon_select
  bool date = false;                // -o D
  bool time = false;                // -o T
};

// "-s" letters (p u c v m e t, any order, no repeats needed) -> columns in
// nvidia-smi's fixed group order. Default "puc". Unknown letter: error.
core::Result<std::vector<DmonColumn>> parse_dmon_select(std::string_view letters);
// "-o" letters D and/or T.
core::Result<void> parse_dmon_output_options(std::string_view letters, DmonOptions& options);

std::string_view dmon_column_name(DmonColumn column);
std::string_view dmon_column_unit(DmonColumn column);

// The two '#' lines, each ending in '\n'.
std::string dmon_header(const DmonOptions& options);

struct DmonRow {
  unsigned gpu = 0;
  std::vector<std::optional<std::int64_t>> values;  // one per options.columns; nullopt prints "-"
};

// One line ending in '\n'. `when` is used only for the date/time columns.
std::string dmon_row(const DmonOptions& options, const DmonRow& row, std::tm when = {});

}  // namespace gpuwatch::dmon
