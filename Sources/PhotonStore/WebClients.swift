import Foundation
import PhotonCore
import PhotonCrypto

/// The companion devices (phones, browsers, scripts) paired to the daemon's HTTP door,
/// the pairing code waiting to be used, and the door's own HTTPS identity. Kept in
/// `web-clients.json` in the data directory (0600): tokens only as SHA-256 hashes, so the
/// file never holds what a client presents.
public struct WebClientFile: Codable, Sendable, VersionedStoreFile {
    public static let currentSchemaVersion = 1
    public var schemaVersion = WebClientFile.currentSchemaVersion
    public var pairing: WebPairing?
    public var clients: [WebClient] = []
    /// The HTTPS door's self-signed certificate and key, made on first use.
    public var server: StoredIdentity?

    public init() {}
}

/// A one-time pairing code made by `photon web pair`: only its hash is stored.
public struct WebPairing: Codable, Sendable {
    public var codeHash: String
    public var expiresAt: Date
    /// Wrong codes tried so far, from every device; at `WebPairing.totalAttemptLimit`
    /// pairing is locked for everyone until a new `photon web pair`.
    public var failures: Int
    /// Wrong codes per device (its network address, or its user on this machine): at
    /// `WebPairing.attemptLimit` that device is locked out of this code, and the others may
    /// still pair. One LAN host, or another local user, can no longer lock the owner out
    /// with five wrong codes (round 4, L5 and L6). Absent in files written before.
    public var failuresByDevice: [String: Int]?
    /// The name `photon web pair --name` gave the device (the device's own otherwise).
    public var name: String?

    /// Wrong codes one device may try.
    public static let attemptLimit = 5
    /// Wrong codes all devices together may try: with 8 digits, 50 guesses find the code
    /// one time in two million.
    public static let totalAttemptLimit = 50
    public static let lifetime: TimeInterval = 300
    public var isLocked: Bool { failures >= Self.totalAttemptLimit }

    /// Whether `device` has used up its wrong codes.
    public func isLocked(for device: String) -> Bool {
        isLocked || (failuresByDevice?[device] ?? 0) >= Self.attemptLimit
    }
}

/// One paired companion device.
public struct WebClient: Codable, Sendable, Equatable {
    public var name: String
    /// SHA-256 of the token, hex.
    public var tokenHash: String
    public var created: Date
    public var lastSeen: Date?
}

/// What a pairing attempt came to.
public enum WebPairingOutcome: Sendable, Equatable {
    /// Paired: the token to give the device (shown once, never stored).
    case paired(name: String, token: String)
    case noPairingOpen
    case expired
    /// A wrong code; this device may try `attemptsLeft` more.
    case wrongCode(attemptsLeft: Int)
    /// This device used up its wrong codes; others may still pair.
    case lockedForDevice
    /// Every device together used up the wrong codes.
    case locked
}

extension StorePaths {
    /// Paired web clients, the open pairing code and the HTTPS identity (0600).
    public var webClientsFile: URL { dataDirectory.appendingPathComponent("web-clients.json") }
    /// Written by a daemon serving HTTP: its URL and certificate fingerprint, for `photon web`.
    public var webDoorFile: URL { runtimeDirectory.appendingPathComponent("web.json") }
}

extension Store {
    /// The paired web clients and the pairing state.
    public func webClients() async throws -> WebClientFile {
        try await locked { try loadWebClients() }
    }

    /// Opens pairing with a new one-time code (8 digits, valid five minutes, single use)
    /// and returns it. Replaces any earlier code and clears a lock-out.
    public func startWebPairing(name: String?, now: Date = Date()) async throws -> String {
        if let name { try DeviceNaming.validateNickname(name) }
        let digits = try SecureRandom.bytes(8).map { String($0 % 10) }.joined()
        try await updateWebClients { file in
            file.pairing = WebPairing(
                codeHash: Self.hash(Self.normalizedCode(digits)), expiresAt: now.addingTimeInterval(WebPairing.lifetime),
                failures: 0, name: name)
        }
        return String(digits.prefix(4)) + "-" + String(digits.suffix(4))
    }

