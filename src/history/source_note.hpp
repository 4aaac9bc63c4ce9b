#pragma once
// `history` says when the data of its range came from gpuwatch's simulated driver (schema 4,
// store/data_sources.hpp): the table starts with a "# simulated data ..." line; CSV and JSONL
// keep stdout machine-readable and say it on stderr.
#include <string>

#include "history/render.hpp"
#include "store/data_sources.hpp"
#include "store/history_database.hpp"
#include "store/history_reader.hpp"

namespace gpuwatch::history {

struct SourceNote {
  std::string text;        // "" when the data is real or its source is not known; else ends with "\n"
  bool on_stdout = false;  // the table: above it on stdout; csv, jsonl: stderr
};
SourceNote source_note(const store::Provenance& provenance, HistoryFormat format);

// Reads the sources of QUERY's range and prints the note where source_note() says.
void print_source_note(const store::HistoryDatabase& db, const store::HistoryQuery& query, HistoryFormat format);

}  // namespace gpuwatch::history
