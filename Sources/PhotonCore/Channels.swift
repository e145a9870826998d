/// A channel number as a user gives it: `7`, or a major and minor number (`7.1`, `7-1`)
/// as ATSC channels and Roku TVs number them.
public struct ChannelNumber: Sendable, Hashable, CustomStringConvertible {
    public var major: Int
    public var minor: Int?

    public init(major: Int, minor: Int? = nil) {
        self.major = major
        self.minor = minor
    }

    /// Reads `7`, `7.1`, `7-1` (1 to 9999, minor 0 to 999). Throws `usage` otherwise.
    public init(parsing text: String) throws {
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "." || $0 == "-" })
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 4 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let major = Int(parts[0]), (1...9999).contains(major)
        else {
            throw PhotonError(.usage, "a channel is a number such as 7 or 7.1, not '\(Redaction.sanitize(text, limit: 32))'")
        }
        var minor: Int?
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...999).contains(value) else {
                throw PhotonError(.usage, "a sub-channel is 0 to 999, not '\(Redaction.sanitize(text, limit: 32))'")
            }
            minor = value
        }
        self.init(major: major, minor: minor)
    }

    public var description: String { minor.map { "\(major).\($0)" } ?? "\(major)" }

    /// Whether a TV's channel numbered `number` (`7`, `7.1`, `7-1`) is this one: equal, or
    /// for a number without a minor part, the same major number.
    public func matches(_ number: String) -> Bool {
        guard let other = try? ChannelNumber(parsing: number) else { return false }
        return other == self || (minor == nil && other.major == major)
    }
}

/// One channel of a TV that lists them: the brand's id for it, its number and name.
public struct TVChannel: Sendable, Hashable {
    public var id: String
    public var number: String
    public var name: String

    public init(id: String, number: String, name: String) {
        self.id = id
        self.number = number
        self.name = name
    }
}

extension Array where Element == TVChannel {
    /// The channel `number` means on this TV: the one with that number, else (for `7`) the
    /// first `7.x`. Throws `not_found` with a few of the TV's channels.
    public func matching(_ number: ChannelNumber) throws -> TVChannel {
        if let exact = first(where: { (try? ChannelNumber(parsing: $0.number)) == number }) { return exact }
        if let first = first(where: { number.matches($0.number) }) { return first }
        throw PhotonError(
            .notFound, "the TV has no channel \(number)",
            hint: isEmpty
                ? "it lists no channels (tune them on the TV first)"
                : "its channels include " + prefix(8).map { Redaction.sanitize($0.number, limit: 12) }.joined(separator: ", "))
    }
}

/// Lists the TV's channels (capability `channel-list`).
public protocol ChannelListing: RemoteSession {
    func channels() async throws -> [TVChannel]
}

/// Tunes a channel with the TV's own call (LG `tv/openChannel`, Roku's tuner launch). A TV
/// without one gets the digits and Enter from the core.
public protocol ChannelTuning: ChannelListing {
    func tune(_ number: ChannelNumber) async throws
}

extension RemoteCommand {
    /// How `.channel` reaches `session`: its own tuning call where it has one, else digit
    /// keys and Enter (a sub-channel cannot be typed that way).
    public static func channelMethod(for session: any RemoteSession) -> ChannelMethod {
        session.capabilities.contains(.channelList) && session is any ChannelTuning ? .tuningCall : .digitKeys
    }

    /// The keys that type `number` and confirm it.
    static func digitKeys(for number: ChannelNumber) throws -> [RemoteKey] {
        guard number.minor == nil else {
            throw PhotonError.unsupported(
                "sub-channel \(number) cannot be typed with digit keys on this TV; nothing was sent",
                hint: "its brand has no tuning call; type the channel the way its remote does with `photon key`")
        }
        let digits: [RemoteKey] = [.digit0, .digit1, .digit2, .digit3, .digit4, .digit5, .digit6, .digit7, .digit8, .digit9]
        return String(number.major).compactMap { $0.wholeNumberValue.map { digits[$0] } } + [.select]
    }
}

/// How a channel was tuned, for the user: `photon channel` says which.
public enum ChannelMethod: String, Sendable {
    case tuningCall = "tuning-call"
    case digitKeys = "digit-keys"
}
