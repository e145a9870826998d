import PhotonCore

/// A Bravia's broadcast channels: `avContent/getSourceList {"scheme": "tv"}` names the
/// tuner's sources (`tv:dvbt`), `getContentCount` and `getContentList` (at most 50 a page,
/// and slow on a full lineup) list each source's channels with the number shown
/// (`dispNum`), and `setPlayContent` tunes one by its uri. "7" means the first 7.x.
extension SonySession: ChannelTuning {
    /// The most channels read (a page is 50).
    static let channelLimit = 1000

    func channels() async throws -> [TVChannel] {
        try checkOpen()
        let sources = try await api.result("avContent", "getSourceList", [.object([("scheme", "tv")])])
        var channels: [TVChannel] = []
        for source in (sources.first?.arrayValue ?? []).prefix(4).compactMap({ $0["source"]?.stringValue })
        where SonyReadings.isPlayableURI(source) {
            let count = try await api.result("avContent", "getContentCount", [.object([("source", .string(source))])], timeout: .seconds(20))
            let total = min(max(count.first?["count"]?.intValue ?? 0, 0), Self.channelLimit - channels.count)
            var index = 0
            while index < total {
                let request = JSONValue.object([("source", .string(source)), ("stIdx", .int(index)), ("cnt", .int(min(50, total - index)))])
                let page = try await api.result("avContent", "getContentList", [request], timeout: .seconds(20))
                let read = try SonyReadings.channels(page)
                channels += read
                guard !read.isEmpty else { break }
                index += 50
            }
        }
        return channels
    }

    func tune(_ number: ChannelNumber) async throws {
        let channel = try await channels().matching(number)
        _ = try await api.result("avContent", "setPlayContent", [.object([("uri", .string(channel.id))])])
    }
}

extension SonyReadings {
    /// A `getContentList` page: each channel's uri, the number shown (`dispNum`, `007` is 7)
    /// and its name.
    public static func channels(_ result: [JSONValue]) throws -> [TVChannel] {
        guard let items = result.first?.arrayValue else { throw PhotonError(.protocolViolation, "the TV's channel list is not a list") }
        return items.prefix(50).compactMap { item in
            guard let uri = item["uri"]?.stringValue, isPlayableURI(uri), let shown = item["dispNum"]?.stringValue,
                let number = try? ChannelNumber(parsing: shown.count > 1 && shown.hasPrefix("0") ? String(shown.drop { $0 == "0" }) : shown)
            else { return nil }
            return TVChannel(id: uri, number: number.description, name: Redaction.sanitize(item["title"]?.stringValue ?? "", limit: 64))
        }
    }
}
