import Foundation
import PhotonCore
import PhotonCrypto

/// Photon's persistent state: paired-TV metadata (`devices.json`, in the config
/// directory) and secrets (`secrets.json`: client identity, TV pins, tokens, in the data
/// directory). Both are 0600 in 0700 directories, rewritten atomically under one lock.
/// A file that cannot be decoded is moved aside and reported; it is never overwritten.
public struct Store: Sendable {
    public let paths: StorePaths
    public let lockTimeout: Duration

    public init(paths: StorePaths, lockTimeout: Duration = .seconds(10)) {
        self.paths = paths
        self.lockTimeout = lockTimeout
    }

    // MARK: reading

    /// The paired TVs (empty before the first pairing).
    public func devices() async throws -> DeviceFile {
        try await locked { try loadDevices() }
    }

    /// The secrets of one TV.
    public func secrets(for deviceID: String) async throws -> DeviceSecrets {
        try await locked { try loadSecrets().devices[deviceID] ?? DeviceSecrets() }
    }

    /// Both files, read under one lock: what a long-running reader (the daemon) caches
    /// until `fileStamp()` changes.
    public func snapshot() async throws -> (devices: DeviceFile, secrets: SecretFile) {
        try await locked { (try loadDevices(), try loadSecrets()) }
    }

