#include "history/source_note.hpp"

#include <cstdio>

#include "core/sink_text.hpp"

namespace gpuwatch::history {

SourceNote source_note(const store::Provenance& provenance, HistoryFormat format) {
  const std::string note = core::terminal_text(store::provenance_note(provenance));  // a scenario's name (issue 31)
  if (note.empty()) return {};
  if (format == HistoryFormat::Table) return {"# " + note + "\n", true};
  return {"gpuwatch history: " + note + "\n", false};
}

void print_source_note(const store::HistoryDatabase& db, const store::HistoryQuery& query, HistoryFormat format) {
  auto sources = store::read_sources(db, query.since_ms, query.until_ms);
  if (!sources) return;  // the rows say what they can; a note is no reason to fail
  const SourceNote note = source_note(store::provenance_of(*sources), format);
  if (!note.text.empty()) std::fputs(note.text.c_str(), note.on_stdout ? stdout : stderr);
}

}  // namespace gpuwatch::history
