import FleetCLI
import FleetControlServer
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// SO_PEERCRED authorization, exercised by running the built fleetctl as other users via setpriv.
@Suite(.serialized) struct PermissionTests {
    static let group = "fleetctl-ctl"
    static let reader = "fleetctl-reader"
    static let admin = "fleetctl-admin"

    /// Creates the control group and two users (idempotent); the admin is a supplementary member.
    static func ensureAccounts() async throws {
        if PeerCredentials.groupID(named: group) == nil {
            #expect(try await offPool { try ChildProcess.run("/usr/sbin/groupadd", [group]) }.code == 0)
        }
        for (user, extra) in [(reader, [String]()), (admin, ["-G", group])] where getpwnam(user) == nil {
            let result = try await offPool { try ChildProcess.run("/usr/sbin/useradd", ["--no-create-home", "--shell", "/usr/sbin/nologin"] + extra + [user]) }
            #expect(result.code == 0, "useradd \(user): \(result.stderr)")
        }
    }

    static func fleetctl(as user: String, initGroups: Bool = false, _ arguments: [String], socket: String) async throws -> (code: Int32, stdout: String, stderr: String) {
        guard let entry = getpwnam(user) else { throw ControlSocketError(operation: "getpwnam", detail: user) }
        let binary = BuildProducts.path("fleetctl")
        #expect(FileManager.default.isExecutableFile(atPath: binary), "build fleetctl first (swift build) — looked in \(binary)")
        let command = ["--reuid=\(entry.pointee.pw_uid)", "--regid=\(entry.pointee.pw_gid)", initGroups ? "--init-groups" : "--clear-groups",
                       binary, "--socket", socket] + arguments
        return try await offPool { try ChildProcess.run("/usr/bin/setpriv", command) }
    }

    @Test func outsidersMayReadButNotMutate() async throws {
        try await Self.ensureAccounts()
        // A world-reachable socket, so a user outside the control group can connect at all.
        let fixture = try ServerFixture(configure: { $0.controlGroup = Self.group; $0.socketMode = 0o666 })
        defer { fixture.stop() }
        for arguments in [["status"], ["devices", "--json"], ["show", "Kitchen Lamp"], ["metrics"], ["watch", "--timeout", "0.2"]] {
            let result = try await Self.fleetctl(as: Self.reader, arguments, socket: fixture.path)
            #expect(result.code == 0, "\(arguments): \(result.stderr)")
        }
        for arguments in [["connect", "Hall Lamp"], ["forget", "c0ffee"], ["reload"], ["write", "c0ffee", "2a6e", "01"], ["set-policy", "c0ffee", "background"]] {
            let result = try await Self.fleetctl(as: Self.reader, arguments, socket: fixture.path)
            #expect(result.code == FleetctlExitCode.permissionDenied.rawValue, "\(arguments)")
            #expect(result.stderr.contains("permission denied"))
        }
        #expect(await fixture.backend.devices.count == 3, "nothing was forgotten")
        #expect(await fixture.backend.reloads == 0)
    }

    @Test func controlGroupMembersMayMutate() async throws {
        try await Self.ensureAccounts()
        let fixture = try ServerFixture(configure: { $0.controlGroup = Self.group; $0.socketMode = 0o666 })
        defer { fixture.stop() }
        // --clear-groups: membership comes from the account database (getgrouplist), not the process.
        let result = try await Self.fleetctl(as: Self.admin, ["forget", "c0ffee"], socket: fixture.path)
        #expect(result.code == 0, "\(result.stderr)")
        #expect(await fixture.backend.devices.count == 2)
    }

    @Test func aGroupOnlySocketKeepsOutsidersOutEntirely() async throws {
        try await Self.ensureAccounts()
        let fixture = try ServerFixture(configure: { $0.controlGroup = Self.group })
        defer { fixture.stop() }
        let outsider = try await Self.fleetctl(as: Self.reader, ["status"], socket: fixture.path)
        #expect(outsider.code == FleetctlExitCode.permissionDenied.rawValue)
        let member = try await Self.fleetctl(as: Self.admin, initGroups: true, ["reload"], socket: fixture.path)
        #expect(member.code == 0, "\(member.stderr)")
    }

    /// Other users' Watches fill every slot but the ones kept for root, and root still gets in (issue 41, point 9).
    @Test func rootStillGetsInWhenOtherUsersHoldEverySlot() async throws {
        try await Self.ensureAccounts()
        guard let entry = getpwnam(Self.reader) else { throw ControlSocketError(operation: "getpwnam", detail: Self.reader) }
        let readerUID = entry.pointee.pw_uid
        let fixture = try ServerFixture(configure: { $0.socketMode = 0o666; $0.maxClients = 3; $0.reservedRootConnections = 1 })
        defer { fixture.stop() }
        let binary = BuildProducts.path("fleetctl")
        var watchers: [ChildProcess] = []
        defer { for watcher in watchers { try? watcher.kill(signal: SIGKILL); _ = watcher.wait() } }
        // One at a time, each either holding a slot (a streaming Watch) or refused and gone.
        for _ in 0..<3 {
            let held = fixture.server.statistics().connections.filter { $0.uid == readerUID }.count
            let watcher = try ChildProcess("/usr/bin/setpriv", ["--reuid=\(readerUID)", "--regid=\(entry.pointee.pw_gid)", "--clear-groups",
                                                                binary, "--socket", fixture.path, "watch"],
                                           stdout: "/dev/null", stderr: "/dev/null")
            watchers.append(watcher)
            try await waitUntil("the watcher holding a slot or refused") {
                fixture.server.statistics().connections.filter { $0.uid == readerUID && $0.callsInProgress > 0 }.count > held || !watcher.isRunning
            }
        }
        let answered = try await offPool { try VarlinkConnection(path: fixture.path).call(.status, timeout: .seconds(30))["daemon"] != nil }
        #expect(answered, "root's Status is answered with every other slot taken")
        #expect(fixture.server.statistics().connections.filter { $0.uid == readerUID }.count == 2, "only two of three watchers got a slot")
        #expect(fixture.server.statistics().refusedForRootReserve == 1)
        #expect(fixture.logs.all.contains { $0.contains("uid \(readerUID)") && $0.contains("kept for root") }, "\(fixture.logs.all)")
    }

    @Test func authorizationDecisionTable() {
        let policy = ControlAuthorization(controlGID: 500)
        #expect(policy.authority(uid: 0, gid: 0, accountGroups: []).canMutate)
        #expect(policy.authority(uid: 1000, gid: 500, accountGroups: []).canMutate)
        #expect(policy.authority(uid: 1000, gid: 1000, accountGroups: [1000, 500]).canMutate)
        #expect(!policy.authority(uid: 1000, gid: 1000, accountGroups: [1000, 27]).canMutate)
        #expect(!ControlAuthorization(controlGID: nil).authority(uid: 1000, gid: 500, accountGroups: [500]).canMutate)
    }
}
