#!/usr/bin/python3
# fleetd fidelity suite: BLE peripherals served by the real bluetoothd through GattManager1 and
# LEAdvertisingManager1, one per controller, mirroring the simulator's profiles exactly so that the same
# scenario holds on both backends (see docs/bluez-fidelity.md).
#
#   fidelity-peripheral.py [--secure hciN=encrypt|authenticate] ... [--agent CAPABILITY[:PASSKEY]]
#                          [--passkey-out FILE] [--meter hciN=RECORDS[:DROP_AFTER]] ... ADAPTER=KIND:SERIAL[:NAME] ...
#
# ADAPTER is hciN; KIND is `full` (heart-rate + glucose + control-point, as the simulator's
# profile=heart-rate,glucose,control-point) or `battery` (profile=battery); SERIAL is the hex serial put
# after company 0xffff in the manufacturer data; NAME is the advertised local name.
#
# Stored records (docs/bluez-fidelity.md, Stored records; the simulator's profile=glucose-meter records=N):
#   --meter hciN=RECORDS[:K]     that adapter serves a stored-record glucose meter instead of its KIND: the Glucose
#                                service 0x1808 alone (Measurement 2A18 notify, Feature 2A51 read, RACP 2A52 write +
#                                indicate) holding records 1..RECORDS laid out as the simulator's GlucoseRecords
#                                (Sources/BlueZSimulator/Measurements/GlucoseRecords.swift), answering the RACP as
#                                GSS §3.178 / GLS v1.0.1 §3.4 say. With K, the link drops (from this side, btmgmt
#                                disconnect) one pace after the K-th record of the next transfer that has more than
#                                K, as the simulator's `racp-drop-after DEV K`. --secure applies to 2A18 and 2A52.
#
# Pairing (docs/bluez-fidelity.md, Pairing):
#   --secure hciN=encrypt        that adapter's Glucose Measurement 2A18 needs an encrypted link
#                                (flags encrypt-read, encrypt-notify; the simulator's security=2a18:encrypt);
#                                `authenticate` uses encrypt-authenticated-read/-notify (security=2a18:authenticate)
#   --agent CAPABILITY[:PASSKEY] registers an org.bluez.Agent1 on this bluetoothd with that capability
#                                (DisplayOnly, KeyboardOnly, DisplayYesNo, NoInputNoOutput, KeyboardDisplay) and
#                                makes it the default agent, which is the one bluetoothd asks for the peripheral
#                                side of a pairing (new_auth: no Pair call on that side). It answers only for
#                                devices on the peripheral adapters named on the command line and rejects the
#                                rest (fleetd's adapters share this bluetoothd). RequestPasskey answers PASSKEY.
#   --passkey-out FILE           DisplayPasskey writes the passkey shown to FILE (mode 0600), for a test to give
#                                fleetd as its passkey-file.
# A Linux peripheral cannot show a *fixed* passkey: when it is the displaying side the kernel draws a random
# one (net/bluetooth/smp.c, DSP_PASSKEY/CFM_PASSKEY), which DisplayPasskey reports. A fixed passkey on both
# ends needs both sides to enter it: --agent KeyboardOnly:PASSKEY with a central that is KeyboardOnly too.
#
# Prints "fidelity-peripheral: ready" once every application and advertisement is registered (flushed),
# and runs until SIGTERM. Reads commands from the FIFO named in $FIDELITY_PERIPHERAL_FIFO, one a line:
#   advertise hciN on|off     register or unregister that adapter's advertisement
#   forget hciN               the peripheral forgets its bonds: Adapter1.RemoveDevice of every paired device
#                             on hciN (the central as that adapter sees it), which also drops the link;
#                             it prints "forgot hciN (removed N)" before its "ok"
# Each command is answered on stdout with "ok <command>" or "error <command>: <reason>". SIGUSR1 does
# `forget` on every peripheral adapter.
import os
import signal
import sys

import dbus
import dbus.exceptions
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

