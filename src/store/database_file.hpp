#pragma once
// What is checked before SQLite touches a history database path (issue 16), so that a wrong
// path gets a clear error and nothing is created or modified:
//  - a directory, a device (/dev/null), a FIFO or a socket is refused, by name; so is a dangling
//    symlink, whose target SQLite would create (issue 31);
//  - a writer refuses a file that is not SQLite, or another program's SQLite database (tables,
//    but no gpuwatch schema), leaving it exactly as it was;
//  - a reader on read-only media (the file or its folder not writable) opens the database
//    immutable (SQLite's immutable=1 URI): no lock, no -shm/-wal to create;
//  - -wal/-shm/-journal files that a refused open created are removed.
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuwatch::store {

// Refuses a path that is not a regular file (or absent, when MAY_BE_MISSING).
core::Result<void> check_database_path(const std::string& path, bool may_be_missing);

// The first 16 bytes of every SQLite 3 database.
bool has_sqlite_header(const std::string& path);

// Whether a reader should open PATH immutable: the file or its folder is not writable.
bool on_read_only_media(const std::string& path);

// "file:PATH?immutable=1", PATH percent-escaped where a URI needs it (%, ?, #).
std::string immutable_uri(const std::string& path);

// The side files SQLite may create next to PATH (-wal, -shm, -journal) that do not exist now;
// remove_side_files deletes those of them that exist by then (after a refused open).
std::vector<std::string> absent_side_files(const std::string& path);
void remove_side_files(const std::vector<std::string>& files);

}  // namespace gpuwatch::store
