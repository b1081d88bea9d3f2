// Generated from deploy/io.fleetd.Fleet.varlink; FleetInterfaceTests checks the two are identical.

extension FleetInterface {
    /// The varlink interface definition served by `GetInterfaceDescription`.
    public static let definition = #"""
# fleetd control interface: status, device listing, connection control,
# characteristic access and a live event stream for a fleet of BLE peripherals.
#
# Read methods (Status, ListDevices, ShowDevice, Watch, Readings, Records, Metrics) are open
# to anyone who can reach the socket; every other method (Acknowledge included)
# needs root or the control group.
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
  # Connect attempts in the current cycle, since the device was last ready (0 while ready).
  attempt: int,
  # Consecutive failures counted against the class's retry budget (failed connects, links lost before
  # ready); cleared when a session reaches ready. A session that reached ready and ended is not a failure,
  # nor are an adapter's outage, a full pool's refusals or the first cancel of an earlier fleetd's connect.
  failures: int,
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
  characteristics: []Characteristic,
  # What the device's Device Information service said on its last link:
  # manufacturer-name, model-number, serial-number, firmware-revision, ...
  deviceInformation: ?[]ObservationDetail
)

# One entry of the Watch stream.
type Event (
  # Strictly increasing within one stream: the daemon run's event number, or,
  # in a Watch with since or consumer, the value's cursor.
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
  text: string,
  # The next four are sent for values replayed or followed from the outbox
  # (a Watch with since or consumer). cursor: the value's place among all
  # stored values, to pass as since or to Acknowledge.
  cursor: ?int,
  # The value's number among its device's values: 1, 2, 3... with no gap
  # within its epoch, across fleetd restarts.
  deviceSequence: ?int,
  # The outbox's numbering deviceSequence belongs to: compare numbers only
  # within one epoch (a fresh outbox, or a run that ended with the machine,
  # starts a new one).
  epoch: ?int,
  # The link session (connection) the value came from.
  session: ?int,
  # How the value arrived; read: read by fleetd when the link came up.
  delivery: ?(notification, indication, read),
  # For a value of a standard characteristic: what its profile decoder made
  # of it, or where it failed to decode.
  observations: ?[]Observation,
  decodeError: ?DecodeError
)

# A reading decoded by its Bluetooth SIG profile (docs/observations.md): the
# numbers with their ISO/IEEE 11073-10101 codes and UCUM units as the device
# sent them, its own time stamp and record number, and every status flag.
type Observation (
  # heart-rate, blood-pressure, glucose, ... (the standard service).
  profile: string,
  # The 16-bit assigned number, e.g. 2A37.
  characteristic: string,
  quantities: []Quantity,
  # The device's own clock, local time without a zone (year 0000: unset).
  deviceTime: ?string,
  # The device's record number (glucose sequence number, CGM time offset).
  record: ?int,
  flags: []string,
  details: []ObservationDetail,
  # One line for humans.
  summary: string
)

# One number of an observation. value is absent for the IEEE 11073 special
# values, which special names: nan, nres, +inf, -inf, reserved (with raw).
type Quantity (
  metric: string,
  display: string,
  mdc: ?int,
  mdcName: ?string,
  loinc: ?string,
  value: ?float,
  special: ?string,
  raw: ?int,
  # UCUM code, and the symbol a person reads.
  unit: string,
  symbol: string,
  unitMdc: ?int
)

type ObservationDetail (
  name: string,
  value: string
)

# A value of a standard characteristic that does not decode: the field and the
# byte offset where it fails. The raw value is sent beside it.
type DecodeError (
  characteristic: string,
  field: string,
  offset: int,
  # too-short, trailing-bytes, reserved, out-of-range or crc-mismatch.
  problem: string,
  needed: ?int,
  available: ?int,
  count: ?int,
  value: ?int,
  sent: ?int,
  computed: ?int,
  text: string
)

# The link to the fleet's MQTT broker and how far publishing is behind.
type Broker (
  # host:port.
  broker: string,
  gateway: string,
  # <prefix>/<gateway>: every topic of this gateway starts with it.
  topicBase: string,
  state: (connecting, connected, waiting, stopped),
  reconnects: int,
  published: int,
  acknowledged: int,
  # Readings in the outbox the broker has not acknowledged yet.
  backlog: int,
  oldestUnpublishedSeconds: ?float,
  # Readings retention dropped before they were published.
  lost: int,
  lastError: ?string
)

