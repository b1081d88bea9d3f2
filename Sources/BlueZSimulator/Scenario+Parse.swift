/// The scenario text format: one statement per line, `#` starts a comment, values may be double-quoted.
extension Scenario {
    /// Parses a scenario file. Device labels used by faults must be defined (anywhere in the file).
    public static func parse(_ text: String) throws(ScenarioError) -> Scenario {
        var scenario = Scenario()
        var pendingFaults: [(line: Int, fault: ScriptedFault)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let words = try tokenize(String(raw), line: line)
            guard let keyword = words.first else { continue }
            let rest = Array(words.dropFirst())
            switch keyword {
            case "adapters":
                scenario.adapters = try integer(rest, line: line, range: 1...16)
            case "capacity":
                scenario.capacity = try integer(rest, line: line, range: 0...64)
            case "temporary-timeout":
                scenario.temporaryTimeout = try seconds(rest.first, line: line)
            case "link-up-order":
                guard rest.count == 1, let order = LinkUpOrder(rawValue: rest[0]) else {
                    throw ScenarioError(.badValue, line: line, "link-up-order must be signalled or quiet, got '\(rest.joined(separator: " "))'")
                }
                scenario.linkUpOrder = order
            case "stale-bond-order":
                guard rest.count == 1, let order = StaleBondOrder(rawValue: rest[0]) else {
                    throw ScenarioError(.badValue, line: line, "stale-bond-order must be reply-first or signals-first, got '\(rest.joined(separator: " "))'")
                }
                scenario.staleBondOrder = order
            case "device":
                let device = try parseDevice(rest, line: line)
                guard !scenario.devices.contains(where: { $0.label == device.label || $0.address == device.address }) else {
                    throw ScenarioError(.duplicateDevice, line: line, "device '\(device.label)' (\(device.address)) is defined twice")
                }
                scenario.devices.append(device)
            case "at", "every":
                guard rest.count >= 2 else { throw ScenarioError(.syntax, line: line, "expected '\(keyword) SECONDS ACTION …'") }
                let time = try seconds(rest[0], line: line)
                let action = try parseAction(Array(rest.dropFirst()), line: line)
                pendingFaults.append((line, ScriptedFault(at: time, every: keyword == "every" ? time : nil, action: action)))
            default:
                throw ScenarioError(.unknownKeyword, line: line, "unknown statement '\(keyword)'")
            }
        }
        let labels = Set(scenario.devices.flatMap { [$0.label, $0.address.description] })
        for (line, fault) in pendingFaults {
            if let device = fault.action.deviceName, !labels.contains(device) {
                throw ScenarioError(.unknownDevice, line: line, "no device '\(device)' is defined")
            }
            if case .powerCycle(let adapter, _) = fault.action, adapter >= scenario.adapters {
                throw ScenarioError(.badValue, line: line, "hci\(adapter) does not exist (adapters \(scenario.adapters))")
            }
            scenario.faults.append(fault)
        }
        return scenario
    }

    /// Parses one device definition (`[device] LABEL key=value …`), the form AddDevice also takes.
    public static func parseDeviceDefinition(_ text: String) throws(ScenarioError) -> PeripheralSpec {
        var words = try tokenize(text, line: 1)
        if words.first == "device" { words.removeFirst() }
        return try parseDevice(words, line: 1)
    }

