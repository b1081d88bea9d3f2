// Generated from deploy/io.fleetd.Fleet.varlink; FleetInterfaceTests checks the two are identical.

extension FleetInterface {
    /// The varlink interface definition served by `GetInterfaceDescription`.
    public static let definition = #"""
# fleetd control interface: status, device listing, connection control,
# characteristic access and a live event stream for a fleet of BLE peripherals.
#
# Read methods (Status, ListDevices, ShowDevice, Watch, Metrics) are open to anyone
# who can reach the socket; every other method needs root or the control group.
# A device argument may be an identity id, a unique id prefix, a display name or
# a current Bluetooth address.
interface io.fleetd.Fleet

# The daemon process.
type Daemon (
  version: string,
  uptimeSeconds: float,
  state: (starting, running, degraded, stopping)
)

# Where a device is in its life, named the same by fleetd and its clients:
# unknown: wanted but not seen on any adapter yet;
# discovered: seen, waiting for its adapter's turn or a slot;
# connecting; connected: linked, BlueZ resolving services;
# resolving: subscriptions and reads on connect being set up; ready;
# backingOff: a connect failed or the link dropped, retrying after a delay;
# evicted: disconnected to free a slot, retrying after its hold-off;
# disconnecting; waitingForAdapter: its adapter is off, no attempt counted;
# idle: not wanted (Disconnect); failed: given up until the next Connect;
# pairing: linked and pairing (before set-up, or to retry a GATT call that
# needs a secure link); needsPairing: stopped until Pair (a wrong passkey, or a
# stale bond under re-pair = manual).
type DeviceState (
  unknown, discovered, connecting, connected, resolving, ready,
  backingOff, evicted, disconnecting, waitingForAdapter, idle, failed,
  pairing, needsPairing
)

# A Bluetooth adapter and how many of its connection slots are in use.
type Adapter (
  name: string,
  address: ?string,
  powered: bool,
  slotsUsed: int,
  slotsCapacity: int
)

# How many wanted devices are in each condition.
type Counts (
  wanted: int,
  ready: int,
  backingOff: int,
  failed: int
)

# One device of the fleet as the supervisor sees it now.
type Device (
  # Stable identity id.
  id: string,
  displayName: string,
  state: DeviceState,
  # Adapter holding the connection slot, if any.
  adapter: ?string,
  # Current Bluetooth address (may rotate for private addresses).
  address: ?string,
  rssi: ?int,
  # Seconds since the device was last heard from.
  lastSeenSecondsAgo: ?float,
  # Connection attempt number of the current cycle (0 when ready).
  attempt: int,
  nextRetryInSeconds: ?float,
  policyClass: string,
  # Adapter holding the device's bond (its keys), if it is bonded.
  bondAdapter: ?string
)

# A GATT characteristic of a connected device.
type Characteristic (
  uuid: string,
  # read, write, write-without-response, notify, indicate
  flags: []string
)

# What ShowDevice adds to the Device record.
type DeviceDetail (
  # The identity rule that matched this device.
  identity: ?string,
  lastError: ?string,
  connectedForSeconds: ?float,
  characteristics: []Characteristic
)

# One entry of the Watch stream.
type Event (
  # Strictly increasing per daemon run.
  sequence: int,
  # ISO-8601 UTC timestamp.
  time: string,
  # Identity id of the device.
  device: string,
  # lifecycle: the device entered state; disconnected: its link went down
  # (the next lifecycle event says where it went); reconnected: the link is
  # back after a drop; notification: a characteristic value arrived.
  kind: (lifecycle, disconnected, reconnected, notification),
  # The state entered, for lifecycle events.
  state: ?DeviceState,
  # Characteristic UUID, for notification events.
  characteristic: ?string,
  # Notified value as lowercase hex, for notification events.
  value: ?string,
  # One line for humans.
  text: string
)

# Daemon, adapters and device counts.
method Status() -> (daemon: Daemon, adapters: []Adapter, counts: Counts)

# Every device the daemon knows.
method ListDevices() -> (devices: []Device)

# One device in detail.
method ShowDevice(device: string) -> (device: Device, detail: DeviceDetail)

# Want the device connected now: admission through the policy, which may evict
# another device. evicted is the identity id of the device that lost its slot;
# note says so in a sentence (or, without an eviction, what happens next).
method Connect(device: string) -> (device: string, state: DeviceState, evicted: ?string, note: ?string)

# Disconnect the device and stop wanting it until the next Connect.
method Disconnect(device: string) -> (device: string, state: DeviceState)

# Free the device's slot; it stays wanted and retries after the hold-off.
method Evict(device: string) -> (device: string, holdOffSeconds: float)

# Drop the device from the fleet and its stored identity.
method Forget(device: string) -> (device: string)

# Move the device to another policy class.
method SetPolicy(device: string, policyClass: string) -> (device: string, policyClass: string)

# Read a characteristic; value is lowercase hex.
method Read(device: string, characteristic: string) -> (value: string)

# Write a characteristic; value is hex. withResponse defaults to true.
method Write(device: string, characteristic: string, value: string, withResponse: ?bool) -> ()

# Stream lifecycle events and notification values, of one device or all.
# Must be called with more=true.
method Watch(device: ?string) -> (event: Event)

# Pair the device with fleetd's agent: now over its link, or on its next link.
# Ends a needsPairing stop.
method Pair(device: string) -> (device: string, state: DeviceState, note: string)

# Remove the device's bond (its keys) from the adapter holding it. The device
# stays wanted; with pairing required it pairs again on its next link.
method Unpair(device: string) -> (device: string, state: DeviceState, note: string)

# Re-read the configuration.
method Reload() -> (summary: string)

# Prometheus text exposition of the daemon's metrics.
method Metrics() -> (text: string)

error DeviceNotFound (device: string)
error AmbiguousDevice (device: string, candidates: []string)
error PermissionDenied (method: string)
error NotConnected (device: string)
error CharacteristicNotFound (device: string, characteristic: string)
error BlueZError (name: string, message: string)
error InvalidPolicyClass (policyClass: string, known: []string)
error NoCapacity (device: string, reason: string)
# A Watch client stopped reading and was dropped.
error SlowConsumer (bufferedBytes: int)
error RequestTooLarge (limit: int)
error InvalidRequest (reason: string)
# Pair or Unpair refused: no pairing configured, no bond, or already pairing.
error PairingRefused (device: string, reason: string)
error Failed (message: string)
"""#
}
