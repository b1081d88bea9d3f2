import FleetSystem
import FoundationEssentials
import Pairing
#if canImport(Glibc)
import Glibc
#endif

/// Reads a device's `passkey-file`: one to six digits, refused when anyone but its owner may read or
/// write it. The mode is checked on the opened file (fstat), so a file swapped after the check is not read.
public enum PasskeyFile {
    /// The passkey in `path`.
    public static func read(_ path: String) throws(PasskeyFileError) -> Passkey {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path: path) }
        let mode = UInt32(info.st_mode) & 0o7777
        // A systemd credential (LoadCredential=) is 0440 through an ACL for fleetd alone: accepted as it is.
        if let problem = PasskeyFileMode.problem(mode: mode), !ServiceCredentials.isServiceCredential(descriptor: fd) {
            throw .tooOpen(path: path, mode: mode, problem: problem)
        }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard let passkey = Passkey(text: String(decoding: buffer[0..<count], as: UTF8.self)) else { throw .malformed(path: path) }
        return passkey
    }

    /// A candidate with its passkey looked up: from the configuration, or read from its file now.
    public static func resolve(_ candidate: PairingCandidate) -> PairingCandidate {
        var resolved = candidate
        switch candidate.policy.method {
        case .passkey(.value(let passkey)):
            resolved.passkey = .known(passkey)
        case .passkey(.file(let path)):
            do throws(PasskeyFileError) {
                resolved.passkey = .known(try read(path))
            } catch {
                resolved.passkey = .unavailable(reason: error.description)
            }
        case .none, .justWorks:
            break
        }
        return resolved
    }
}

/// A passkey-file fleetd will not use, naming the file and what is wrong with it.
public enum PasskeyFileError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case notARegularFile(path: String)
    /// Group or others may read or write it; `mode` is the permission bits.
    case tooOpen(path: String, mode: UInt32, problem: String)
    /// It does not hold one to six digits.
    case malformed(path: String)

    public var path: String {
        switch self {
        case .unreadable(let path, _), .notARegularFile(let path), .tooOpen(let path, _, _), .malformed(let path): path
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "passkey-file \(path) cannot be read: \(reason)"
        case .notARegularFile(let path): "passkey-file \(path) is not a regular file"
        case .tooOpen(let path, let mode, let problem): "passkey-file \(path) has mode \(Self.octal(mode)): \(problem)"
        case .malformed(let path): "passkey-file \(path) does not hold a passkey (one to six digits)"
        }
    }

    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
