#!/usr/bin/python3
"""Connects to one BlueZ device the way bleak (bleak/backends/bluezdbus) does, to check a BlueZ look-alike
against the clients people actually run.

bleak keeps its own copy of every object's properties, filled from GetManagedObjects and kept current only
by InterfacesAdded and PropertiesChanged. After Device1.Connect returns it waits for services
(manager._wait_for_services_discovery): it races ServicesResolved == True against Connected == False *in
that copy*, and reports "failed to discover services, device disconnected" if Connected is False there.
So a BlueZ that turns Connected true without a PropertiesChanged fails bleak even though the property
reads true and ServicesResolved=true arrives.

usage: bleak-like-connect.py DEVICE_PATH [TIMEOUT_SECONDS]   (bus: $DBUS_SYSTEM_BUS_ADDRESS)
Prints the outcome, then `trace:` and what arrived in wire order (Connected=…, reply, gatt+ for a run of
GATT InterfacesAdded, ServicesResolved=…) up to ServicesResolved=true. Exit 0: services resolved;
1: "failed to discover services, device disconnected"; 2: Connect failed, the device is unknown, or
nothing decided within the timeout.
"""
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

DEVICE = "org.bluez.Device1"


def main():
    device_path = sys.argv[1]
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    loop = GLib.MainLoop()
    cache = {}
    outcome = {"code": 2, "line": "no decision within %.0f s" % timeout}
    waiting = {"services": False, "decided": False}
    trace = []

    def note(event):
        if not (event == "gatt+" and trace and trace[-1] == event):
            trace.append(event)
        if event == "ServicesResolved=true" and waiting["decided"]:
            loop.quit()

    def finish(code, line):
        outcome["code"], outcome["line"] = code, line
        waiting["decided"] = True
        if "ServicesResolved=true" in trace:
            loop.quit()

    def check():
        # _wait_for_services_discovery starts two waits, ServicesResolved == True and Connected == False,
        # each of which first looks at the cached value; if the Connected one is done, it is a failure.
        if waiting["decided"]:
            return
        properties = cache.get(device_path, {})
        if properties.get("Connected") is not True:
            finish(1, "failed to discover services, device disconnected")
        elif properties.get("ServicesResolved") is True:
            finish(0, "services resolved")

    def properties_changed(interface, changed, invalidated, path=None):
        if interface != DEVICE:
            return
        properties = cache.setdefault(path, {})
        for name, value in changed.items():
            properties[str(name)] = bool(value) if isinstance(value, dbus.Boolean) else value
        if path == device_path:
            for name in sorted(changed):
                if name in ("Connected", "ServicesResolved"):
                    note("%s=%s" % (name, "true" if changed[name] else "false"))
        if waiting["services"] and path == device_path:
            check()

    def interfaces_added(path, interfaces):
        if str(path).startswith(device_path + "/"):
            note("gatt+")
        if DEVICE in interfaces:
            cache[str(path)] = {str(k): v for k, v in interfaces[DEVICE].items()}

    # Subscribe before GetManagedObjects, as bleak's manager does, so no change falls in between.
    bus.add_signal_receiver(properties_changed, "PropertiesChanged", "org.freedesktop.DBus.Properties",
                            "org.bluez", path_keyword="path")
    bus.add_signal_receiver(interfaces_added, "InterfacesAdded", "org.freedesktop.DBus.ObjectManager", "org.bluez")
    root = dbus.Interface(bus.get_object("org.bluez", "/"), "org.freedesktop.DBus.ObjectManager")
    for path, interfaces in root.GetManagedObjects().items():
        if DEVICE in interfaces:
            cache[str(path)] = {str(k): v for k, v in interfaces[DEVICE].items()}
    if device_path not in cache:
        print("no device %s" % device_path)
        return 2

    def connected(*_):
        note("reply")
        waiting["services"] = True
        check()

    def connect_failed(error):
        finish(2, "Connect failed: %s" % error)

    device = dbus.Interface(bus.get_object("org.bluez", device_path), DEVICE)
    device.Connect(reply_handler=connected, error_handler=connect_failed, timeout=timeout)
    GLib.timeout_add(int(timeout * 1000), loop.quit)
    loop.run()
    print(outcome["line"])
    print("trace: " + " ".join(trace))
    return outcome["code"]


if __name__ == "__main__":
    sys.exit(main())