BLUEZ = 'org.bluez'
OM = 'org.freedesktop.DBus.ObjectManager'
PROPS = 'org.freedesktop.DBus.Properties'
GATT_SERVICE = 'org.bluez.GattService1'
GATT_CHRC = 'org.bluez.GattCharacteristic1'
ADVERTISEMENT = 'org.bluez.LEAdvertisement1'
AGENT = 'org.bluez.Agent1'
AGENT_PATH = '/io/fleetd/fidelity/agent'
COMPANY = 0xffff


def say(line):
    print(line, flush=True)


def full_uuid(short):
    return '0000%s-0000-1000-8000-00805f9b34fb' % short if len(short) == 4 else short


class NotPermitted(dbus.exceptions.DBusException):
    _dbus_error_name = 'org.bluez.Error.NotPermitted'


class InvalidOffset(dbus.exceptions.DBusException):
    _dbus_error_name = 'org.bluez.Error.InvalidOffset'


class Rejected(dbus.exceptions.DBusException):
    _dbus_error_name = 'org.bluez.Error.Rejected'


def secured(flags, level):
    """The flags that make bluetoothd's GATT server refuse a characteristic on an insecure link
    (parse_chrc_flags, src/gatt-database.c 5.66): read → encrypt-read, notify → encrypt-notify, …"""
    if level is None:
        return flags
    prefix = 'encrypt-' if level == 'encrypt' else 'encrypt-authenticated-'
    return [prefix + f if f in ('read', 'write', 'notify', 'indicate') else f for f in flags]


class Agent(dbus.service.Object):
    """The peripheral side's agent: shows (prints) passkeys, types a fixed one, accepts confirmations, and
    refuses requests about devices on adapters that are not this script's peripherals."""

    def __init__(self, bus, adapters, passkey, passkey_out):
        self.adapters = adapters
        self.passkey = passkey
        self.passkey_out = passkey_out
        dbus.service.Object.__init__(self, bus, AGENT_PATH)

    def mine(self, device):
        adapter = str(device).split('/')[3] if str(device).count('/') >= 4 else ''
        if adapter not in self.adapters:
            say('agent: refused a request about %s (not a peripheral adapter)' % device)
            raise Rejected('not a peripheral adapter')
        return adapter

    @dbus.service.method(AGENT, in_signature='o', out_signature='u')
    def RequestPasskey(self, device):
        adapter = self.mine(device)
        if self.passkey is None:
            raise Rejected('no passkey to enter')
        say('agent: RequestPasskey %s %s -> %06u' % (adapter, device, self.passkey))
        return dbus.UInt32(self.passkey)

    @dbus.service.method(AGENT, in_signature='ouq')
    def DisplayPasskey(self, device, passkey, entered):
        adapter = self.mine(device)
        say('agent: DisplayPasskey %s %s %06u entered %d' % (adapter, device, passkey, entered))
        if self.passkey_out:
            temporary = self.passkey_out + '.tmp'
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, 'w') as out:
                out.write('%06u\n' % passkey)
            os.rename(temporary, self.passkey_out)

    @dbus.service.method(AGENT, in_signature='ou')
    def RequestConfirmation(self, device, passkey):
        say('agent: RequestConfirmation %s %s %06u' % (self.mine(device), device, passkey))

    @dbus.service.method(AGENT, in_signature='o')
    def RequestAuthorization(self, device):
        say('agent: RequestAuthorization %s %s' % (self.mine(device), device))

    @dbus.service.method(AGENT, in_signature='os')
    def AuthorizeService(self, device, uuid):
        say('agent: AuthorizeService %s %s %s' % (self.mine(device), device, uuid))

    @dbus.service.method(AGENT, in_signature='o', out_signature='s')
    def RequestPinCode(self, device):
        self.mine(device)
        raise Rejected('no PIN codes')

    @dbus.service.method(AGENT)
    def Cancel(self):
        say('agent: Cancel')

    @dbus.service.method(AGENT)
    def Release(self):
        say('agent: Release')


def forget(bus, adapter):
    """Removes every paired device object on `adapter`: bluetoothd deletes its keys (device_remove_stored),
    so the central's next encryption with the old key fails."""
    objects = dbus.Interface(bus.get_object(BLUEZ, '/'), OM).GetManagedObjects()
    prefix = '/org/bluez/%s/dev_' % adapter
    removed = 0
    for path, interfaces in objects.items():
        device = interfaces.get('org.bluez.Device1')
        if str(path).startswith(prefix) and device and (device.get('Paired') or device.get('Bonded')):
            dbus.Interface(bus.get_object(BLUEZ, '/org/bluez/' + adapter), 'org.bluez.Adapter1').RemoveDevice(path)
            removed += 1
    return removed