    /// Tries a pairing code from `device` (who is trying: an address, or a local user). The
    /// right one, in time, makes a client with a fresh 256-bit token and closes pairing; a
    /// wrong one counts toward that device's lock-out and toward everyone's.
    public func redeemWebPairing(code: String, deviceName: String?, from device: String = "", now: Date = Date()) async throws
        -> WebPairingOutcome
    {
        let token = Self.base64URL(try SecureRandom.bytes(32))
        return try await updateWebClients { file -> WebPairingOutcome in
            guard var pairing = file.pairing else { return .noPairingOpen }
            if pairing.isLocked { return .locked }
            if pairing.isLocked(for: device) { return .lockedForDevice }
            guard pairing.expiresAt > now else {
                file.pairing = nil
                return .expired
            }
            guard ConstantTime.equal(Array(Self.hash(Self.normalizedCode(code)).utf8), Array(pairing.codeHash.utf8)) else {
                pairing.failures += 1
                let mine = (pairing.failuresByDevice?[device] ?? 0) + 1
                pairing.failuresByDevice = (pairing.failuresByDevice ?? [:]).merging([device: mine]) { $1 }
                file.pairing = pairing
                if pairing.isLocked { return .locked }
                return pairing.isLocked(for: device) ? .lockedForDevice : .wrongCode(attemptsLeft: WebPairing.attemptLimit - mine)
            }
            file.pairing = nil
            let wanted = pairing.name ?? Self.cleanDeviceName(deviceName) ?? "device"
            let name = Self.unique(wanted, among: Set(file.clients.map(\.name)))
            file.clients.append(WebClient(name: name, tokenHash: Self.hash(token), created: now, lastSeen: now))
            return .paired(name: name, token: token)
        }
    }

    /// Removes the client named `name`; false when there is none.
    public func revokeWebClient(named name: String) async throws -> Bool {
        try await updateWebClients { file in
            let before = file.clients.count
            file.clients.removeAll { $0.name == name }
            return file.clients.count != before
        }
    }

    /// Records when clients were last seen (the door batches these).
    public func recordWebClientsSeen(_ seen: [String: Date]) async throws {
        guard !seen.isEmpty else { return }
        try await updateWebClients { file in
            for index in file.clients.indices {
                if let date = seen[file.clients[index].name] { file.clients[index].lastSeen = date }
            }
        }
    }

    /// The HTTPS door's identity, made (RSA-2048, self-signed, with this machine's names
    /// as alternative names) on first use and then kept.
    public func webServerIdentity(subjectAltNames: [String]) async throws -> StoredIdentity {
        if let existing = try await webClients().server { return existing }
        let key = try RSAKey.generate(bits: 2048)
        let certificate = try Certificate.selfSigned(
            key: key, subject: [("CN", "Photon web remote"), ("O", "Photon")], subjectAltNames: subjectAltNames)
        let fresh = StoredIdentity(certificatePEM: try certificate.pem(), privateKeyPEM: try key.privateKeyPEM())
        return try await updateWebClients { file in
            if let existing = file.server { return existing }
            file.server = fresh
            return fresh
        }
    }

    /// The hash under which a token (or code) is stored.
    public static func hash(_ secret: String) -> String { Hex.encode(Digest.sha256(Array(secret.utf8))) }

    // MARK: internals

    private func loadWebClients() throws -> WebClientFile {
        try load(WebClientFile.self, from: paths.webClientsFile.path, schemaVersion: WebClientFile.currentSchemaVersion) ?? WebClientFile()
    }

    private func updateWebClients<R: Sendable>(_ body: (inout WebClientFile) throws -> R) async throws -> R {
        try await locked {
            var file = try loadWebClients()
            let result = try body(&file)
            try write(file, to: paths.webClientsFile.path)
            return result
        }
    }

    static func normalizedCode(_ code: String) -> String { String(code.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init)) }

    static func cleanDeviceName(_ name: String?) -> String? {
        guard let name else { return nil }
        let trimmed = String(name.trimmingCharacters(in: .whitespaces).prefix(64))
        return (try? DeviceNaming.validateNickname(trimmed)) != nil ? trimmed : nil
    }

    static func unique(_ name: String, among taken: Set<String>) -> String {
        guard taken.contains(name) else { return name }
        var n = 2
        while taken.contains("\(name)-\(n)") { n += 1 }
        return "\(name)-\(n)"
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
