import Foundation

/// SSDP (UPnP discovery) messages: the M-SEARCH request, and strict, size-limited parsing
/// of the answers, which come from anyone on the network.
public enum SSDP {
    public static let multicastHost = "239.255.255.250"
    public static let port: UInt16 = 1900
    public static let maximumResponseSize = 2048

    public static func searchRequest(target: String, mx: Int = 1) -> [UInt8] {
        Array(("M-SEARCH * HTTP/1.1\r\nHOST: \(multicastHost):\(port)\r\nMAN: \"ssdp:discover\"\r\nMX: \(mx)\r\nST: \(target)\r\n\r\n").utf8)
    }

    /// One answer to a search (or a NOTIFY announcement).
    public struct Response: Sendable, Equatable {
        public var location: String
        public var host: String
        public var searchTarget: String
        public var usn: String
        public var server: String?

        public init(location: String, host: String, searchTarget: String, usn: String, server: String?) {
            self.location = location
            self.host = host
            self.searchTarget = searchTarget
            self.usn = usn
            self.server = server
        }
    }

    /// Parses an answer. With `sender` (the datagram's source address), an answer whose
    /// LOCATION names another host is refused: anyone may answer a search, and taking
    /// the LOCATION host on trust would let one device point Photon at another.
    public static func parse(_ bytes: [UInt8], sender: String? = nil) throws -> Response {
        guard bytes.count <= maximumResponseSize else {
            throw PhotonError(.messageTooLarge, "an SSDP answer of \(bytes.count) bytes is over the limit")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw PhotonError(.protocolViolation, "an SSDP answer is not UTF-8")
        }
        var lines = text.components(separatedBy: "\r\n")
        guard let start = lines.first, start.hasPrefix("HTTP/1.1 200") || start.hasPrefix("NOTIFY * HTTP/1.1") else {
            throw PhotonError(.protocolViolation, "not an SSDP answer")
        }
        lines.removeFirst()
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw PhotonError(.protocolViolation, "malformed SSDP header line") }
            headers[String(line[..<colon]).trimmingSpaces.uppercased()] = String(line[line.index(after: colon)...]).trimmingSpaces
        }
        guard let location = headers["LOCATION"], let url = URL(string: location), url.scheme == "http",
            let host = url.host, !host.isEmpty,
            let target = headers["ST"] ?? headers["NT"], let usn = headers["USN"]
        else { throw PhotonError(.protocolViolation, "an SSDP answer without LOCATION, ST or USN") }
        if let sender, normalizedHost(host) != normalizedHost(sender) {
            throw PhotonError(
                .protocolViolation,
                "an SSDP answer from \(Redaction.sanitize(sender, limit: 64)) names another host in its LOCATION (\(Redaction.sanitize(host, limit: 64)))"
            )
        }
        return Response(
            location: Redaction.sanitize(location, limit: 256), host: Redaction.sanitize(host, limit: 64),
            searchTarget: Redaction.sanitize(target, limit: 128), usn: Redaction.sanitize(usn, limit: 256),
            server: headers["SERVER"].map { Redaction.sanitize($0, limit: 128) })
    }

    /// A host for comparison: lower-case, without IPv6 brackets or an IPv4-mapped prefix.
    static func normalizedHost(_ host: String) -> String {
        var h = host.lowercased()
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h.hasPrefix("::ffff:"), h.filter({ $0 == "." }).count == 3 { h = String(h.dropFirst(7)) }
        return h
    }

    /// The answer as a discovered service (`type` is `ssdp:<ST>`), for adapters to recognise.
    public static func service(_ response: Response) -> DiscoveredService {
        DiscoveredService(
            name: response.usn, type: "ssdp:" + response.searchTarget, host: response.host, addresses: [response.host], port: 0,
            txt: ["location": response.location, "usn": response.usn, "server": response.server ?? ""])
    }
}
