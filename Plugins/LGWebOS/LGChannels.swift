import PhotonCore

/// An LG TV's channels: `tv/getChannelList` gives each one's id, number (`7` or `7-1`) and
/// name; `tv/openChannel` tunes by that id (as aiowebostv does), so a number is looked up
/// in the list first. (lgtv2 reports that some sets without tuned channels close the
/// socket on `getChannelList`; the session then ends with that error and reconnects.)
extension LGSession: ChannelTuning {
    func channels() async throws -> [TVChannel] {
        try checkOpen()
        return try LGChannelList.parse(try await request("tv/getChannelList"))
    }

    func tune(_ number: ChannelNumber) async throws {
        let channel = try await channels().matching(number)
        _ = try await request("tv/openChannel", .object([("channelId", .string(channel.id))]))
    }
}

/// Reads `tv/getChannelList` answers. Every field came from the network.
public enum LGChannelList {
    /// The channels in a `channelList` answer (at most 5,000; entries without an id or a
    /// number are left out).
    public static func parse(_ payload: JSONValue) throws -> [TVChannel] {
        guard let list = payload["channelList"]?.arrayValue else {
            throw PhotonError(.protocolViolation, "the TV's channel list has no channelList")
        }
        return list.prefix(5000).compactMap { entry in
            guard let id = entry["channelId"]?.stringValue, !id.isEmpty, id.utf8.count <= 64,
                let number = entry["channelNumber"]?.stringValue, !number.isEmpty, number.utf8.count <= 16
            else { return nil }
            let name = entry["channelName"]?.stringValue.map { Redaction.sanitize($0, limit: 64) } ?? ""
            return TVChannel(id: id, number: Redaction.sanitize(number, limit: 16), name: name)
        }
    }
}