    static func parseDevice(_ words: [String], line: Int) throws(ScenarioError) -> PeripheralSpec {
        guard let label = words.first, !label.contains("=") else {
            throw ScenarioError(.syntax, line: line, "expected 'device LABEL address=… …'")
        }
        var fields: [String: String] = [:]
        for word in words.dropFirst() {
            guard let eq = word.firstIndex(of: "=") else { throw ScenarioError(.syntax, line: line, "expected key=value, got '\(word)'") }
            fields[String(word[..<eq])] = String(word[word.index(after: eq)...])
        }
        guard let addressText = fields.removeValue(forKey: "address") else {
            throw ScenarioError(.syntax, line: line, "device '\(label)' has no address=")
        }
        guard let address = BluetoothAddress(addressText) else {
            throw ScenarioError(.badValue, line: line, "'\(addressText)' is not an address like AA:BB:CC:DD:EE:FF")
        }
        var spec = PeripheralSpec(label: label, address: address)
        var notifyEvery: Duration?
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "notify-every":
                let every = try seconds(value, line: line)
                guard every > .zero else { throw ScenarioError(.badValue, line: line, "notify-every must be above zero, got '\(value)'") }
                notifyEvery = every
            case "type":
                guard let type = AddressType(rawValue: value) else { throw ScenarioError(.badValue, line: line, "type must be public or random, got '\(value)'") }
                spec.addressType = type
            case "name": spec.name = value
            case "manufacturer":
                for item in value.split(separator: ",") {
                    let (key, bytes) = try keyedHex(String(item), line: line)
                    guard let id = UInt16(key.hasPrefix("0x") ? String(key.dropFirst(2)) : key, radix: 16) else {
                        throw ScenarioError(.badValue, line: line, "company id '\(key)' is not a 16-bit hex number")
                    }
                    spec.manufacturerData[id] = bytes
                }
            case "service-data":
                for item in value.split(separator: ",") {
                    let (key, bytes) = try keyedHex(String(item), line: line)
                    spec.serviceData[try uuid(key, line: line)] = bytes
                }
            case "uuids":
                spec.uuids = try value.split(separator: ",").map { (item) throws(ScenarioError) -> String in try uuid(String(item), line: line) }
            case "tx-power": spec.txPower = try int16(value, line: line)
            case "rssi": spec.rssi = try int16(value, line: line)
            case "jitter": spec.rssiJitter = max(0, try int16(value, line: line))
            case "interval": spec.advertisingInterval = try seconds(value, line: line)
            case "heard-by":
                guard value.hasPrefix("hci"), let index = Int(value.dropFirst(3)), index >= 0 else {
                    throw ScenarioError(.badValue, line: line, "heard-by must name an adapter like hci0, got '\(value)'")
                }
                spec.heardBy = index
            case "rotate": spec.rotationInterval = try seconds(value, line: line)
            case "connectable":
                guard value == "yes" || value == "no" else { throw ScenarioError(.badValue, line: line, "connectable must be yes or no") }
                spec.connectable = value == "yes"
            case "advertise-while-linked":
                guard value == "yes" || value == "no" else { throw ScenarioError(.badValue, line: line, "advertise-while-linked must be yes or no") }
                spec.advertisesWhileLinked = value == "yes"
            case "mtu":
                guard let mtu = UInt16(value), mtu >= 23 else { throw ScenarioError(.badValue, line: line, "mtu must be 23…65535, got '\(value)'") }
                spec.mtu = mtu
            case "profile":
                var services: [GattServiceSpec] = []
                for name in value.split(separator: ",") {
                    guard let service = GattProfile.service(named: String(name)) else {
                        throw ScenarioError(.badValue, line: line, "unknown profile '\(name)' (known: \(GattProfile.serviceNames.joined(separator: ", ")))")
                    }
                    services.append(service)
                }
                spec.profile = GattProfile(services: services)
                for service in services where !spec.uuids.contains(service.uuid) { spec.uuids.append(service.uuid) }
            default:
                if try parseRecordKey(key, value, into: &spec, line: line) { continue }
                guard try parseSecurityKey(key, value, into: &spec, line: line) else {
                    throw ScenarioError(.unknownKeyword, line: line, "unknown device key '\(key)'")
                }
            }
        }
        if let notifyEvery {
            // Applied after every key (they are taken in name order): the period of each notifying characteristic,
            // so a test need not wait a cuff's 5 s per reading.
            for s in spec.profile.services.indices {
                for c in spec.profile.services[s].characteristics.indices where spec.profile.services[s].characteristics[c].notifyInterval != nil {
                    spec.profile.services[s].characteristics[c].notifyInterval = notifyEvery
                }
            }
        }
        if spec.rotationInterval != nil { spec.addressType = .random }
        try checkRecordKeys(spec, countGiven: fields["records"] != nil, line: line)
        return spec
    }

    static func parseAction(_ words: [String], line: Int) throws(ScenarioError) -> FaultAction {
        func arg(_ i: Int) throws(ScenarioError) -> String {
            guard i < words.count else { throw ScenarioError(.syntax, line: line, "'\(words[0])' needs more arguments") }
            return words[i]
        }
        switch words[0] {
        case "drop-link": return .dropLink(device: try arg(1))
        case "remove-device": return .removeDevice(device: try arg(1))
        case "rotate": return .rotateAddress(device: try arg(1))
        case "response-delay": return .responseDelay(device: try arg(1), try seconds(try arg(2), line: line))
        case "power-cycle": return .powerCycle(adapter: try adapterIndex(try arg(1), line: line), offFor: try seconds(try arg(2), line: line))
        case "power-off": return .setPowered(adapter: try adapterIndex(try arg(1), line: line), false)
        case "power-on": return .setPowered(adapter: try adapterIndex(try arg(1), line: line), true)
        case "connect-behaviour":
            let device = try arg(1)
            guard let behaviour = ConnectBehaviour(words: Array(words.dropFirst(2))) else {
                throw ScenarioError(.badValue, line: line, "connect-behaviour is normal, never-complete, in-progress or fail [NAME [MESSAGE]]")
            }
            return .connectBehaviour(device: device, behaviour)
        default:
            if let action = try parseSecurityAction(words, line: line) { return action }
            if let action = try parseRecordAction(words, line: line) { return action }
            throw ScenarioError(.unknownKeyword, line: line, "unknown fault '\(words[0])'")
        }
    }

    /// Splits on blanks; a double-quoted run (possibly inside key="…") is one word without its quotes.
    static func tokenize(_ line: String, line number: Int) throws(ScenarioError) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var started = false
        for ch in line {
            if quoted {
                if ch == "\"" { quoted = false } else { current.append(ch) }
            } else if ch == "\"" {
                quoted = true
                started = true
            } else if ch == "#" {
                break
            } else if ch == " " || ch == "\t" || ch == "\r" {
                if started { words.append(current); current = ""; started = false }
            } else {
                current.append(ch)
                started = true
            }
        }
        if quoted { throw ScenarioError(.syntax, line: number, "unterminated quote") }
        if started { words.append(current) }
        return words
    }

    static func integer(_ words: [String], line: Int, range: ClosedRange<Int>) throws(ScenarioError) -> Int {
        guard let text = words.first, let n = Int(text), range.contains(n) else {
            throw ScenarioError(.badValue, line: line, "expected a number in \(range.lowerBound)…\(range.upperBound)")
        }
        return n
    }

    static func int16(_ text: String, line: Int) throws(ScenarioError) -> Int16 {
        guard let n = Int16(text) else { throw ScenarioError(.badValue, line: line, "'\(text)' is not a 16-bit integer") }
        return n
    }

    static func seconds(_ text: String?, line: Int) throws(ScenarioError) -> Duration {
        guard let text, let value = Double(text), value >= 0, value < 1e9 else {
            throw ScenarioError(.badValue, line: line, "'\(text ?? "")' is not a number of seconds")
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }

    static func adapterIndex(_ text: String, line: Int) throws(ScenarioError) -> Int {
        guard text.hasPrefix("hci"), let n = Int(text.dropFirst(3)), n >= 0 else {
            throw ScenarioError(.badValue, line: line, "'\(text)' is not an adapter name like hci0")
        }
        return n
    }

    static func uuid(_ text: String, line: Int) throws(ScenarioError) -> String {
        guard let uuid = BluetoothUUID.normalise(text) else { throw ScenarioError(.badValue, line: line, "'\(text)' is not a UUID") }
        return uuid
    }

    static func keyedHex(_ item: String, line: Int) throws(ScenarioError) -> (String, [UInt8]) {
        guard let colon = item.lastIndex(of: ":") else { throw ScenarioError(.syntax, line: line, "expected KEY:HEXBYTES, got '\(item)'") }
        let hex = Array(item[item.index(after: colon)...].utf8)
        guard hex.count % 2 == 0 else { throw ScenarioError(.badValue, line: line, "'\(item)' has an odd number of hex digits") }
        var bytes: [UInt8] = []
        var i = 0
        while i + 1 < hex.count {
            guard let b = UInt8(String(decoding: hex[i...(i + 1)], as: UTF8.self), radix: 16) else {
                throw ScenarioError(.badValue, line: line, "'\(item)' has a non-hex byte")
            }
            bytes.append(b)
            i += 2
        }
        return (String(item[..<colon]).lowercased(), bytes)
    }
}

extension FaultAction {
    /// The device a fault names, if any.
    var deviceName: String? {
        switch self {
        case .dropLink(let d), .removeDevice(let d), .rotateAddress(let d), .responseDelay(let d, _), .connectBehaviour(let d, _): d
        case .powerCycle, .setPowered: nil
        case .forgetBond(let d), .records(let d, _): d
        }
    }
}
