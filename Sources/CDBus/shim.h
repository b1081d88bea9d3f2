#ifndef FLEET_CDBUS_SHIM_H
#define FLEET_CDBUS_SHIM_H
#include <dbus/dbus.h>

/* Swift rejects the DBUS_TYPE_* macros (they are `((int) 'x')`), so they are re-declared as constants. */
static const int FLEET_DBUS_TYPE_INVALID = DBUS_TYPE_INVALID;
static const int FLEET_DBUS_TYPE_BYTE = DBUS_TYPE_BYTE;
static const int FLEET_DBUS_TYPE_BOOLEAN = DBUS_TYPE_BOOLEAN;
static const int FLEET_DBUS_TYPE_INT16 = DBUS_TYPE_INT16;
static const int FLEET_DBUS_TYPE_UINT16 = DBUS_TYPE_UINT16;
static const int FLEET_DBUS_TYPE_INT32 = DBUS_TYPE_INT32;
static const int FLEET_DBUS_TYPE_UINT32 = DBUS_TYPE_UINT32;
static const int FLEET_DBUS_TYPE_INT64 = DBUS_TYPE_INT64;
static const int FLEET_DBUS_TYPE_UINT64 = DBUS_TYPE_UINT64;
static const int FLEET_DBUS_TYPE_DOUBLE = DBUS_TYPE_DOUBLE;
static const int FLEET_DBUS_TYPE_STRING = DBUS_TYPE_STRING;
static const int FLEET_DBUS_TYPE_OBJECT_PATH = DBUS_TYPE_OBJECT_PATH;
static const int FLEET_DBUS_TYPE_SIGNATURE = DBUS_TYPE_SIGNATURE;
static const int FLEET_DBUS_TYPE_UNIX_FD = DBUS_TYPE_UNIX_FD;
static const int FLEET_DBUS_TYPE_ARRAY = DBUS_TYPE_ARRAY;
static const int FLEET_DBUS_TYPE_VARIANT = DBUS_TYPE_VARIANT;
static const int FLEET_DBUS_TYPE_STRUCT = DBUS_TYPE_STRUCT;
static const int FLEET_DBUS_TYPE_DICT_ENTRY = DBUS_TYPE_DICT_ENTRY;

static const int FLEET_DBUS_MESSAGE_TYPE_METHOD_CALL = DBUS_MESSAGE_TYPE_METHOD_CALL;
static const int FLEET_DBUS_MESSAGE_TYPE_METHOD_RETURN = DBUS_MESSAGE_TYPE_METHOD_RETURN;
static const int FLEET_DBUS_MESSAGE_TYPE_ERROR = DBUS_MESSAGE_TYPE_ERROR;
static const int FLEET_DBUS_MESSAGE_TYPE_SIGNAL = DBUS_MESSAGE_TYPE_SIGNAL;

/* A DBusError lives on the stack in C; these keep it opaque to Swift callers of the wrapper. */
static inline DBusError *fleet_dbus_error_new(void) {
    DBusError *e = (DBusError *)dbus_malloc0(sizeof(DBusError));
    if (e) dbus_error_init(e);
    return e;
}
static inline void fleet_dbus_error_free(DBusError *e) {
    if (!e) return;
    dbus_error_free(e);
    dbus_free(e);
}
static inline const char *fleet_dbus_error_name(const DBusError *e) { return e->name; }
static inline const char *fleet_dbus_error_message(const DBusError *e) { return e->message; }
#endif