# A value stored in fleetd's outbox.
type Reading (
  cursor: int,
  deviceSequence: int,
  # See Event.epoch.
  epoch: int,
  characteristic: string,
  delivery: (notification, indication, read),
  # Lowercase hex.
  value: string,
  # Arrival time, ISO-8601 UTC.
  time: string,
  session: int,
  # For a value of a standard characteristic: what its profile decoder made
  # of it, or where it failed to decode.
  observations: ?[]Observation,
  decodeError: ?DecodeError
)

# Stored values that retention dropped before they were read, of any device.
# One stored-record service of a device (Records). lastSync is ISO-8601 UTC.
type RecordService (
  service: string,
  mark: ?int,
  storedOnDevice: ?int,
  lastSync: ?string,
  lastOutcome: ?string,
  duplicatesSuppressed: int,
  sequenceResets: int,
  greaterOrEqualUnsupported: bool,
  syncing: bool
)

type LostReadings (
  firstCursor: int,
  lastCursor: int
)

# A named consumer's position in the outbox.
type Consumer (
  name: string,
  # The cursor it acknowledged.
  cursor: int,
  # Committed values after its cursor.
  unacknowledged: int,
  # Age of the oldest stored value it has not acknowledged (absent: up to date).
  oldestUnacknowledgedSeconds: ?float,
  # Retention dropped values it had not acknowledged.
  lostPlace: bool
)

# The outbox of stored values.
type Outbox (
  depth: int,
  # Values in memory waiting for their commit.
  pending: int,
  # Cursor of the newest committed value.
  lastCursor: int,
  # Append of the last batch's oldest value to its commit.
  commitLatencySeconds: float,
  # Bytes of WAL frames written since start.
  bytesWritten: int,
  droppedByRetention: int,
  # Dropped from memory while the disk refused writes.
  droppedInMemory: int,
  # Commits fail (a full disk); lastError says why.
  failing: bool,
  lastError: ?string,
  consumers: []Consumer
)

# Daemon, adapters and device counts; broker when fleetd publishes to one,
# outbox when it stores values (each absent otherwise).
method Status() -> (daemon: Daemon, adapters: []Adapter, counts: Counts, broker: ?Broker, outbox: ?Outbox)

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
method Read(device: string, characteristic: string) -> (value: string, observations: ?[]Observation, decodeError: ?DecodeError)

# Write a characteristic; value is hex. withResponse defaults to true.
method Write(device: string, characteristic: string, value: string, withResponse: ?bool) -> ()

# Stream lifecycle events and notification values, of one device or all.
# Must be called with more=true.
# With since (a cursor) the stream is durable: the stored values after since
# are replayed from the outbox, then new ones follow as they are committed
# (within the commit delay); lifecycle events, never stored, are not sent.
# With consumer (a name) it starts after that consumer's acknowledged cursor
# (a consumer never seen starts at the oldest stored value) unless since is
# given; the cursor moves only by Acknowledge. A cursor older than what the
# outbox keeps ends the stream with LostPlace. Reserved consumer names are
# refused with ReservedConsumer.
method Watch(device: ?string, since: ?int, consumer: ?string) -> (event: Event)

# Move a named consumer's cursor to cursor (never backwards); returns the
# cursor in effect. A consumer is created by its first acknowledgement.
# Reserved consumer names (see ReservedConsumer) are refused.
method Acknowledge(consumer: string, cursor: int) -> (consumer: string, cursor: int)

# One device's stored values, oldest first: those after cursor since, or the
# newest when since is absent; at most limit (default 100, at most 10000).
# next is the since of the following page; lost is set when since was older
# than what the outbox keeps.
method Readings(device: string, since: ?int, limit: ?int) -> (device: string, readings: []Reading, next: int, lost: ?LostReadings)

# What fleetd keeps of a device's stored records (glucose meters and CGMs synced
# through their Record Access Control Point): per service, the mark (the highest
# record known stored with nothing missing below it), the records the device said
# it holds, when and how its last sync ended, and the duplicates not stored again.
method Records(device: string) -> (device: string, services: []RecordService)

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
# A Watch from a cursor older than what the outbox keeps: the values
# firstCursor...lastCursor were dropped by retention before they were read.
error LostPlace (consumer: ?string, firstCursor: int, lastCursor: int, count: int)
# fleetd runs without its outbox: nothing is stored to replay or query.
error StoreUnavailable (reason: string)
# Watch or Acknowledge named a consumer fleetd keeps for its own use: mqtt
# (the publisher), fhir, and names starting with fleetd or _ (compared
# without regard to ASCII case); reserved is the name or prefix* matched.
error ReservedConsumer (consumer: string, reserved: string)
error InvalidRequest (reason: string)
# Pair or Unpair refused: no pairing configured, no bond, or already pairing.
error PairingRefused (device: string, reason: string)
error Failed (message: string)
"""#
}