    /// Changes whenever either file is replaced or modified (inode, size and
    /// modification time of both); cheap enough to check before every use.
    public func fileStamp() -> [Int] {
        [paths.devicesPath, paths.secretsPath].flatMap { path -> [Int] in
            var st = stat()
            guard stat(path, &st) == 0 else { return [-1, -1, -1, -1] }
            return [Int(st.st_ino), Int(st.st_size), Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec)]
        }
    }

    /// Finds a paired TV by nickname, id or address, or throws `notFound` with the list.
    public func device(named name: String) async throws -> DeviceRecord {
        let file = try await devices()
        if let found = file.find(name) { return found }
        if let ambiguous = file.ambiguity(of: name) { throw ambiguous }
        let known = file.devices.map(\.nickname).sorted()
        throw PhotonError(
            .notFound, "no paired TV is called '\(Redaction.sanitize(name))'",
            hint: known.isEmpty ? "pair one first with `photon pair ADDRESS`" : DeviceFile.didYouMean(name, among: known))
    }

    // MARK: writing

    /// Reads both files, lets `body` change them, and writes back what changed, all
    /// under the store lock.
    @discardableResult
    public func update<R: Sendable>(_ body: @Sendable (inout DeviceFile, inout SecretFile) throws -> R) async throws -> R {
        try await locked {
            var devices = try loadDevices()
            var secrets = try loadSecrets()
            let (originalDevices, originalSecrets) = (devices, secrets)
            let result = try body(&devices, &secrets)
            if devices != originalDevices { try write(devices, to: paths.devicesPath) }
            if secrets != originalSecrets { try write(secrets, to: paths.secretsPath) }
            return result
        }
    }

    /// Stores a newly paired TV. Re-pairing the same TV (same id, pin and address)
    /// replaces its record and keeps its nickname. A TV whose id matches a paired TV but
    /// that presents another certificate pin or answers at another address is a different
    /// device until the user says otherwise: without `replacing` it is refused, never
    /// swapped in silently (ids come partly from what the TV reports). A nickname that
    /// another TV uses as nickname, id or address is refused.
    public func save(_ paired: PairedTV, replacing: Bool = false) async throws {
        try await update { devices, secrets in
            let new = paired.device
            try DeviceNaming.checkUnique(nickname: new.nickname, for: new.id, among: devices.devices)
            if let old = devices.devices.first(where: { $0.id == new.id }), !replacing {
                let oldPin = secrets.devices[old.id]?.pin
                var differences: [String] = []
                if oldPin != paired.secrets.pin { differences.append("another certificate") }
                if old.host != new.host || old.port != new.port { differences.append("another address (\(old.endpoint) before)") }
                if !differences.isEmpty {
                    throw PhotonError(
                        .untrustedCertificate,
                        "the TV at \(new.endpoint) reports the id of \(Redaction.sanitize(old.nickname)) (\(old.id)) but has \(differences.joined(separator: " and ")); nothing was replaced",
                        hint:
                            "if it is the same TV (reset or moved), pair again with --replace; otherwise `photon forget \(Redaction.sanitize(old.nickname))` first"
                    )
                }
            }
            devices.devices.removeAll { $0.id == new.id }
            devices.devices.append(new)
            secrets.devices[new.id] = paired.secrets
        }
    }

    /// Removes a TV and its secrets; returns the removed record.
    public func forget(_ name: String) async throws -> DeviceRecord {
        try await update { devices, secrets in
            guard let device = devices.find(name) else {
                throw PhotonError(
                    .notFound, "no paired TV is called '\(Redaction.sanitize(name))'", hint: "see `photon list`")
            }
            devices.devices.removeAll { $0.id == device.id }
            secrets.devices[device.id] = nil
            // Sessions are kept by opaque key: all go, the other TVs resume again after
            // one full handshake each.
            TLSSessionFiles(paths: paths).removeAll()
            return device
        }
    }

    /// Gives a paired TV a new nickname.
    public func rename(_ name: String, to nickname: String) async throws -> DeviceRecord {
        try DeviceNaming.validateNickname(nickname)
        return try await update { devices, _ in
            guard let index = devices.devices.firstIndex(where: { $0.nickname == name || $0.id == name }) else {
                throw PhotonError(.notFound, "no paired TV is called '\(Redaction.sanitize(name))'", hint: "see `photon list`")
            }
            try DeviceNaming.checkUnique(nickname: nickname, for: devices.devices[index].id, among: devices.devices)
            devices.devices[index].nickname = nickname
            return devices.devices[index]
        }
    }

    // MARK: client identity

    /// This installation's TLS identity, generated (RSA-2048, self-signed) and stored on
    /// first need, then reused.
    public func clientIdentity() async throws -> StoredIdentity {
        if let existing = try await locked({ try loadSecrets().identity }) { return existing }
        let fresh = try Self.makeIdentity()
        return try await update { _, secrets in
            // Another process may have made one meanwhile: keep the first.
            if let existing = secrets.identity { return existing }
            secrets.identity = fresh
            return fresh
        }
    }

    /// Replaces the identity with a new one. TVs that trusted the old certificate
    /// (brands whose adapter `usesClientIdentity`) must be paired again.
    public func regenerateIdentity() async throws -> StoredIdentity {
        let fresh = try Self.makeIdentity()
        return try await update { _, secrets in
            secrets.identity = fresh
            // Sessions made with the old certificate resume as that client: none is kept.
            TLSSessionFiles(paths: paths).removeAll()
            return fresh
        }
    }

    /// The identity if one exists, without creating it.
    public func existingIdentity() async throws -> StoredIdentity? {
        try await locked { try loadSecrets().identity }
    }

    static func makeIdentity() throws -> StoredIdentity {
        let identity = try IdentityFactory.makeClientIdentity(commonName: "Photon Remote")
        return StoredIdentity(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
    }

    // MARK: internals

    func locked<R>(_ body: () throws -> R) async throws -> R {
        try SecureFiles.ensurePrivateDirectory(paths.configPath)
        try SecureFiles.ensurePrivateDirectory(paths.dataPath)
        let lock = try await StoreLock.acquire(paths.lockPath, timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        return try body()
    }

    private func loadDevices() throws -> DeviceFile {
        try load(DeviceFile.self, from: paths.devicesPath, schemaVersion: DeviceFile.currentSchemaVersion) ?? DeviceFile()
    }

    private func loadSecrets() throws -> SecretFile {
        try load(SecretFile.self, from: paths.secretsPath, schemaVersion: SecretFile.currentSchemaVersion) ?? SecretFile()
    }

    private struct VersionProbe: Decodable { var schemaVersion: Int? }

    /// Reads one of the store's files: nil when it does not exist. A file written by a newer
    /// Photon is refused and left alone; a damaged one is kept aside. The version is checked
    /// on the decoded file, and the file read a second time only when it does not decode
    /// (to tell a newer schema from damage), so a cold command decodes each file once.
    func load<T: VersionedStoreFile>(_ type: T.Type, from path: String, schemaVersion: Int) throws -> T? {
        guard let data = try SecureFiles.read(path) else { return nil }
        let bytes = [UInt8](data)
        func newer(_ version: Int) -> PhotonError {
            PhotonError(
                .storeCorrupt, "\(path) was written by a newer Photon (schema \(version), this one reads \(schemaVersion))",
                hint: "upgrade Photon; the file was left untouched")
        }
        let decoded: T
        do {
            decoded = try StoreFileDecoder.decode(T.self, from: bytes)
        } catch {
            if let probe = try? StoreFileDecoder.decode(VersionProbe.self, from: bytes), let version = probe.schemaVersion, version > schemaVersion {
                throw newer(version)
            }
            let kept = SecureFiles.keepAside(URL(filePath: path, directoryHint: .notDirectory))
            throw PhotonError(
                .storeCorrupt, "\(SecureFiles.fileName(of: path)) is damaged and cannot be read (\(Self.describe(error)))",
                hint: "it was kept as \(kept.path) and a fresh file will be started; restore it from there if you can")
        }
        guard decoded.schemaVersion <= schemaVersion else { throw newer(decoded.schemaVersion) }
        return decoded
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): return c.debugDescription
        case DecodingError.keyNotFound(let key, _): return "missing field '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            return "wrong value at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        default: return "\(error)"
        }
    }

    func write<T: Encodable>(_ value: T, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        var data = try encoder.encode(value)
        data.append(0x0A)
        try SecureFiles.writeAtomically(data, to: path)
    }
}

