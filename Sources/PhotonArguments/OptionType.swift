import PhotonCore

/// The type of an option's value. The parser checks every value against its type before
/// a command runs, so a bad port, duration, fingerprint or MAC is a usage error (exit 2)
/// that shows the expected form, and commands read values already known to be good.
public enum OptionType: Sendable, Hashable {
    /// No value: present or not.
    case flag
    /// Any text.
    case text
    /// A TCP or UDP port, 1–65535.
    case port
    /// A port to listen on, 0–65535 (0: any free port).
    case listenPort
    /// Seconds (decimal), within the range.
    case seconds(ClosedRange<Double>)
    /// Whole milliseconds, within the range.
    case milliseconds(ClosedRange<Int>)
    /// A whole number, within the range.
    case integer(ClosedRange<Int>)
    /// A SHA-256 certificate fingerprint (64 hex digits, colons optional).
    case fingerprint
    /// A MAC address (`AA:BB:CC:DD:EE:FF` and the other common spellings).
    case mac
    /// One of these words.
    case choice([String])

    /// How help shows the value.
    public var placeholder: String? {
        switch self {
        case .flag: return nil
        case .text: return "TEXT"
        case .port, .listenPort: return "PORT"
        case .seconds: return "SECONDS"
        case .milliseconds: return "MS"
        case .integer: return "N"
        case .fingerprint: return "FINGERPRINT"
        case .mac: return "MAC"
        case .choice(let words): return words.joined(separator: "|")
        }
    }

    /// Throws a usage error naming the option and the expected form.
    public func validate(_ text: String, option: String) throws {
        func refuse(_ expected: String) -> PhotonError {
            PhotonError(.usage, "--\(option) takes \(expected), not '\(Redaction.sanitize(text, limit: 80))'")
        }
        switch self {
        case .flag, .text: return
        case .port:
            guard let port = UInt16(text), port > 0 else { throw refuse("a port number from 1 to 65535") }
        case .listenPort:
            guard UInt16(text) != nil else { throw refuse("a port number from 0 (any free port) to 65535") }
        case .seconds(let range):
            guard let value = Double(text), value.isFinite, range.contains(value) else {
                throw refuse("seconds from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
            }
        case .milliseconds(let range):
            guard let value = Int(text), range.contains(value) else {
                throw refuse("milliseconds from \(range.lowerBound) to \(range.upperBound)")
            }
        case .integer(let range):
            guard let value = Int(text), range.contains(value) else { throw refuse("a number from \(range.lowerBound) to \(range.upperBound)") }
        case .fingerprint:
            do { _ = try CertificateFingerprint(hex: text) } catch let error as PhotonError {
                throw PhotonError(.usage, "--\(option): \(error.message)", hint: error.hint)
            }
        case .mac:
            guard MACAddress.bytes(text) != nil else { throw refuse("a MAC address written as AA:BB:CC:DD:EE:FF") }
        case .choice(let words):
            guard words.contains(text) else { throw refuse(words.joined(separator: ", ")) }
        }
    }

    static func format(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
}

/// Typed reads of values the parser has already checked.
extension ParsedCommand {
    public func port(_ name: String) -> UInt16? { value(name).flatMap { UInt16($0) } }
    public func allPorts(_ name: String) -> [UInt16] { allValues(name).compactMap { UInt16($0) } }
    public func seconds(_ name: String) -> Duration? {
        value(name).flatMap(Double.init).map { .clampedSeconds($0, maximum: 86_400 * 365) }
    }
    public func milliseconds(_ name: String) -> Int? { value(name).flatMap { Int($0) } }
    public func integer(_ name: String) -> Int? { value(name).flatMap { Int($0) } }
    public func fingerprint(_ name: String) -> CertificateFingerprint? { value(name).flatMap { try? CertificateFingerprint(hex: $0) } }
}