class Application(dbus.service.Object):
    def __init__(self, bus, path):
        self.path = path
        self.services = []
        dbus.service.Object.__init__(self, bus, path)

    @dbus.service.method(OM, out_signature='a{oa{sa{sv}}}')
    def GetManagedObjects(self):
        out = {}
        for service in self.services:
            out[dbus.ObjectPath(service.path)] = service.properties()
            for chrc in service.characteristics:
                out[dbus.ObjectPath(chrc.path)] = chrc.properties()
        return out


class Service(dbus.service.Object):
    def __init__(self, bus, app, uuid):
        self.path = '%s/service%d' % (app.path, len(app.services))
        self.uuid = full_uuid(uuid)
        self.characteristics = []
        dbus.service.Object.__init__(self, bus, self.path)
        app.services.append(self)

    def properties(self):
        return {GATT_SERVICE: {'UUID': self.uuid, 'Primary': True,
                               'Characteristics': dbus.Array([dbus.ObjectPath(c.path) for c in self.characteristics], signature='o')}}

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, interface):
        return self.properties()[GATT_SERVICE]


class Characteristic(dbus.service.Object):
    """One characteristic; `every` (seconds) and `pattern` make it notify while subscribed."""

    def __init__(self, bus, service, uuid, flags, value, every=None, pattern=None):
        self.path = '%s/char%d' % (service.path, len(service.characteristics))
        self.service = service
        self.uuid = full_uuid(uuid)
        self.flags = flags
        self.value = list(value)
        self.every = every
        self.pattern = pattern
        self.count = 0
        self.notifying = False
        self.timer = None
        self.on_write = None
        dbus.service.Object.__init__(self, bus, self.path)
        service.characteristics.append(self)

    def properties(self):
        return {GATT_CHRC: {'Service': dbus.ObjectPath(self.service.path), 'UUID': self.uuid,
                            'Flags': dbus.Array(self.flags, signature='s')}}

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, interface):
        return self.properties()[GATT_CHRC]

    def allows(self, operation):
        """Whether a flag grants `operation`, secured or not (`read` or `encrypt-read`, …): bluetoothd has
        checked the link's security before it calls the application."""
        return any(f == operation or f.endswith('-' + operation) for f in self.flags)

    @dbus.service.method(GATT_CHRC, in_signature='a{sv}', out_signature='ay')
    def ReadValue(self, options):
        if not self.allows('read'):
            raise NotPermitted('Read not permitted')
        offset = int(options.get('offset', 0))
        if offset > len(self.value):
            raise InvalidOffset('Invalid offset')
        return dbus.Array(self.value[offset:], signature='y')

    @dbus.service.method(GATT_CHRC, in_signature='aya{sv}')
    def WriteValue(self, value, options):
        if not self.allows('write') and 'write-without-response' not in self.flags:
            raise NotPermitted('Write not permitted')
        if self.on_write:
            return self.on_write(value, options)
        offset = int(options.get('offset', 0))
        self.value = self.value[:offset] + [int(b) for b in value]
        # A control point answers on its indication, as the simulator's does: RACP response code 0x06,
        # operand, request opcode, success.
        if self.notifying and self.allows('indicate'):
            self.emit([0x06, 0x00, self.value[0] if self.value else 0, 0x01])

    @dbus.service.method(GATT_CHRC)
    def StartNotify(self):
        if self.notifying:
            return
        self.notifying = True
        if self.every:
            self.timer = GLib.timeout_add(int(self.every * 1000), self.tick)

    @dbus.service.method(GATT_CHRC)
    def StopNotify(self):
        self.notifying = False
        if self.timer:
            GLib.source_remove(self.timer)
            self.timer = None

    @dbus.service.signal(PROPS, signature='sa{sv}as')
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def emit(self, value):
        self.PropertiesChanged(GATT_CHRC, {'Value': dbus.Array(value, signature='y')}, [])

    def tick(self):
        if not self.notifying:
            self.timer = None
            return False
        self.value = self.pattern(self.count, self.value)
        self.count += 1
        self.emit(self.value)
        return True


