#if canImport(Glibc)
import Glibc
#endif
import FleetSystem

/// Who is on the other end of a Unix socket, from `SO_PEERCRED` (taken by the kernel at connect time).
public struct PeerCredentials: Sendable, Equatable {
    public var pid: pid_t
    public var uid: uid_t
    public var gid: gid_t

    public init(pid: pid_t, uid: uid_t, gid: gid_t) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// Reads the credentials of the peer of connected `socket`.
    public static func of(socket: borrowing FileDescriptor) throws(ControlSocketError) -> PeerCredentials {
        // Glibc's `struct ucred` needs _GNU_SOURCE, which Swift's Glibc module lacks; its layout is
        // three 32-bit fields (pid, uid, gid), so read it as that.
        let expected = socklen_t(MemoryLayout<UInt32>.size * 3)
        var fields: [UInt32] = [0, 0, 0]
        var length = expected
        let number = socket.rawValue
        do {
            try nothingOrErrno { fields.withUnsafeMutableBytes { getsockopt(number, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &length) } }
        } catch {
            throw ControlSocketError(operation: "getsockopt(SO_PEERCRED)", errno: error)
        }
        guard length == expected else {
            throw ControlSocketError(operation: "getsockopt(SO_PEERCRED)", detail: "the kernel returned \(length) bytes, not \(expected)")
        }
        return PeerCredentials(pid: pid_t(bitPattern: fields[0]), uid: fields[1], gid: fields[2])
    }

    /// The groups the account database gives `uid`: its primary group plus supplementary groups
    /// (getgrouplist(3)). Empty when the uid has no passwd entry.
    public static func accountGroups(uid: uid_t, primaryGID: gid_t) -> [gid_t] {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
            return []
        }
        var count: Int32 = 64
        while true {
            var groups = [gid_t](repeating: 0, count: Int(count))
            let previous = count
            if getgrouplist(name, primaryGID, &groups, &count) >= 0 {
                return Array(groups.prefix(Int(count)))
            }
            // getgrouplist reports the needed size in `count`; guard against it not growing.
            if count <= previous { count = previous * 2 }
            if count > 65_536 { return [] }
        }
    }

    /// Resolves a group name to its gid with getgrnam_r(3).
    public static func groupID(named name: String) -> gid_t? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.gr_gid
    }
}

/// Who may mutate: root, and members of the control group (primary or supplementary, per the account database).
public struct ControlAuthorization: Sendable, Equatable {
    /// The control group; nil means only root may mutate.
    public var controlGID: gid_t?

    public init(controlGID: gid_t?) { self.controlGID = controlGID }

    /// Pure decision from the peer's uid, its socket gid and its account groups.
    public func authority(uid: uid_t, gid: gid_t, accountGroups: [gid_t]) -> CallerAuthority {
        if uid == 0 { return CallerAuthority(canMutate: true) }
        guard let controlGID else { return CallerAuthority(canMutate: false) }
        return CallerAuthority(canMutate: gid == controlGID || accountGroups.contains(controlGID))
    }

    /// Looks up the peer's account groups and decides.
    public func authority(for peer: PeerCredentials) -> CallerAuthority {
        let groups = (peer.uid == 0 || controlGID == nil) ? [] : PeerCredentials.accountGroups(uid: peer.uid, primaryGID: peer.gid)
        return authority(uid: peer.uid, gid: peer.gid, accountGroups: groups)
    }
}
