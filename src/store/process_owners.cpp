#include "store/process_owners.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <map>
#include <set>

#include "store/sql_values.hpp"

namespace gpuwatch::store {
namespace {

bool has_owner_table(const HistoryDatabase& db) {
  return db.sql().execAndGet("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'process_owners'").getInt() > 0;
}

// The owner columns, in the order of ProcessOwner's members.
constexpr const char* kOwnerColumns[] = {"runtime",       "container_id",  "container_name", "pod_uid",    "pod_namespace",
                                         "pod_name",      "pod_container", "slurm_job",      "slurm_step", "slurm_user"};

std::vector<std::optional<std::string>*> owner_members(ProcessOwner& o) {
  return {&o.runtime,  &o.container_id,  &o.container_name, &o.pod_uid,    &o.pod_namespace,
          &o.pod_name, &o.pod_container, &o.slurm_job,      &o.slurm_step, &o.slurm_user};
}

// A job id or pod name as given: printable, no spaces, not too long.
core::Result<void> check_name(const std::string& option, const std::string& what, const std::string& value) {
  if (value.empty()) return core::make_error(option + " takes " + what + ", not an empty string");
  if (value.size() > 253) return core::make_error(option + ": '" + value.substr(0, 40) + "...' is too long for " + what);
  for (unsigned char c : value) {
    if (c <= ' ' || c == 0x7f) return core::make_error(option + ": '" + value + "' has a space or control character");
  }
  return {};
}

void insert_sorted(std::vector<std::string>& list, const std::optional<std::string>& value) {
  if (!value) return;
  auto at = std::lower_bound(list.begin(), list.end(), *value);
  if (at == list.end() || *at != *value) list.insert(at, *value);
}

}  // namespace

bool ProcessOwner::empty() const {
  return !runtime && !container_id && !container_name && !pod_uid && !pod_namespace && !pod_name && !pod_container &&
         !slurm_job && !slurm_step && !slurm_user;
}

std::string schema_v10_sql() {
  std::string owner_columns;
  for (const char* column : kOwnerColumns) owner_columns += "  " + std::string(column) + " TEXT,\n";
  return "CREATE TABLE process_owners (\n"
         "  gpu_key TEXT NOT NULL,\n"        // as gpus.gpu_key: the UUID, else index:N
         "  gpu_uuid TEXT,\n"
         "  gpu_index INTEGER NOT NULL,\n"   // NVML index when recorded
         "  pid INTEGER NOT NULL,\n"
         "  first_ms INTEGER NOT NULL,\n"    // first sample of the span (Unix ms)
         "  last_ms INTEGER NOT NULL,\n"     // last sample of the span
         + owner_columns +
         "  PRIMARY KEY (gpu_key, pid, first_ms)\n"
         ") WITHOUT ROWID;\n"
         "CREATE INDEX process_owners_slurm_job ON process_owners(slurm_job) WHERE slurm_job IS NOT NULL;\n"
         "CREATE INDEX process_owners_pod ON process_owners(pod_name) WHERE pod_name IS NOT NULL;\n"
         "CREATE INDEX process_owners_last ON process_owners(last_ms);\n";
}

core::Result<void> write_owner_spans(HistoryDatabase& db, const std::vector<OwnerSpanRow>& rows) {
  if (rows.empty()) return {};
  try {
    std::string names, values;
    for (const char* column : kOwnerColumns) {
      names += std::string(", ") + column;
      values += std::string(", :") + column;
    }
    SQLite::Transaction transaction(db.sql(), SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement upsert(db.sql(), "INSERT INTO process_owners (gpu_key, gpu_uuid, gpu_index, pid, first_ms, last_ms" +
                                           names + ") VALUES (:key, :uuid, :index, :pid, :first, :last" + values +
                                           ") ON CONFLICT (gpu_key, pid, first_ms) DO UPDATE SET last_ms = "
                                           "max(last_ms, excluded.last_ms)");
    for (const auto& row : rows) {
      upsert.bind(":key", row.gpu_key);
      bind_optional(upsert, ":uuid", row.gpu_uuid);
      upsert.bind(":index", static_cast<std::int64_t>(row.gpu_index));
      upsert.bind(":pid", static_cast<std::int64_t>(row.pid));
      upsert.bind(":first", static_cast<std::int64_t>(row.first_ms));
      upsert.bind(":last", static_cast<std::int64_t>(row.last_ms));
      ProcessOwner owner = row.owner;
      auto members = owner_members(owner);
      for (std::size_t i = 0; i < members.size(); ++i) {
        bind_optional(upsert, (std::string(":") + kOwnerColumns[i]).c_str(), *members[i]);
      }
      upsert.exec();
      upsert.reset();
    }
    transaction.commit();
    return {};
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot write process owners: ") + e.what(), 1);
  }
}

core::Result<OwnerFilter> slurm_job_filter(const std::string& id) {
  if (auto ok = check_name("--slurm-job", "a Slurm job id (1234, or 1234_7 for an array task)", id); !ok) return ok.error();
  return OwnerFilter{.slurm_job = id};
}

core::Result<OwnerFilter> pod_filter(const std::string& name) {
  if (auto ok = check_name("--pod", "a pod name or NAMESPACE/NAME", name); !ok) return ok.error();
  const auto slash = name.find('/');
  if (slash == std::string::npos) return OwnerFilter{.pod_name = name};
  if (slash == 0 || slash + 1 == name.size() || name.find('/', slash + 1) != std::string::npos) {
    return core::make_error("--pod takes NAME or NAMESPACE/NAME, not '" + name + "'");
  }
  return OwnerFilter{.pod_name = name.substr(slash + 1), .pod_namespace = name.substr(0, slash)};
}

std::string describe(const OwnerFilter& filter) {
  if (filter.slurm_job) return "Slurm job " + *filter.slurm_job;
  if (filter.pod_namespace) return "pod " + *filter.pod_namespace + "/" + filter.pod_name.value_or("");
  return "pod " + filter.pod_name.value_or("");
}

namespace {

// Rows of a pod recorded before the kubelet named it get the name and namespace that later rows
// with the same pod UID carry.
void name_pods_seen_by_uid(std::vector<OwnerSpanRow>& rows) {
  std::map<std::string, const ProcessOwner*> named;
  for (const auto& row : rows) {
    if (row.owner.pod_uid && row.owner.pod_name) named.emplace(*row.owner.pod_uid, &row.owner);
  }
  for (auto& row : rows) {
    if (row.owner.pod_name || !row.owner.pod_uid) continue;
    auto it = named.find(*row.owner.pod_uid);
    if (it == named.end()) continue;
    row.owner.pod_name = it->second->pod_name;
    row.owner.pod_namespace = it->second->pod_namespace;
  }
}

std::string span_columns_sql() {
  std::string names;
  for (const char* column : kOwnerColumns) names += std::string(", ") + column;
  return "SELECT gpu_key, gpu_uuid, gpu_index, pid, first_ms, last_ms" + names + " FROM process_owners WHERE 1";
}

// The rows of a statement selected with span_columns_sql(), then their pods named by UID.
std::vector<OwnerSpanRow> read_span_rows(SQLite::Statement& select) {
  std::vector<OwnerSpanRow> out;
  while (select.executeStep()) {
    OwnerSpanRow row;
    row.gpu_key = select.getColumn(0).getString();
    row.gpu_uuid = optional_text(select.getColumn(1));
    row.gpu_index = static_cast<unsigned>(select.getColumn(2).getInt64());
    row.pid = static_cast<std::uint32_t>(select.getColumn(3).getInt64());
    row.first_ms = select.getColumn(4).getInt64();
    row.last_ms = select.getColumn(5).getInt64();
    auto members = owner_members(row.owner);
    for (std::size_t i = 0; i < members.size(); ++i) *members[i] = optional_text(select.getColumn(static_cast<int>(6 + i)));
    out.push_back(std::move(row));
  }
  name_pods_seen_by_uid(out);
  return out;
}

}  // namespace

core::Result<std::vector<OwnerSpanRow>> read_owner_spans(const HistoryDatabase& db, const OwnerFilter& filter,
                                                         std::optional<std::int64_t> since_ms,
                                                         std::optional<std::int64_t> until_ms) {
  std::vector<OwnerSpanRow> out;
  if (!filter.slurm_job && !filter.pod_name) return core::make_error("no Slurm job or pod to look for");
  try {
    if (!has_owner_table(db)) return out;
    std::string sql = span_columns_sql();
    if (filter.slurm_job) sql += " AND slurm_job = :job";
    if (filter.pod_name) {
      // A pod is named once the kubelet answered; before that its processes were recorded by UID
      // alone (from their cgroup). Those rows belong to the pod too.
      const std::string named =
          std::string("pod_name = :pod") + (filter.pod_namespace ? " AND pod_namespace = :namespace" : "");
      sql += " AND ((" + named + ") OR (pod_name IS NULL AND pod_uid IN (SELECT pod_uid FROM process_owners WHERE " +
             named + " AND pod_uid IS NOT NULL)))";
    }
    if (since_ms) sql += " AND last_ms >= :since";
    if (until_ms) sql += " AND first_ms <= :until";
    SQLite::Statement select(db.sql(), sql + " ORDER BY first_ms, gpu_index, pid");
    if (filter.slurm_job) select.bind(":job", *filter.slurm_job);
    if (filter.pod_name) select.bind(":pod", *filter.pod_name);
    if (filter.pod_namespace) select.bind(":namespace", *filter.pod_namespace);
    if (since_ms) select.bind(":since", static_cast<std::int64_t>(*since_ms));
    if (until_ms) select.bind(":until", static_cast<std::int64_t>(*until_ms));
    return read_span_rows(select);
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read process owners: ") + e.what(), 1);
  }
}

core::Result<std::vector<OwnerSpanRow>> read_spans_on_gpus(const HistoryDatabase& db, const std::vector<std::string>& gpu_keys,
                                                           std::int64_t since_ms, std::int64_t until_ms) {
  std::vector<OwnerSpanRow> out;
  if (gpu_keys.empty()) return out;
  try {
    if (!has_owner_table(db)) return out;
    std::string keys;
    for (std::size_t i = 0; i < gpu_keys.size(); ++i) keys += (i ? ", :k" : ":k") + std::to_string(i);
    SQLite::Statement select(db.sql(), span_columns_sql() + " AND gpu_key IN (" + keys +
                                           ") AND last_ms >= :since AND first_ms <= :until ORDER BY first_ms, gpu_index, pid");
    for (std::size_t i = 0; i < gpu_keys.size(); ++i) select.bind(":k" + std::to_string(i), gpu_keys[i]);
    select.bind(":since", static_cast<std::int64_t>(since_ms));
    select.bind(":until", static_cast<std::int64_t>(until_ms));
    return read_span_rows(select);
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read process owners: ") + e.what(), 1);
  }
}

std::string owner_identity(const OwnerSpanRow& span) {
  const auto& o = span.owner;
  if (o.slurm_job) return "slurm:" + *o.slurm_job;
  if (o.pod_uid) return "pod-uid:" + *o.pod_uid;
  if (o.pod_name) return "pod:" + o.pod_namespace.value_or("") + "/" + *o.pod_name;
  if (o.container_id) return "container:" + *o.container_id;
  return "pid:" + std::to_string(span.pid);
}

bool OwnerWindow::holds(const std::optional<std::string>& gpu_uuid, unsigned gpu_index) const {
  return std::any_of(gpus.begin(), gpus.end(), [&](const OwnerGpu& g) {
    return g.uuid && gpu_uuid ? *g.uuid == *gpu_uuid : !g.uuid && !gpu_uuid && g.index == gpu_index;
  });
}

bool OwnerWindow::ran(const std::optional<std::string>& gpu_uuid, unsigned gpu_index, std::uint32_t pid) const {
  return std::any_of(processes.begin(), processes.end(), [&](const OwnerProcess& p) {
    if (p.pid != pid) return false;
    return p.gpu_uuid && gpu_uuid ? *p.gpu_uuid == *gpu_uuid : !p.gpu_uuid && !gpu_uuid && p.gpu_index == gpu_index;
  });
}

std::optional<OwnerWindow> owner_window(const OwnerFilter& filter, const std::vector<OwnerSpanRow>& spans) {
  if (spans.empty()) return std::nullopt;
  OwnerWindow w;
  w.kind = filter.slurm_job ? "slurm_job" : "pod";
  w.title = describe(filter);
  w.first_ms = spans.front().first_ms;
  w.last_ms = spans.front().last_ms;
  std::set<std::pair<unsigned, std::string>> gpus;  // (index, key)
  std::set<std::tuple<unsigned, std::string, std::uint32_t>> processes;
  for (const auto& s : spans) {
    w.first_ms = std::min(w.first_ms, s.first_ms);
    w.last_ms = std::max(w.last_ms, s.last_ms);
    if (gpus.insert({s.gpu_index, s.gpu_key}).second) w.gpus.push_back({s.gpu_uuid, s.gpu_index});
    if (processes.insert({s.gpu_index, s.gpu_key, s.pid}).second) w.processes.push_back({s.gpu_uuid, s.gpu_index, s.pid});
    insert_sorted(w.users, s.owner.slurm_user);
    insert_sorted(w.steps, s.owner.slurm_step);
    insert_sorted(w.namespaces, s.owner.pod_namespace);
    insert_sorted(w.containers, s.owner.pod_container);
  }
  std::stable_sort(w.gpus.begin(), w.gpus.end(), [](const OwnerGpu& a, const OwnerGpu& b) { return a.index < b.index; });
  std::stable_sort(w.processes.begin(), w.processes.end(), [](const OwnerProcess& a, const OwnerProcess& b) {
    return std::pair(a.gpu_index, a.pid) < std::pair(b.gpu_index, b.pid);
  });
  return w;
}

}  // namespace gpuwatch::store