# ---- A stored-record glucose meter (GLS v1.0.1) ---------------------------------------------------------------

RECORD_PACE_MS = 20   # the simulator's default record-pace (0.02 s): between records, and before the first
PRELOAD_EPOCH = 1796083200  # 2026-12-01T00:00:00Z, GlucoseRecords.preloadEpoch


def date_time(unix):
    """GSS Date Time: uint16 LE year, month, day, hours, minutes, seconds (UTC)."""
    import datetime
    t = datetime.datetime.fromtimestamp(unix, datetime.timezone.utc)
    return [t.year & 0xff, t.year >> 8, t.month, t.day, t.hour, t.minute, t.second]


def glucose_record(sequence):
    """GlucoseRecords.record(sequence:time: preloadedTime(sequence:)): flags 0x02, sequence number uint16 LE,
    base time, concentration SFLOAT kg/L (exponent -5, mantissa 90 + (k-1)*13 % 90 mg/dL), type/location 0x11."""
    reading = max(0, sequence - 1)
    concentration = 0xB000 | (90 + (reading % 100000) * 13 % 90)
    return ([0x02, sequence & 0xff, sequence >> 8] + date_time(PRELOAD_EPOCH + reading * 60)
            + [concentration & 0xff, concentration >> 8, 0x11])


class CCCDImproperlyConfigured(dbus.exceptions.DBusException):
    # bluetoothd 5.66 passes only 0x80-0x9f through org.bluez.Error.Failed (dbus_error_to_att_ecode,
    # src/gatt-database.c); "0xfd" is logged "Invalid error code" and sent as 0x0e Unlikely Error. An application
    # cannot send 0xfd: docs/bluez-fidelity.md, Stored records.
    _dbus_error_name = 'org.bluez.Error.Failed'


class InProgress(dbus.exceptions.DBusException):
    # dbus_error_to_att_ecode: org.bluez.Error.InProgress -> BT_ERROR_ALREADY_IN_PROGRESS, ATT 0xfe.
    _dbus_error_name = 'org.bluez.Error.InProgress'


