#ifndef FLEET_CSQLITE_SHIM_H
#define FLEET_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is `((sqlite3_destructor_type)-1)`, a cast Swift cannot import. These binders make SQLite
   copy the bytes before returning, so Swift's temporary buffers (withCString, withUnsafeBytes) may die after. */
static inline int fleet_sqlite3_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}
static inline int fleet_sqlite3_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}
/* SQLITE_STATIC (a null destructor): SQLite reads the caller's bytes where they are, so they must outlive every
   use of the binding. SQLiteStatement.borrowing scopes such a binding to a closure and unbinds it after. */
static inline int fleet_sqlite3_bind_text_static(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_STATIC);
}
static inline int fleet_sqlite3_bind_blob_static(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_STATIC);
}
#endif
