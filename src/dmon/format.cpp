#include "dmon/format.hpp"

#include <array>
#include <fmt/core.h>

namespace gpuwatch::dmon {
namespace {

struct ColumnSpec {
  DmonColumn column;
  char group;
  std::string_view name;
  std::string_view unit;
};

// nvidia-smi's order: groups p u c v m e t, columns within a group as it prints them.
constexpr std::array<ColumnSpec, 21> kColumns = {{
    {DmonColumn::PowerW, 'p', "pwr", "W"},
    {DmonColumn::GpuTempC, 'p', "gtemp", "C"},
    {DmonColumn::MemTempC, 'p', "mtemp", "C"},
    {DmonColumn::SmPct, 'u', "sm", "%"},
    {DmonColumn::MemPct, 'u', "mem", "%"},
    {DmonColumn::EncPct, 'u', "enc", "%"},
    {DmonColumn::DecPct, 'u', "dec", "%"},
    {DmonColumn::JpgPct, 'u', "jpg", "%"},
    {DmonColumn::OfaPct, 'u', "ofa", "%"},
    {DmonColumn::MemClockMhz, 'c', "mclk", "MHz"},
    {DmonColumn::GpuClockMhz, 'c', "pclk", "MHz"},
    {DmonColumn::PowerViolationPct, 'v', "pviol", "%"},
    {DmonColumn::ThermalViolation, 'v', "tviol", "bool"},
    {DmonColumn::FbUsedMb, 'm', "fb", "MB"},
    {DmonColumn::Bar1UsedMb, 'm', "bar1", "MB"},
    {DmonColumn::CcProtectedMb, 'm', "ccpm", "MB"},
    {DmonColumn::SingleBitEcc, 'e', "sbecc", "errs"},
    {DmonColumn::DoubleBitEcc, 'e', "dbecc", "errs"},
    {DmonColumn::PcieReplays, 'e', "pci", "errs"},
    {DmonColumn::PcieRxMbps, 't', "rxpci", "MB/s"},
    {DmonColumn::PcieTxMbps, 't', "txpci", "MB/s"},
}};

constexpr std::string_view kGroupOrder = "pucvmet";

const ColumnSpec& spec(DmonColumn column) {
  for (const auto& s : kColumns) {
    if (s.column == column) return s;
  }
  return kColumns.front();  // unreachable: every enumerator is in the table
}

// Date/time columns go before the gpu column; each is 9 characters wide. The
// leading '#' of the header lines (or ' ' of a data row) stays in column 0.
std::string prefix(const DmonOptions& options, std::string_view date, std::string_view time) {
  std::string out;
  if (options.date) out += fmt::format("{:<9}", date);
  if (options.time) out += fmt::format("{:<9}", time);
  return out;
}

}  // namespace

core::Result<std::vector<DmonColumn>> parse_dmon_select(std::string_view letters) {
  if (letters.empty()) return core::make_error("-s needs at least one of p,u,c,v,m,e,t");
  for (char c : letters) {
    if (kGroupOrder.find(c) == std::string_view::npos) {
      return core::make_error(fmt::format("-s: unknown metric group '{}' (use any of p,u,c,v,m,e,t)", c));
    }
  }
  std::vector<DmonColumn> columns;
  for (char group : kGroupOrder) {
    if (letters.find(group) == std::string_view::npos) continue;
    for (const auto& s : kColumns) {
      if (s.group == group) columns.push_back(s.column);
    }
  }
  return columns;
}

core::Result<void> parse_dmon_output_options(std::string_view letters, DmonOptions& options) {
  for (char c : letters) {
    if (c == 'D') {
      options.date = true;
    } else if (c == 'T') {
      options.time = true;
    } else {
      return core::make_error(fmt::format("-o: unknown option '{}' (use D and/or T)", c));
    }
  }
  return {};
}

std::string_view dmon_column_name(DmonColumn column) { return spec(column).name; }
std::string_view dmon_column_unit(DmonColumn column) { return spec(column).unit; }

std::string dmon_header(const DmonOptions& options) {
  std::string names = "#" + prefix(options, "Date", "Time") + " gpu ";
  std::string units = "#" + prefix(options, "YYYYMMDD", "HH:MM:SS") + " Idx ";
  for (DmonColumn column : options.columns) {
    names += fmt::format("{:>6} ", dmon_column_name(column));
    units += fmt::format("{:>6} ", dmon_column_unit(column));
  }
  return names + "\n" + units + "\n";
}

std::string dmon_row(const DmonOptions& options, const DmonRow& row, std::tm when) {
  std::string out;
  if (options.date || options.time) {
    out = " " + prefix(options, fmt::format("{:04}{:02}{:02}", when.tm_year + 1900, when.tm_mon + 1, when.tm_mday),
                       fmt::format("{:02}:{:02}:{:02}", when.tm_hour, when.tm_min, when.tm_sec));
    out += fmt::format("{:>4} ", row.gpu);
  } else {
    out = fmt::format("{:>5} ", row.gpu);
  }
  for (std::size_t i = 0; i < options.columns.size(); ++i) {
    const auto& value = i < row.values.size() ? row.values[i] : std::nullopt;
    if (value) {
      out += fmt::format("{:>6} ", *value);
    } else {
      out += "     - ";
    }
  }
  out += '\n';
  return out;
}

}  // namespace gpuwatch::dmon