class Meter:
    """The RACP procedure of one meter: one transfer at a time, records notified on 2A18 one pace apart, the
    response code indicated on 2A52."""

    def __init__(self, adapter, count, drop_after):
        self.adapter = adapter
        self.records = {k: glucose_record(k) for k in range(1, count + 1)}
        self.drop_after = drop_after
        self.measurement = None
        self.racp = None
        self.transfer = None   # GLib source id of the running transfer
        self.pending = False   # a request accepted and not answered yet (its answer runs from an idle callback)
        self.device = None     # the client's Device1 on this adapter (WriteValue's "device" option)

    def say(self, line):
        say('meter %s: %s' % (self.adapter, line))

    def write(self, value, options):
        value = [int(b) for b in value]
        if 'device' in options:
            self.device = str(options['device'])
        text = ''.join('%02x' % b for b in value)
        if not self.racp.notifying:
            self.say('racp %s refused: indications off (0xfd asked, bluetoothd sends 0x0e)' % text)
            raise CCCDImproperlyConfigured('0xfd')
        opcode = value[0] if value else 0
        if (self.transfer is not None or self.pending) and opcode != 0x03:
            self.say('racp %s refused: a procedure is running (0xfe)' % text)
            raise InProgress('procedure already in progress')
        self.say('racp %s' % text)
        # The procedure runs from now: a write that bluetoothd dispatches before the idle answer is refused too.
        self.pending = True
        GLib.idle_add(self.answer, value)

    def respond(self, opcode, code):
        self.indicate([0x06, 0x00, opcode, code])

    def indicate(self, value):
        self.say('indicate %s' % ''.join('%02x' % b for b in value))
        self.racp.emit(value)

    def select(self, operator, operand):
        """The selected sequence numbers, or an RACP response code (GSS §3.178.3, GLS §3.4.1)."""
        keys = sorted(self.records)
        if operator == 0x00:
            return 0x03                     # invalid operator
        if operator > 0x06:
            return 0x04                     # operator not supported
        if operator in (0x01, 0x05, 0x06):
            if operand:
                return 0x05                 # invalid operand
            return keys if operator == 0x01 else keys[:1] if operator == 0x05 else keys[-1:]
        if not operand:
            return 0x05
        if operand[0] != 0x01:
            return 0x09                     # operand not supported (only the sequence-number filter)
        numbers = operand[1:]
        if len(numbers) != (4 if operator == 0x04 else 2):
            return 0x05
        first = numbers[0] | numbers[1] << 8
        if operator == 0x02:
            return [k for k in keys if k <= first]
        if operator == 0x03:
            return [k for k in keys if k >= first]
        last = numbers[2] | numbers[3] << 8
        if first > last:
            return 0x05
        return [k for k in keys if first <= k <= last]

    def answer(self, value):
        self.pending = False
        opcode = value[0] if value else 0
        operator = value[1] if len(value) > 1 else 0
        operand = value[2:]
        if opcode == 0x04:                  # report number of stored records
            selected = self.select(operator, operand)
            if isinstance(selected, int):
                self.respond(opcode, selected)
            else:
                self.indicate([0x05, 0x00, len(selected) & 0xff, len(selected) >> 8])
        elif opcode == 0x01:                # report stored records
            selected = self.select(operator, operand)
            if isinstance(selected, int):
                self.respond(opcode, selected)
            elif not selected:
                self.respond(opcode, 0x06)  # no records found
            else:
                self.start(selected)
        elif opcode == 0x03:                # abort operation
            if operator != 0x00:
                self.respond(opcode, 0x03)
            elif operand:
                self.respond(opcode, 0x05)
            else:
                if self.transfer is not None:
                    GLib.source_remove(self.transfer)
                    self.transfer = None
                self.respond(opcode, 0x01)
        else:                               # delete (02) is not offered; 05, 06 are the meter's own
            self.respond(opcode, 0x02)      # op code not supported
        return False

    def start(self, selected):
        queue = list(selected)
        drop = self.drop_after if self.drop_after is not None and len(queue) > self.drop_after else None
        if drop is not None:
            self.drop_after = None          # armed for one transfer
        sent = [0]
        self.say('transfer of %d record(s) %d..%d%s' % (len(queue), queue[0], queue[-1],
                                                        ', the link drops after %d' % drop if drop is not None else ''))

        def tick():
            if drop is not None and sent[0] == drop:
                self.transfer = None
                self.disconnect()
                return False
            if not queue:
                self.transfer = None
                self.respond(0x01, 0x01)    # success
                return False
            k = queue.pop(0)
            # As the simulator: a record goes out only to a client with a notify session on 2A18.
            if self.measurement.notifying:
                self.measurement.emit(self.records[k])
            sent[0] += 1
            return True
        self.transfer = GLib.timeout_add(RECORD_PACE_MS, tick)

    def disconnect(self):
        """The link drops from the meter's side, as link-drop-rearm's btmgmt disconnect (immediate; Device1.Disconnect
        would wait bluetoothd's 2 s disconnect timer)."""
        import subprocess
        try:
            address = str(dbus.Interface(dbus.SystemBus().get_object(BLUEZ, self.device), PROPS).Get('org.bluez.Device1', 'Address'))
        except Exception as e:  # noqa: BLE001 - reported, the scenario fails on it
            self.say('cannot find the client to drop: %s' % e)
            return
        index = self.adapter[3:]
        self.say('dropping the link to %s after the armed count' % address)
        subprocess.Popen(['btmgmt', '--index', index, 'disconnect', '-t', '1', address],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)




def heart_rate(n, _):
    # The simulator's NotifyPattern.heartRate(base: 72).
    swing = [0, 2, 4, 6, 8, 6, 4, 2, 0, -2, -4, -6, -8, -6, -4, -2][n % 16]
    return [0x00, 72 + swing]


def counter(n, initial):
    value = list(initial) or [0]
    value[-1] = (value[-1] + n + 1) & 0xff
    return value


