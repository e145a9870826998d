import PhotonCore

/// A Roku TV's antenna channels: `/query/tv-channels` lists them (numbered `7.1`), and
/// launching the tuner with `ch=` tunes one (`POST /launch/tvinput.dtv?ch=7.1`). "7" means
/// the first 7.x. A streaming player has no tuner: it lists none, and every number is
/// "not found" there.
extension RokuSession: ChannelTuning {
    func channels() async throws -> [TVChannel] {
        try checkOpen()
        let response = try await client.request("GET", "/query/tv-channels")
        // Players without a tuner answer 404 (or an empty list).
        if response.status == 404 { return [] }
        try Self.check(response, what: "the channel list")
        return try RokuChannelList.parse(response.body)
    }

    func tune(_ number: ChannelNumber) async throws {
        let channel = try await channels().matching(number)
        // The number came from the TV: it goes into the request only as parsed digits.
        let tuned = try ChannelNumber(parsing: channel.number)
        try CommandDeadline.checkBeforeSending()
        try await post("/launch/tvinput.dtv?ch=\(tuned.major)" + (tuned.minor.map { ".\($0)" } ?? ""), what: "channel \(tuned)")
    }
}

/// Reads `/query/tv-channels`. Every field came from the network.
public enum RokuChannelList {
    public static func parse(_ body: [UInt8]) throws -> [TVChannel] {
        let root = try XMLTree.parse(body)
        guard root.name == "tv-channels" else { throw PhotonError(.protocolViolation, "the answer to tv-channels is not a <tv-channels>") }
        return root.all("channel").prefix(5000).compactMap { channel in
            guard let number = channel.value("number"), !number.isEmpty, number.utf8.count <= 16,
                (try? ChannelNumber(parsing: number)) != nil
            else { return nil }
            if channel.value("user-hidden") == "true" { return nil }
            let name = Redaction.sanitize(channel.value("name") ?? "", limit: 64)
            return TVChannel(id: number, number: number, name: name)
        }
    }
}