/// Rules for the names users give TVs.
public enum DeviceNaming {
    public static func validateNickname(_ name: String) throws {
        // No control characters (C0, DEL, C1) and no bidirectional controls, which would
        // make a name print as another (round 4, L7: web client names chosen by a device).
        guard !name.isEmpty, name.count <= 64,
            name.unicodeScalars.allSatisfy({ scalar in
                let v = scalar.value
                return v >= 0x20 && v != 0x7F && !(0x80..<0xA0).contains(v) && v != 0x200E && v != 0x200F && !(0x202A...0x202E).contains(v)
                    && !(0x2066...0x2069).contains(v) && v != 0x061C
            }),
            name.first?.isWhitespace == false, name.last?.isWhitespace == false
        else {
            throw PhotonError(
                .usage, "'\(Redaction.sanitize(name))' is not a usable nickname",
                hint: "use 1 to 64 printable characters, e.g. living-room")
        }
        guard !name.contains(":"), !name.hasPrefix("[") else {
            throw PhotonError(.usage, "a nickname cannot contain ':' or start with '[' (it would look like an address)")
        }
    }

    /// Refuses a nickname that another TV already answers to (as nickname, id or
    /// address), so a name always finds one TV.
    public static func checkUnique(nickname: String, for id: String, among devices: [DeviceRecord]) throws {
        guard let clash = devices.first(where: { $0.id != id && ($0.nickname == nickname || $0.id == nickname || $0.host == nickname) })
        else { return }
        let what = clash.nickname == nickname ? "nickname" : clash.id == nickname ? "id" : "address"
        throw PhotonError(
            .usage, "'\(Redaction.sanitize(nickname))' is already the \(what) of \(Redaction.sanitize(clash.nickname)) (\(clash.id))",
            hint: "choose another with --name, or `photon forget \(Redaction.sanitize(clash.nickname))` first")
    }

    /// A nickname made from a TV's name: lower-case words joined by '-'.
    public static func suggestedNickname(from name: String) -> String {
        let words = name.lowercased().split { !$0.isLetter && !$0.isNumber }
        let joined = words.joined(separator: "-")
        return joined.isEmpty ? "tv" : String(joined.prefix(40))
    }
}

/// A file of the store: it says which schema wrote it, so a newer one is never misread.
protocol VersionedStoreFile: Decodable {
    var schemaVersion: Int { get }
}

extension DeviceFile: VersionedStoreFile {}
extension SecretFile: VersionedStoreFile {}