def battery_level(n, initial):
    return [max(1, 97 - n // 6)]


def build(bus, adapter, kind, security=None, meter=None):
    app = Application(bus, '/io/fleetd/fidelity/%s' % adapter)
    if meter is not None:
        glucose = Service(bus, app, '1808')
        meter.measurement = Characteristic(bus, glucose, '2a18', secured(['notify'], security), [])
        Characteristic(bus, glucose, '2a51', ['read'], [0x00, 0x00])
        meter.racp = Characteristic(bus, glucose, '2a52', secured(['write', 'indicate'], security), [])
        meter.racp.on_write = meter.write
        uuids = ['1808']
    elif kind == 'full':
        hr = Service(bus, app, '180d')
        Characteristic(bus, hr, '2a37', ['notify'], [0x00, 72], every=1.0, pattern=heart_rate)
        Characteristic(bus, hr, '2a38', ['read'], [0x01])
        glucose = Service(bus, app, '1808')
        initial = list(range(64))
        Characteristic(bus, glucose, '2a18', secured(['read', 'notify'], security), initial, every=30.0,
                       pattern=lambda n, v: counter(n, initial))
        Characteristic(bus, glucose, '2a51', ['read'], [0x03, 0x04])
        cp = Service(bus, app, '0000fe59-0000-1000-8000-00805f9b34fb')
        Characteristic(bus, cp, '2a52', ['write', 'indicate'], [])
        Characteristic(bus, cp, '8ec90002-f315-4f60-9fb8-838830daea50', ['write-without-response', 'read'], [0x00])
        uuids = ['180d', '1808', 'fe59']
    elif kind == 'battery':
        battery = Service(bus, app, '180f')
        Characteristic(bus, battery, '2a19', ['read', 'notify'], [97], every=10.0, pattern=battery_level)
        uuids = ['180f']
    else:
        raise SystemExit('fidelity-peripheral: unknown kind %r (full or battery)' % kind)
    return app, uuids


class Advertisement(dbus.service.Object):
    def __init__(self, bus, adapter, uuids, serial, name):
        self.path = '/io/fleetd/fidelity/%s/advertisement' % adapter
        self.props = {'Type': 'peripheral', 'ServiceUUIDs': dbus.Array(uuids, signature='s'),
                      'ManufacturerData': dbus.Dictionary({dbus.UInt16(COMPANY): dbus.Array(serial, signature='y')}, signature='qv'),
                      'LocalName': dbus.String(name)}
        dbus.service.Object.__init__(self, bus, self.path)

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, interface):
        return self.props

    @dbus.service.method(ADVERTISEMENT)
    def Release(self):
        pass


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    loop = GLib.MainLoop()
    adverts = {}
    pending = []

    secure = {}
    meters = {}
    agent_spec = None
    passkey_out = None
    specs = []
    arguments = sys.argv[1:]
    while arguments:
        argument = arguments.pop(0)
        if argument in ('--secure', '--agent', '--passkey-out', '--meter') and not arguments:
            raise SystemExit('fidelity-peripheral: %s needs a value' % argument)
        if argument == '--secure':
            adapter, _, level = arguments.pop(0).partition('=')
            if level not in ('encrypt', 'authenticate'):
                raise SystemExit('fidelity-peripheral: --secure expects hciN=encrypt|authenticate, got %r' % level)
            secure[adapter] = level
        elif argument == '--agent':
            agent_spec = arguments.pop(0)
        elif argument == '--meter':
            adapter, _, spec = arguments.pop(0).partition('=')
            count, _, drop = spec.partition(':')
            if not count.isdigit() or (drop and not drop.isdigit()):
                raise SystemExit('fidelity-peripheral: --meter expects hciN=RECORDS[:DROP_AFTER], got %r' % spec)
            meters[adapter] = Meter(adapter, int(count), int(drop) if drop else None)
        elif argument == '--passkey-out':
            passkey_out = arguments.pop(0)
        else:
            specs.append(argument)

    def fail(what):
        def handler(error):
            say('fidelity-peripheral: %s failed: %s' % (what, error))
            loop.quit()
        return handler

    def registered():
        pending.pop()
        if not pending:
            say('fidelity-peripheral: ready')

    for spec in specs:
        adapter, _, rest = spec.partition('=')
        parts = rest.split(':')
        if len(parts) < 2:
            raise SystemExit('fidelity-peripheral: expected ADAPTER=KIND:SERIAL[:NAME], got %r' % spec)
        kind, serial = parts[0], [int(parts[1][i:i + 2], 16) for i in range(0, len(parts[1]), 2)]
        name = parts[2] if len(parts) > 2 else 'Fidelity'
        app, uuids = build(bus, adapter, kind, secure.get(adapter), meters.get(adapter))
        path = '/org/bluez/' + adapter
        adverts[adapter] = (Advertisement(bus, adapter, uuids, serial, name), app)
        gatt = dbus.Interface(bus.get_object(BLUEZ, path), 'org.bluez.GattManager1')
        ads = dbus.Interface(bus.get_object(BLUEZ, path), 'org.bluez.LEAdvertisingManager1')
        pending += [1, 1]
        gatt.RegisterApplication(app.path, {}, reply_handler=registered, error_handler=fail('RegisterApplication on ' + adapter))
        ads.RegisterAdvertisement(adverts[adapter][0].path, {}, reply_handler=registered,
                                  error_handler=fail('RegisterAdvertisement on ' + adapter))

    if agent_spec:
        capability, _, passkey = agent_spec.partition(':')
        if capability not in ('DisplayOnly', 'DisplayYesNo', 'KeyboardOnly', 'NoInputNoOutput', 'KeyboardDisplay'):
            raise SystemExit('fidelity-peripheral: unknown agent capability %r' % capability)
        if passkey and not (passkey.isdigit() and len(passkey) <= 6):
            raise SystemExit('fidelity-peripheral: the agent passkey must be up to six digits, got %r' % passkey)
        agent = Agent(bus, set(adverts), int(passkey) if passkey else None, passkey_out)
        manager = dbus.Interface(bus.get_object(BLUEZ, '/org/bluez'), 'org.bluez.AgentManager1')
        manager.RegisterAgent(AGENT_PATH, capability)
        manager.RequestDefaultAgent(AGENT_PATH)
        say('fidelity-peripheral: agent %s registered as the default agent' % capability)

    def forget_all():
        for adapter in sorted(adverts):
            say('forgot %s (removed %d)' % (adapter, forget(bus, adapter)))
        return True

    def command(line):
        words = line.split()
        if len(words) == 2 and words[0] == 'forget' and words[1] in adverts:
            try:
                say('forgot %s (removed %d)' % (words[1], forget(bus, words[1])))
                say('ok ' + line)
            except dbus.exceptions.DBusException as e:
                say('error %s: %s' % (line, e.get_dbus_name()))
            return
        if len(words) == 3 and words[0] == 'advertise' and words[1] in adverts and words[2] in ('on', 'off'):
            ads = dbus.Interface(bus.get_object(BLUEZ, '/org/bluez/' + words[1]), 'org.bluez.LEAdvertisingManager1')
            advert = adverts[words[1]][0]
            call = ads.RegisterAdvertisement if words[2] == 'on' else ads.UnregisterAdvertisement
            args = (advert.path, {}) if words[2] == 'on' else (advert.path,)
            call(*args, reply_handler=lambda: say('ok ' + line),
                 error_handler=lambda e: say('error %s: %s' % (line, e.get_dbus_name())))
        elif words:
            say('error %s: unknown command' % line)

    fifo = os.environ.get('FIDELITY_PERIPHERAL_FIFO')
    if fifo:
        # O_RDWR keeps the FIFO open with no writer, so there is never an EOF to spin on.
        fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        buffer = [b'']

        def readable(_fd, _cond):
            try:
                buffer[0] += os.read(fd, 4096)
            except BlockingIOError:
                return True
            while b'\n' in buffer[0]:
                line, buffer[0] = buffer[0].split(b'\n', 1)
                command(line.decode().strip())
            return True
        GLib.io_add_watch(fd, GLib.IO_IN, readable)

    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT, loop.quit)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, forget_all)
    loop.run()


if __name__ == '__main__':
    main()
